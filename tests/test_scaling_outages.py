"""Infrastructure failures during scaling are never verdicts: a provider outage while the scaling target
attempts a node stores nothing, names the lineage as incomplete, and the next run after recovery goes on."""

from __future__ import annotations

from fake_providers import OPENAI, SERVER_ERROR, FakeModelServer, Reply
from scalers import build_scaler
from tool_factory import make_tool_task

from res_repro.agents import make_llm_agent
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.pipelines.lineage_views import lineage_notes
from res_repro.pipelines.lineages import scaling_report
from res_repro.res.lineage import LineageStore

LOOP = {
    "max_turns": 5,
    "time_limit_s": 60.0,
    "max_tool_output_chars": 8000,
    "retry": {"max_attempts": 2, "base_delay_s": 0.01, "max_delay_s": 0.02, "jitter": 0.5},
}


def test_an_outage_of_the_target_leaves_no_verdict_and_a_rerun_after_recovery_goes_on(tmp_path):
    task = load_tool_task(make_tool_task(tmp_path / "seed"))
    with FakeModelServer(OPENAI, [], after=SERVER_ERROR) as server:
        model = {"provider": OPENAI, "model": "fake", "base_url": server.base_url, "timeout_s": 5.0}
        target = make_llm_agent("target", model, LOOP, None, 0)
        scaler = build_scaler(tmp_path / "lin", depth_cap=3, target=target, operators=["require_token"])
        down = scaler.scale(task)
        assert (down.stop_reason, down.last.manifest.depth) == ("target_unavailable", 1)
        assert "provider_error" in down.why
        stored = LineageStore(tmp_path / "lin").load(task.task_id, down.last.manifest.node_id)
        assert stored is not None and stored.manifest.target == []  # no verdict kept
        assert "incomplete" in lineage_notes([down])[0] and task.task_id in lineage_notes([down])[0]
        assert scaling_report([down], llm=False) == [
            f"incomplete lineage {task.task_id} at depth 1: {down.why}"
        ]

        server.load([], after=Reply("I give up."))  # the endpoint is back; the target answers, unsolved
        back = scaler.scale(task)
    assert (back.stop_reason, back.last.manifest.depth) == ("target_failed", 1)
    assert [o["stop_reason"] for o in back.last.manifest.target] == ["answered"] * 3
