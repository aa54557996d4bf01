"""The viewer's paired pages: trajectories aligned by turn, the first divergence, and which RES changes a
trajectory met (matched against what each change's operator says it altered), linked to their nodes."""

from __future__ import annotations

import json
from typing import Any

from res_repro.viewer.changes import changes_behind, meetings, sentence
from res_repro.viewer.pairs import pairs
from res_repro.viewer.trajectory import episode_turns, first_divergence


def _conversation(*steps: tuple[str, dict[str, Any], Any], ids: str = "call") -> list[dict[str, Any]]:
    """A prompt, then one assistant turn per ``(tool, arguments, result)`` step, then a final answer."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "be an agent"},
        {"role": "user", "content": "do the task"},
    ]
    for n, (tool, arguments, result) in enumerate(steps):
        call_id = f"{ids}_{n}"
        call = {
            "id": call_id,
            "type": "function",
            "function": {"name": tool, "arguments": json.dumps(arguments)},
        }
        messages.append({"role": "assistant", "content": f"step {n}", "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)})
    messages.append({"role": "assistant", "content": "done"})
    return messages


READ = ("read_file", {"path": "/app/sales.csv"}, {"content": "a,b"})
LIST = ("run_command", {"command": "ls /app"}, {"exit_code": 0, "output": "sales.csv"})


def test_turns_pair_each_call_with_its_result_and_keep_the_prompt_apart():
    prompt, turns = episode_turns(_conversation(LIST, READ))
    assert [m["role"] for m in prompt] == ["system", "user"]
    assert [t.number for t in turns] == [1, 2, 3]
    assert turns[1].calls[0].name == "read_file"
    assert turns[1].calls[0].arguments == {"path": "/app/sales.csv"}  # parsed, not an escaped string
    assert turns[1].calls[0].result == {"content": "a,b"}
    assert turns[2].calls == ()


def test_the_first_divergence_is_the_first_turn_whose_calls_or_results_differ():
    original = episode_turns(_conversation(LIST, READ))[1]
    same_but_ids = episode_turns(_conversation(LIST, READ, ids="other"))[1]
    assert first_divergence(original, same_but_ids) is None  # provider call ids do not count
    other_result = ("read_file", {"path": "/app/sales.csv"}, {"error": "404 not found"})
    assert first_divergence(original, episode_turns(_conversation(LIST, other_result))[1]) == 2
    other_call = ("read_file", {"path": "/app/NOTES-abcdef.md"}, {"content": "a,b"})
    assert first_divergence(original, episode_turns(_conversation(other_call, READ))[1]) == 1
    shorter = episode_turns(_conversation(LIST))[1]  # the answer comes a turn earlier
    assert first_divergence(original, shorter) == 2
    assert first_divergence(shorter, original) == 2


def _manifest(node: str, parent: str | None, depth: int, *applications: dict[str, Any]) -> dict[str, Any]:
    return {
        "node_id": node,
        "parent_id": parent,
        "seed_task_id": "seed",
        "depth": depth,
        "applications": list(applications),
    }


SETUP_GATE = {
    "operator": "setup_gate",
    "family": "execution_dependencies",
    "params": {"file": "data/sales.csv", "tag": "abcdef", "key": "0123", "tool": "bin/fetch-abcdef"},
    "edges": [],
}
PAGINATE = {
    "operator": "paginate",
    "family": "information_access",
    "params": {"tool": "list_orders", "page_size": 2},
}
LINEAGE = [
    _manifest("e0", None, 0),
    _manifest("e1", "e0", 1, SETUP_GATE),
    _manifest(
        "e2", "e1", 2, PAGINATE, {**SETUP_GATE, "params": {**SETUP_GATE["params"], "file": "README.md"}}
    ),
    _manifest("other", "e0", 1, PAGINATE),  # a sibling: not behind e2
]


def test_the_changes_behind_a_node_run_from_the_seed_down_each_linked_to_its_node():
    changes = changes_behind(LINEAGE, "e2")
    assert [(c.node_id, c.index, c.operator) for c in changes] == [
        ("e1", 0, "setup_gate"),
        ("e2", 0, "paginate"),
        ("e2", 1, "setup_gate"),
    ]
    assert changes[2].href == "nodes/seed/e2.html#change-1"
    assert changes[0].altered.files == ("data/sales.csv",) and changes[1].altered.tools == ("list_orders",)
    assert changes_behind(LINEAGE, "unknown") == []


def test_a_change_is_met_by_calling_a_tool_it_altered_or_naming_a_file_it_moved():
    changes = changes_behind(LINEAGE, "e2")
    turns = episode_turns(
        _conversation(
            ("run_command", {"command": "cat /app/NOTES-abcdef.md"}, {}),  # the change's own note: not met
            ("list_orders", {"page": 1}, {"items": []}),  # the paginated tool
            ("run_command", {"command": "wc -l /app/data"}, {}),  # a folder above the moved file
            ("read_file", {"path": "README.md"}, {}),  # the file as the workspace names it
        )
    )[1]
    met = meetings(turns, changes)
    assert {n: [(c.node_id, c.index) for c in found] for n, found in met.items()} == {
        2: [("e2", 0)],
        3: [("e1", 0)],
        4: [("e2", 1)],
    }
    untouched = episode_turns(_conversation(("run_command", {"command": "ls /app"}, {})))[1]
    assert meetings(untouched, changes) == {}  # /app itself holds everything: naming it meets nothing


def test_a_change_reads_as_its_operator_description_with_its_parameters_filled_in():
    text = sentence(SETUP_GATE)
    assert "bin/fetch-abcdef restores it" in text and "`bash setup-abcdef.sh`" in text
    assert "<tag>" not in text
    assert "`2`" in sentence(PAGINATE)  # page_size
    assert "not have" in sentence({"operator": "retired_op", "params": {}})


def test_pairs_join_an_agents_original_and_scaled_runs_of_a_task_with_the_changes_behind_it():
    def episode(agent: str, task: str, environment: str, node: str | None, *steps: Any) -> dict[str, Any]:
        return {
            "episode_id": f"{agent}-{task}-{environment}",
            "agent": agent,
            "task_id": task,
            "environment": environment,
            "seed_task_id": "seed" if node else None,
            "node_id": node,
            "messages": _conversation(*steps),
        }

    broken = ("list_orders", {"page": 1}, {"error": "next_cursor required"})
    episodes = [
        episode("a", "t1", "original", "e0", LIST, ("list_orders", {"page": 1}, {"items": [1]})),
        episode("a", "t1", "+RES", "e2", LIST, broken),
        episode("a", "t2", "+RES", "e2", LIST),  # no original run: no pair
        episode("b", "t1", "original", "e0", LIST),
    ]
    [pair] = pairs(episodes, {"seed": LINEAGE})
    assert (pair.original["environment"], pair.scaled["environment"]) == ("original", "+RES")
    assert pair.divergence == 2
    assert [(n, a is not None, b is not None) for n, a, b in pair.rows] == [
        (1, True, True),
        (2, True, True),
        (3, True, True),
    ]
    assert [c.operator for c in pair.met[2]] == ["paginate"]
    assert pair.met_at(pair.changes[0]) is None and pair.met_at(pair.changes[1]) == 2
    assert pair.prompts is None
