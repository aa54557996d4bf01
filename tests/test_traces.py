"""Model episodes as MLflow traces: a span per turn and per tool call, scripted episodes left out."""

from __future__ import annotations

import mlflow
import pytest
from episode_records import episode_record

from res_repro.pipelines.reporting import write_episodes
from res_repro.traces import model_episodes, tool_results, turns
from res_repro.tracking import tracked_run

MESSAGES = [
    {"role": "system", "content": "You are an agent."},
    {"role": "user", "content": "Fix the report."},
    {
        "role": "assistant",
        "content": "Reading it.",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "r.md"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "# Report"},
    {"role": "assistant", "content": "Done."},
]


def test_turns_pair_each_reply_with_the_messages_before_it():
    found = turns(MESSAGES)
    assert [len(inputs) for inputs, _ in found] == [2, 1]
    assert found[1][0] == [MESSAGES[3]]
    assert found[1][1]["content"] == "Done."
    assert tool_results(MESSAGES) == {"c1": "# Report"}


def test_only_model_episodes_with_a_conversation_are_traced():
    records = [
        episode_record("model", messages=MESSAGES),
        episode_record("oracle", scripted=True, messages=MESSAGES),
        episode_record("m", messages=[]),
    ]
    assert [r.agent for r in model_episodes(records)] == ["model"]


@pytest.mark.slow
def test_a_model_episode_becomes_a_trace_of_the_run(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    records = [
        episode_record("model", messages=MESSAGES, task_id="t1", score=0.9),
        episode_record("oracle", scripted=True, messages=MESSAGES),
    ]
    with tracked_run(
        enabled=True,
        uri=uri,
        experiment="traces",
        run_name="r",
        params={},
        tags={},
        artifact_root=str(tmp_path / "artifacts"),
    ) as tracker:
        tracker.log_traces(write_episodes(records, tmp_path / "episodes.jsonl"), limit=10)
    mlflow.flush_trace_async_logging()
    [trace] = mlflow.search_traces(locations=[tracker.experiment_id], return_type="list")
    assert trace.info.request_metadata["mlflow.sourceRun"] == tracker.run_id
    spans = {span.name: span for span in trace.data.spans}
    assert set(spans) == {"model on t1", "turn 1", "turn 2", "read_file"}
    assert spans["read_file"].parent_id == spans["turn 1"].span_id
    assert spans["read_file"].inputs == {"path": "r.md"}
    assert spans["read_file"].outputs == "# Report"
    assert spans["model on t1"].outputs["grade"]["score"] == 0.9
    run = mlflow.tracking.MlflowClient(tracking_uri=uri).get_run(tracker.run_id)
    assert run.data.tags["traces"] == "1 of 1 model episodes"
