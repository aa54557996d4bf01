"""The scaler with a controlled proposer and a controlled target: the stopping rule, the revision budget,
inheritance, composition, the reuse of grown children and the admission gate.

The proposer plays a script (a named operator, a fixed proposal, an empty proposal or None); the target's
attempts are scripted per depth, so every stop is decided by the test, not by an agent's skill.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import logging
import random
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
from scalers import build_scaler
from tool_factory import make_tool_task

from res_repro.agents.base import Agent, Attempt
from res_repro.agents.reference import NopAgent
from res_repro.env.formats import format_of
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.env.task import Task
from res_repro.pipelines.lineage_summary import summarise
from res_repro.pipelines.lineage_views import lineage_notes
from res_repro.res import scaling
from res_repro.res.admission import Admission, AdmissionSettings
from res_repro.res.checks import CheckResult, run_checks
from res_repro.res.graph import OBSERVATION, DependencyGraph, Edge
from res_repro.res.lineage import LineageStore, node_id
from res_repro.res.operators import OPERATORS, Family, Operator
from res_repro.res.proposer import Proposal, ProposalContext, Proposer, ProposerCost
from res_repro.res.scaling import NOTHING_APPLIES, AdmissionGate, Scaler

EMPTY = Proposal((), problems=("not JSON",))  # an invalid LLM answer: spends a revision
SILENT = Proposal(())  # an answer without applications and without a stated problem
TWO_STEPS = "require_token+paginate"  # one child made of two operator applications
BROKEN = Proposal((("paginate", {"tool": "no_such_tool", "page_size": 2}),), "broken")  # cannot apply


class Scripted(Proposer):
    """Plays its script, one entry per call: operator names joined by ``+`` (each with its own seeded
    params), a fixed proposal, or None. Records what it was shown at every call."""

    def __init__(self, script: Sequence[str | Proposal | None], name: str = "scripted") -> None:
        self.script = list(script)
        self.name = name
        self.seen: list[dict[str, Any]] = []

    def fingerprint(self) -> dict[str, Any]:
        """The script's name."""
        return {"kind": self.name}

    def propose(self, context: ProposalContext, rng: random.Random, cost: ProposerCost) -> Proposal | None:
        """The next entry of the script."""
        cost.executions += 1
        draw = rng.random()
        self.seen.append(
            {"feedback": list(context.feedback), "tried": list(context.tried), "graph": context.graph}
        )
        self.seen[-1]["draw"] = draw
        entry = self.script.pop(0) if self.script else None
        if isinstance(entry, str):
            steps = []
            for name in entry.split("+"):
                params = OPERATORS[name].propose(context.draft, context.graph, rng)
                assert params is not None, name
                steps.append((name, params))
            return Proposal(tuple(steps), f"scripted {entry}")
        return entry


class Target(Agent):
    """A target whose attempts are scripted by depth: ``plan[depth]`` lists (passed, fulfilled) per
    attempt; a depth missing from the plan is fulfilled."""

    def __init__(self, plan: dict[int, list[tuple[bool, bool]]], name: str = "target") -> None:
        self.plan = plan
        self.name = name

    def run(self, task: Task, environment: Any, attempt: Attempt) -> Any:  # pragma: no cover - replaced
        """Never run: the episode itself is replaced by the scripted outcome."""
        raise AssertionError("the scripted target does not act")


@pytest.fixture
def episodes(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The target's episodes, scripted: each call is recorded and answered from the target's plan."""
    calls: list[dict[str, Any]] = []

    def fake(task: Task, agent: Target, **kwargs: Any) -> SimpleNamespace:
        depth = int(kwargs["environment"].removeprefix("res-depth-"))
        attempt = int(kwargs["episode_id"].rsplit("-", 1)[1])
        passed, fulfilled = agent.plan[depth][attempt] if depth in agent.plan else (True, True)
        calls.append({"agent": agent.name, "depth": depth, "task": task, **kwargs})
        return SimpleNamespace(
            passed=passed,
            fulfilled=fulfilled,
            score=0.5 + depth,
            turns=3 + attempt,
            tool_calls=2 * depth,
            stop_reason="answered",
            infrastructure_failure=False,
        )

    monkeypatch.setattr(scaling, "run_episode", fake)
    return calls


@pytest.fixture(autouse=True)
def checks(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The checks, controlled: every candidate passes (the checks have their own tests); each call is
    recorded."""
    calls: list[dict[str, Any]] = []

    def passing(parent: Task, child: Task, applications: Any, graph: Any, draft: Any, **kwargs: Any) -> Any:
        calls.append(
            {
                "parent": parent.content_hash,
                "child": child.content_hash,
                "applications": applications,
                "graph": graph,
                **kwargs,
            }
        )
        return [CheckResult("applied", True), CheckResult("dependencies_feasible", True)]

    monkeypatch.setattr(scaling, "run_checks", passing)
    return calls


@pytest.fixture(scope="module")
def seed_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small tool task of tests/tool_factory.py."""
    return make_tool_task(tmp_path_factory.mktemp("seed") / "task")


def _scaler(
    tmp_path: Path,
    proposer: Proposer,
    target: Agent | None = None,
    admission: AdmissionGate | None = None,
    **settings: Any,
) -> Scaler:
    defaults = {"depth_cap": 2, "max_revisions": 1, "target_attempts": 1, "seed": 5}
    return build_scaler(
        tmp_path / "lineages",
        proposer=proposer,
        target=target,
        admission=admission,
        **{**defaults, **settings},
    )


# --- the stopping rule ---------------------------------------------------------------------------------


def test_without_a_target_scaling_runs_to_the_depth_cap(tmp_path, seed_dir, checks):
    task = load_tool_task(seed_dir)
    result = _scaler(tmp_path, Scripted(["require_token", "open_session"]), seed=9).scale(task)
    assert result.stop_reason == "depth_cap"
    assert [node.manifest.depth for node in result.nodes] == [0, 1, 2]
    assert result.seed_task_id == task.task_id
    assert result.last is result.nodes[2]
    root = result.nodes[0]
    assert root.manifest.parent_id is None and root.task.content_hash == task.content_hash
    assert [call["parent"] for call in checks] == [n.task.content_hash for n in result.nodes[:2]]
    assert [call["child"] for call in checks] == [n.task.content_hash for n in result.nodes[1:]]
    assert [call["graph"].to_dict() for call in checks] == [
        n.manifest.graph.to_dict() for n in result.nodes[1:]
    ]
    assert [call["applications"] for call in checks] == [n.manifest.applications for n in result.nodes[1:]]
    assert {(call["backend"], call["seed"]) for call in checks} == {("local", 9)}
    assert [check["name"] for check in result.last.manifest.checks] == ["applied", "dependencies_feasible"]


def test_the_depth_cap_argument_overrides_the_settings(tmp_path, seed_dir):
    proposer = Scripted(["require_token", "open_session"])
    result = _scaler(tmp_path, proposer, depth_cap=2).scale(load_tool_task(seed_dir), depth_cap=1)
    assert (result.stop_reason, len(result.nodes), len(proposer.seen)) == ("depth_cap", 2, 1)


def test_a_seed_the_target_does_not_solve_still_grows_its_depth_one_child(tmp_path, seed_dir, episodes):
    target = Target({0: [(True, False)], 1: [(False, False)]})  # passes the seed, fulfils neither
    proposer = Scripted(["require_token", "open_session"])
    result = _scaler(tmp_path, proposer, target).scale(load_tool_task(seed_dir))
    assert (result.stop_reason, result.seed_task_id, result.why) == ("target_failed", "renewal-mail", "")
    assert [node.manifest.depth for node in result.nodes] == [0, 1]
    assert len(proposer.seen) == 1
    assert [call["depth"] for call in episodes] == [1]  # the rule is first consulted at the child
    assert result.nodes[0].manifest.target == []


def test_the_seed_is_never_a_stopping_point_and_the_rule_decides_after_each_child(
    tmp_path, seed_dir, episodes
):
    target = Target({0: [(False, False)]})  # fails the seed, fulfils every child
    proposer = Scripted(["require_token", "open_session"])
    result = _scaler(tmp_path, proposer, target).scale(load_tool_task(seed_dir))
    assert result.stop_reason == "depth_cap"
    assert [node.manifest.depth for node in result.nodes] == [0, 1, 2]
    assert [call["depth"] for call in episodes] == [1, 2]


def test_a_depth_cap_of_zero_grows_no_child_and_runs_no_target(tmp_path, seed_dir, episodes):
    proposer = Scripted(["require_token"])
    target = Target({0: [(False, False)]})
    result = _scaler(tmp_path, proposer, target, depth_cap=0).scale(load_tool_task(seed_dir))
    assert (result.stop_reason, len(result.nodes), proposer.seen, episodes) == ("depth_cap", 1, [], [])


def test_scaling_stops_at_the_first_node_the_target_does_not_fulfil(tmp_path, seed_dir, episodes):
    target = Target({2: [(False, False)]})
    proposer = Scripted(["require_token", "open_session", "paginate"])
    result = _scaler(tmp_path, proposer, target, depth_cap=3).scale(load_tool_task(seed_dir))
    assert (result.stop_reason, result.seed_task_id) == ("target_failed", "renewal-mail")
    assert [node.manifest.depth for node in result.nodes] == [0, 1, 2]
    assert [call["depth"] for call in episodes] == [1, 2]


@pytest.mark.parametrize(
    ("stop_on", "reason", "depths"),
    [("fulfilment", "target_failed", [0, 1]), ("pass", "depth_cap", [0, 1, 2])],
)
def test_a_pass_without_complete_fulfilment_stops_only_under_the_fulfilment_rule(
    tmp_path, seed_dir, episodes, stop_on, reason, depths
):
    target = Target({1: [(True, False)]})  # passes the benchmark's rule, misses a rubric item
    proposer = Scripted(["require_token", "open_session"])
    result = _scaler(tmp_path, proposer, target, stop_on=stop_on).scale(load_tool_task(seed_dir))
    assert result.stop_reason == reason
    assert [node.manifest.depth for node in result.nodes] == depths


def test_under_the_pass_rule_a_fulfilled_attempt_that_did_not_pass_stops(tmp_path, seed_dir, episodes):
    target = Target({1: [(False, True)]})
    result = _scaler(tmp_path, Scripted(["require_token"]), target, stop_on="pass").scale(
        load_tool_task(seed_dir)
    )
    assert (result.stop_reason, len(result.nodes)) == ("target_failed", 2)


def test_one_fulfilling_attempt_out_of_several_keeps_scaling(tmp_path, seed_dir, episodes):
    target = Target({1: [(False, False), (True, True), (False, False)], 2: [(False, False)] * 3})
    proposer = Scripted(["require_token", "open_session"])
    result = _scaler(tmp_path, proposer, target, target_attempts=3, depth_cap=3).scale(
        load_tool_task(seed_dir)
    )
    assert result.stop_reason == "target_failed"
    assert [node.manifest.depth for node in result.nodes] == [0, 1, 2]


def test_the_target_attempts_are_seeded_and_recorded_on_the_node(tmp_path, seed_dir, episodes):
    target = Target({1: [(True, False), (False, False)]})
    scaler = _scaler(tmp_path, Scripted(["require_token"]), target, target_attempts=2, seed=7)
    result = scaler.scale(load_tool_task(seed_dir))
    node = result.last
    nid = node.manifest.node_id
    at_one = [call for call in episodes if call["depth"] == 1]
    assert [call["episode_id"] for call in at_one] == [f"target-{nid}-0", f"target-{nid}-1"]
    assert [call["seed"] for call in at_one] == [7, 8]
    assert {call["environment"] for call in at_one} == {"res-depth-1"}
    assert {call["backend"] for call in at_one} == {"local"}
    assert all(call["task"].content_hash == node.task.content_hash for call in at_one)
    expected = [
        {
            "agent": {"name": "target"},
            "attempt": attempt,
            "passed": passed,
            "fulfilled": False,
            "score": 1.5,
            "turns": 3 + attempt,
            "tool_calls": 2,
            "stop_reason": "answered",
        }
        for attempt, passed in enumerate([True, False])
    ]
    stored = LineageStore(tmp_path / "lineages").load(task_id := node.manifest.seed_task_id, nid)
    assert stored is not None and task_id
    assert stored.manifest.target == expected


def test_recorded_attempts_of_the_same_target_are_reused_and_another_target_runs_anew(
    tmp_path, seed_dir, episodes
):
    task = load_tool_task(seed_dir)
    _scaler(tmp_path, Scripted(["require_token"]), Target({}), depth_cap=1).scale(task)
    assert len(episodes) == 1
    again = _scaler(tmp_path, Scripted([]), Target({}), depth_cap=1).scale(task)
    assert len(episodes) == 1 and again.stop_reason == "depth_cap"  # reused, nothing proposed or run
    other = Target({}, name="other")
    _scaler(tmp_path, Scripted([]), other, depth_cap=1).scale(task)
    assert [call["agent"] for call in episodes[1:]] == ["other"]
    root, child = LineageStore(tmp_path / "lineages").nodes(task.task_id)
    assert [o["agent"]["name"] for o in child.manifest.target] == ["target", "other"]
    assert root.manifest.target == []  # the seed is not evaluated: the rule is not consulted there


def test_fewer_recorded_attempts_than_asked_are_run_again(tmp_path, seed_dir, episodes):
    task = load_tool_task(seed_dir)
    _scaler(tmp_path, Scripted(["require_token"]), Target({}), depth_cap=1).scale(task)
    assert len(episodes) == 1
    _scaler(tmp_path, Scripted([]), Target({}), depth_cap=1, target_attempts=2).scale(task)
    assert len(episodes) == 3
    _, child = LineageStore(tmp_path / "lineages").nodes(task.task_id)
    assert [o["attempt"] for o in child.manifest.target] == [0, 1]  # the older record replaced


def test_attempts_recorded_without_a_fulfilment_verdict_are_run_again(tmp_path, seed_dir, episodes):
    task = load_tool_task(seed_dir)
    child = _scaler(tmp_path, Scripted(["require_token"]), depth_cap=1).scale(task).last
    child.manifest.target = [{"agent": {"name": "target"}, "attempt": 0, "passed": True}]
    LineageStore(tmp_path / "lineages").update(child)
    assert _scaler(tmp_path, Scripted([]), Target({}), depth_cap=1).scale(task).stop_reason == "depth_cap"
    assert len(episodes) == 1


# --- the revision budget -------------------------------------------------------------------------------


def test_empty_proposals_spend_the_whole_budget_and_say_why(tmp_path, seed_dir):
    proposer = Scripted([EMPTY, SILENT, EMPTY, "require_token"])
    result = _scaler(tmp_path, proposer, max_revisions=2).scale(load_tool_task(seed_dir))
    assert (result.stop_reason, len(result.nodes)) == ("no_valid_child", 1)
    assert [seen["feedback"] for seen in proposer.seen] == [
        [],
        ["proposal: not JSON"],
        ["proposal: no operator application"],
    ]


def test_the_last_revision_of_the_budget_can_still_be_accepted(tmp_path, seed_dir):
    proposer = Scripted([EMPTY, EMPTY, "require_token"])
    result = _scaler(tmp_path, proposer, max_revisions=2, depth_cap=1).scale(load_tool_task(seed_dir))
    assert result.stop_reason == "depth_cap"
    assert result.last.manifest.proposer == {
        "executions": 3,
        "requests": 0,
        "cache_hits": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "cached_tokens": 0,
        "seconds": 0.0,
        "revisions": 2,
        "rationale": "scripted require_token",
    }


def test_none_from_the_proposer_ends_growth_with_revisions_left(tmp_path, seed_dir):
    proposer = Scripted([None, "require_token"])
    result = _scaler(tmp_path, proposer, max_revisions=3).scale(load_tool_task(seed_dir))
    assert (result.stop_reason, len(proposer.seen)) == ("no_valid_child", 1)
    assert (result.seed_task_id, len(result.nodes)) == ("renewal-mail", 1)
    assert result.why == NOTHING_APPLIES  # kept in the store, so the lineage summary says it too
    summary = summarise(tmp_path / "lineages").to_dict()
    assert summary["seeds"]["unscaled"][0]["reason"] == NOTHING_APPLIES


def test_an_inapplicable_proposal_is_rejected_and_the_next_revision_tried(tmp_path, seed_dir):
    proposer = Scripted([BROKEN, "require_token"])
    scaler = _scaler(tmp_path, proposer, depth_cap=1, seed=3)
    result = scaler.scale(task := load_tool_task(seed_dir))
    assert result.stop_reason == "depth_cap"
    assert result.last.manifest.proposer["revisions"] == 1
    (feedback,) = proposer.seen[1]["feedback"]
    assert feedback.startswith("apply: ") and "no_such_tool" in feedback
    assert proposer.seen[1]["tried"] == ["paginate"]
    (rejection,) = scaler.store.rejections(task.task_id)
    assert rejection == {
        "parent_id": result.nodes[0].manifest.node_id,
        "depth": 1,
        "revision": 0,
        "steps": [{"operator": "paginate", "params": {"tool": "no_such_tool", "page_size": 2}}],
        "rationale": "broken",
        "checks": [{"name": "apply", "passed": False, "detail": feedback.removeprefix("apply: ")}],
    }


def test_a_candidate_that_fails_a_check_is_kept_and_its_reasons_fed_back(tmp_path, seed_dir, monkeypatch):
    real = run_checks
    verdicts = iter([[CheckResult("applied", True), CheckResult("nop_fails", False, "score 1.00, passed")]])

    def checks(*args: Any, **kwargs: Any) -> list[CheckResult]:
        return next(verdicts, None) or real(*args, **kwargs)

    monkeypatch.setattr(scaling, "run_checks", checks)
    proposer = Scripted(["require_token", "open_session"])
    scaler = _scaler(tmp_path, proposer, depth_cap=1)
    result = scaler.scale(task := load_tool_task(seed_dir))
    assert result.stop_reason == "depth_cap"
    assert [a.operator for a in result.last.manifest.applications] == ["open_session"]
    assert proposer.seen[1]["feedback"] == ["nop_fails: score 1.00, passed"]
    assert proposer.seen[1]["tried"] == ["require_token"]
    (rejection,) = scaler.store.rejections(task.task_id)
    assert (rejection["parent_id"], rejection["depth"]) == (result.nodes[0].manifest.node_id, 1)
    assert (rejection["revision"], rejection["rationale"]) == (0, "scripted require_token")
    assert [step["operator"] for step in rejection["steps"]] == ["require_token"]
    assert rejection["checks"] == [
        {"name": "applied", "passed": True, "detail": ""},
        {"name": "nop_fails", "passed": False, "detail": "score 1.00, passed"},
    ]
    assert all(check["passed"] for check in result.last.manifest.checks)
    assert [check["name"] for check in result.last.manifest.checks] == [
        "applied",
        "dependencies_feasible",
        "objective_untouched",
        "reference_passes",
        "nop_fails",
        "parent_reference_fails",
    ]


def test_a_budget_spent_on_rejected_candidates_gives_no_child(tmp_path, seed_dir, monkeypatch):
    monkeypatch.setattr(scaling, "run_checks", lambda *a, **k: [CheckResult("applied", False, "same")])
    proposer = Scripted(["require_token", "open_session", "paginate", "alias_ids"])
    scaler = _scaler(tmp_path, proposer, max_revisions=2)
    result = scaler.scale(task := load_tool_task(seed_dir))
    assert (result.stop_reason, len(proposer.seen)) == ("no_valid_child", 3)
    assert [seen["tried"] for seen in proposer.seen] == [
        [],
        ["require_token"],
        ["require_token", "open_session"],
    ]
    assert [r["revision"] for r in scaler.store.rejections(task.task_id)] == [0, 1, 2]
    assert result.why == "last candidate (paginate, revision 2) failed applied: same"
    assert not list((tmp_path / "lineages" / task.task_id / ".staging").iterdir())  # scratch removed


def test_a_seed_with_no_valid_child_is_named_with_its_reason_in_the_tables_notes(
    tmp_path, seed_dir, monkeypatch
):
    task = load_tool_task(seed_dir)
    grown = _scaler(tmp_path / "grown", Scripted(["require_token"]), depth_cap=1).scale(task)
    failing = [CheckResult("applied", True), CheckResult("reference_passes", False, "score 0.40")]
    monkeypatch.setattr(scaling, "run_checks", lambda *a, **k: failing)
    bare = _scaler(tmp_path / "bare", Scripted(["require_token", "open_session"]), depth_cap=1).scale(task)
    assert (grown.stop_reason, bare.stop_reason, len(bare.nodes)) == ("depth_cap", "no_valid_child", 1)
    why = "last candidate (open_session, revision 1) failed reference_passes: score 0.40"
    assert bare.why == why
    assert lineage_notes([grown, bare]) == [
        "1 of 2 seed task(s) are unscaled: they grew no valid child (within the revision budget, or the "
        f'proposer failed), so their "+RES" environment is the original: renewal-mail ({why}).'
    ]
    assert lineage_notes([grown]) == []


# --- inheritance and composition -----------------------------------------------------------------------


def test_with_inheritance_each_child_extends_its_parent(tmp_path, seed_dir):
    result = _scaler(tmp_path, Scripted(["require_token", "open_session"])).scale(load_tool_task(seed_dir))
    root, first, second = result.nodes
    assert first.manifest.parent_id == root.manifest.node_id
    assert second.manifest.parent_id == first.manifest.node_id
    assert [a.operator for a in second.manifest.history] == ["require_token", "open_session"]
    assert [a.operator for a in second.manifest.applications] == ["open_session"]
    assert second.manifest.kind == root.manifest.kind == "tool"
    assert second.manifest.context == root.manifest.context


def test_without_inheritance_every_round_extends_the_seed_task(tmp_path, seed_dir):
    result = _scaler(tmp_path, Scripted(["require_token", "open_session"]), inheritance=False).scale(
        load_tool_task(seed_dir)
    )
    root, first, second = result.nodes
    assert first.manifest.parent_id == second.manifest.parent_id == root.manifest.node_id
    assert [node.manifest.depth for node in result.nodes] == [0, 1, 2]
    assert [a.operator for a in second.manifest.history] == ["open_session"]
    assert not second.manifest.history[0].composes  # no token on E0 to build on
    assert "token:mail" in first.manifest.graph.to_dict()["nodes"]
    assert "token:mail" not in second.manifest.graph.to_dict()["nodes"]


@pytest.mark.parametrize("composition", [True, False])
def test_composition_decides_whether_the_proposer_sees_the_earlier_changes(tmp_path, seed_dir, composition):
    proposer = Scripted(["require_token", "open_session"])
    result = _scaler(tmp_path, proposer, composition=composition).scale(load_tool_task(seed_dir))
    first, second = result.nodes[1:]
    shown = proposer.seen[1]["graph"]
    assert first.manifest.graph.to_dict()["nodes"]  # the token is in the graph either way
    assert shown.to_dict() == (first.manifest.graph if composition else DependencyGraph()).to_dict()
    (application,) = second.manifest.applications
    assert application.composes is composition
    assert set(first.manifest.graph.to_dict()["nodes"]) <= set(second.manifest.graph.to_dict()["nodes"])


# --- growth keys and reuse -----------------------------------------------------------------------------


def test_the_growth_key_changes_with_everything_that_decides_the_child(tmp_path, seed_dir):
    task = load_tool_task(seed_dir)
    base = _scaler(tmp_path, Scripted([]))
    root = scaling.root_node(task, base.store)
    key = base.growth_key(root, 1)
    assert key == _scaler(tmp_path, Scripted([])).growth_key(root, 1)
    assert len(key) == 16 and int(key, 16) >= 0
    same = [
        _scaler(tmp_path, Scripted([]), inheritance=False),
        _scaler(tmp_path, Scripted([]), depth_cap=9),
        _scaler(tmp_path, Scripted([]), target_attempts=3),
        _scaler(tmp_path, Scripted([]), Target({})),
    ]
    assert {scaler.growth_key(root, 1) for scaler in same} == {key}
    others = [
        base.growth_key(root, 2),
        _scaler(tmp_path, Scripted([]), seed=6).growth_key(root, 1),
        _scaler(tmp_path, Scripted([]), composition=False).growth_key(root, 1),
        _scaler(tmp_path, Scripted([]), max_revisions=2).growth_key(root, 1),
        _scaler(tmp_path, Scripted([], name="other")).growth_key(root, 1),
    ]
    gated = _scaler(tmp_path, Scripted([]))
    gated.admission = AdmissionGate(AdmissionSettings(), NopAgent())
    others.append(gated.growth_key(root, 1))
    assert len({key, *others}) == 1 + len(others)
    other_seed = load_tool_task(make_tool_task(tmp_path / "other-seed", name="other-task"))
    assert base.growth_key(scaling.root_node(other_seed, base.store), 1) != key


def test_a_rerun_recalls_the_grown_children_without_proposing(tmp_path, seed_dir):
    task = load_tool_task(seed_dir)
    first = _scaler(tmp_path, Scripted(["require_token", "open_session"])).scale(task)
    proposer = Scripted([])
    again = _scaler(tmp_path, proposer).scale(task)
    assert proposer.seen == [] and again.stop_reason == "depth_cap"
    assert [n.manifest.node_id for n in again.nodes] == [n.manifest.node_id for n in first.nodes]


def test_a_child_built_again_under_another_key_is_found_by_its_id(tmp_path, seed_dir):
    task = load_tool_task(seed_dir)
    first = _scaler(tmp_path, Scripted(["require_token"]), depth_cap=1).scale(task)
    manifest = first.last.path / "manifest.json"
    written = manifest.stat().st_mtime_ns
    again = _scaler(tmp_path, Scripted(["require_token"]), depth_cap=1, max_revisions=2).scale(task)
    assert again.last.manifest.node_id == first.last.manifest.node_id
    assert manifest.stat().st_mtime_ns == written  # found, not rebuilt
    proposer = Scripted([])
    recalled = _scaler(tmp_path, proposer, depth_cap=1, max_revisions=2).scale(task)
    assert proposer.seen == [] and recalled.last.manifest.node_id == first.last.manifest.node_id


def test_the_proposer_draws_from_a_stream_seeded_by_the_run_the_task_and_the_depth(tmp_path, seed_dir):
    task = load_tool_task(seed_dir)
    proposer = Scripted(["require_token", "open_session"])
    _scaler(tmp_path, proposer, seed=11).scale(task)
    expected = [random.Random(f"11-{task.task_id}-{depth}").random() for depth in (1, 2)]
    assert [seen["draw"] for seen in proposer.seen] == expected


def test_the_root_is_a_self_contained_copy_found_again_by_id(tmp_path, seed_dir):
    task = load_tool_task(seed_dir)
    store = LineageStore(tmp_path / "lineages")
    root = scaling.root_node(task, store)
    assert root.path.parent == tmp_path / "lineages" / task.task_id
    assert (root.manifest.depth, root.manifest.parent_id, root.manifest.history) == (0, None, [])
    assert root.manifest.kind == task.kind and root.task.content_hash == task.content_hash
    written = (root.path / "manifest.json").stat().st_mtime_ns
    assert scaling.root_node(task, store).manifest.node_id == root.manifest.node_id
    assert (root.path / "manifest.json").stat().st_mtime_ns == written
    assert not list((tmp_path / "lineages" / task.task_id / ".staging").iterdir())


# --- the admission gate --------------------------------------------------------------------------------


def test_the_admission_gate_judges_candidates_that_passed_the_checks(tmp_path, seed_dir, monkeypatch):
    verdicts = iter([Admission(False, ["too easy", "leaks"], [1.0]), Admission(True, [], [0.25, 0.5])])
    calls: list[dict[str, Any]] = []

    def admit(child: Task, solver: Agent, held_out: list[str], **kwargs: Any) -> Admission:
        calls.append({"child": child.content_hash, "solver": solver, "held_out": held_out, **kwargs})
        return next(verdicts)

    monkeypatch.setattr(scaling, "admit", admit)
    task = load_tool_task(seed_dir)
    proposer = Scripted(["require_token", "open_session"])
    settings = AdmissionSettings(band=(0.2, 0.8))
    gate = AdmissionGate(settings, solver := NopAgent())
    scaler = _scaler(tmp_path, proposer, admission=gate, depth_cap=1, seed=4)
    scaler.hold_out([task, SimpleNamespace(task_id="other", instruction="another task")])  # type: ignore[list-item]
    result = scaler.scale(task)
    assert [a.operator for a in result.last.manifest.applications] == ["open_session"]
    assert proposer.seen[1]["feedback"] == ["admission: too easy; leaks"]
    assert [call["held_out"] for call in calls] == [["another task"]] * 2
    assert all(call["solver"] is solver and call["settings"] == settings for call in calls)
    assert {(call["seed"], call["backend"]) for call in calls} == {(4, "local")}
    assert calls[1]["child"] == result.last.task.content_hash
    assert result.last.manifest.checks[-1] == {
        "name": "admission",
        "passed": True,
        "detail": "solver rewards [0.25, 0.5]",
    }
    (rejection,) = scaler.store.rejections(task.task_id)
    assert rejection["checks"][-1] == {"name": "admission", "passed": False, "detail": "too easy; leaks"}


def test_the_admission_gate_does_not_judge_a_candidate_that_failed_a_check(tmp_path, seed_dir, monkeypatch):
    monkeypatch.setattr(scaling, "run_checks", lambda *a, **k: [CheckResult("applied", False, "same")])
    monkeypatch.setattr(scaling, "admit", lambda *a, **k: pytest.fail("admission ran"))
    scaler = _scaler(tmp_path, Scripted(["require_token"]), max_revisions=0)
    scaler.admission = AdmissionGate(AdmissionSettings(), NopAgent())
    assert scaler.scale(load_tool_task(seed_dir)).stop_reason == "no_valid_child"


def test_the_gate_fingerprint_names_its_settings_and_solver():
    gate = AdmissionGate(AdmissionSettings(rollouts=6), NopAgent())
    assert gate.fingerprint() == {**AdmissionSettings(rollouts=6).to_dict(), "solver": {"name": "nop"}}
    assert json.dumps(gate.fingerprint())


def test_a_proposal_of_several_steps_applies_each_on_the_graph_of_the_ones_before(tmp_path, seed_dir):
    result = _scaler(tmp_path, Scripted([TWO_STEPS]), depth_cap=1).scale(load_tool_task(seed_dir))
    assert result.stop_reason == "depth_cap"
    applications = result.last.manifest.applications
    assert [(a.operator, a.family) for a in applications] == [
        (name, OPERATORS[name].family.value) for name in ("require_token", "paginate")
    ]
    nodes = set(result.last.manifest.graph.to_dict()["nodes"])
    assert {"token:mail", "record:vault/secrets/cred-mail#token"} <= nodes


class Probe(Operator):
    """A test operator that records the graph it is applied on and adds one edge named by its param."""

    name = "probe"
    family = Family.RESOURCE_RELATIONS
    kind = "tool"
    description = "records the graph"
    params_schema: ClassVar[dict[str, Any]] = {"type": "object"}
    graphs: ClassVar[list[set[str]]] = []

    def propose(self, draft: Any, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Never proposed by itself."""
        return None

    def apply(self, draft: Any, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Record the graph's nodes; leave a mark in the fixtures."""
        Probe.graphs.append(set(graph.nodes))
        draft.fixtures["crm"][params["mark"]] = []
        return [Edge(OBSERVATION, params["mark"])]

    def applied(self, draft: Any, params: dict[str, Any]) -> str | None:
        """Always there."""
        return None


def test_each_step_of_a_proposal_is_applied_on_the_graph_of_the_steps_before(tmp_path, seed_dir, monkeypatch):
    monkeypatch.setitem(OPERATORS, "probe", Probe())
    Probe.graphs = []
    steps = Proposal(
        (("probe", {"mark": "first"}), ("probe", {"mark": "second"}), ("probe", {"mark": "third"}))
    )
    result = _scaler(tmp_path, Scripted([steps]), depth_cap=1).scale(load_tool_task(seed_dir))
    assert result.stop_reason == "depth_cap"
    first, second, third = Probe.graphs
    assert "first" not in first and "first" in second and {"first", "second"} <= third
    assert {"first", "second", "third"} <= set(result.last.manifest.graph.nodes)


def test_a_child_keeps_the_symlinks_of_its_parent(tmp_path):
    seed = make_tool_task(tmp_path / "seed")
    (seed / "notes.yaml").symlink_to("task.yaml")
    result = _scaler(tmp_path, Scripted(["require_token"]), depth_cap=1).scale(load_tool_task(seed))
    assert (result.last.env_dir / "notes.yaml").is_symlink()


def test_every_inapplicable_operator_is_remembered_as_tried(tmp_path, seed_dir):
    other = Proposal((("alias_ids", {"tool": "no_such_tool"}),), "broken too")
    proposer = Scripted([BROKEN, other, "require_token"])
    _scaler(tmp_path, proposer, max_revisions=2, depth_cap=1).scale(load_tool_task(seed_dir))
    assert [seen["tried"] for seen in proposer.seen] == [[], ["paginate"], ["paginate", "alias_ids"]]


def test_every_failed_revision_is_logged(tmp_path, seed_dir, caplog):
    caplog.set_level(logging.DEBUG, logger="res_repro.res.scaling")
    _scaler(tmp_path, Scripted([EMPTY, BROKEN, None]), max_revisions=3).scale(load_tool_task(seed_dir))
    lines = [record.getMessage() for record in caplog.records]
    assert lines[0] == "renewal-mail depth 1 revision 0 empty: ['proposal: not JSON']"
    assert (
        lines[1].startswith("renewal-mail depth 1 revision 1 not applicable: ") and "no_such_tool" in lines[1]
    )
    assert lines[2] == "renewal-mail depth 1: no operator applies"


def test_a_rejected_candidate_is_logged(tmp_path, seed_dir, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG, logger="res_repro.res.scaling")
    monkeypatch.setattr(scaling, "run_checks", lambda *a, **k: [CheckResult("applied", False, "same")])
    _scaler(tmp_path, Scripted(["require_token"]), max_revisions=0).scale(load_tool_task(seed_dir))
    assert [r.getMessage() for r in caplog.records] == [
        "renewal-mail depth 1 revision 0 rejected: ['applied: same']"
    ]


def test_the_growth_key_is_the_hash_of_its_documented_fields(tmp_path, seed_dir):
    scaler = _scaler(tmp_path, Scripted([]), seed=5, max_revisions=1)
    root = scaling.root_node(load_tool_task(seed_dir), scaler.store)
    blob = {
        "parent": root.manifest.node_id,
        "depth": 2,
        "seed": 5,
        "composition": True,
        "max_revisions": 1,
        "proposer": {"kind": "scripted"},
        "hints": "realistic",
    }
    expected = hashlib.sha256(json.dumps(blob, sort_keys=True).encode()).hexdigest()[:16]
    assert scaler.growth_key(root, 2) == expected
    guided = dataclasses.replace(scaler.settings, hints="guided")
    scaler.settings = guided  # guided keys stay those that earlier runs recorded
    unhinted = {k: v for k, v in blob.items() if k != "hints"}
    assert (
        scaler.growth_key(root, 2)
        == hashlib.sha256(json.dumps(unhinted, sort_keys=True).encode()).hexdigest()[:16]
    )
    scaler.settings = dataclasses.replace(guided, hints="realistic")
    scaler.admission = AdmissionGate(AdmissionSettings(), NopAgent())
    gated = {**blob, "admission": scaler.admission.fingerprint()}
    assert (
        scaler.growth_key(root, 2)
        == hashlib.sha256(json.dumps(gated, sort_keys=True).encode()).hexdigest()[:16]
    )


def test_a_child_id_comes_from_its_parent_and_its_change(tmp_path, seed_dir):
    result = _scaler(tmp_path, Scripted(["require_token", "open_session"])).scale(load_tool_task(seed_dir))
    for parent, child in itertools.pairwise(result.nodes):
        seed = f"{parent.manifest.content_hash}-{child.manifest.depth}"
        assert child.manifest.node_id == node_id(parent.manifest.node_id, seed, child.manifest.applications)


def test_the_same_change_at_another_depth_is_another_node(tmp_path, seed_dir):
    twice = Proposal(
        (("require_token", {"service": "mail", "tools": ["mail_send"], "token": "t", "record": "r"}),)
    )
    result = _scaler(tmp_path, Scripted([twice, twice]), inheritance=False).scale(load_tool_task(seed_dir))
    assert [node.manifest.depth for node in result.nodes] == [0, 1, 2]
    assert result.nodes[1].manifest.node_id != result.nodes[2].manifest.node_id


def test_a_child_found_by_its_id_is_not_checked_again(tmp_path, seed_dir, checks):
    task = load_tool_task(seed_dir)
    _scaler(tmp_path, Scripted(["require_token"]), depth_cap=1).scale(task)
    assert len(checks) == 1
    _scaler(tmp_path, Scripted(["require_token"]), depth_cap=1, max_revisions=2).scale(task)
    assert len(checks) == 1


def test_a_child_keeps_the_load_context_of_its_lineage(tmp_path, seed_dir, monkeypatch):
    task = load_tool_task(seed_dir)
    monkeypatch.setattr(type(format_of(task)), "context", lambda self, task: {"checkout": task.task_id})
    result = _scaler(tmp_path, Scripted(["require_token"]), depth_cap=1).scale(task)
    assert [node.manifest.context for node in result.nodes] == [{"checkout": "renewal-mail"}] * 2


def test_the_root_is_copied_once(tmp_path, seed_dir, monkeypatch):
    task = load_tool_task(seed_dir)
    fmt = type(format_of(task))
    copies = []
    real = fmt.copy
    monkeypatch.setattr(fmt, "copy", lambda self, task, dest: copies.append(dest) or real(self, task, dest))
    store = LineageStore(tmp_path / "lineages")
    scaling.root_node(task, store)
    scaling.root_node(task, store)
    assert len(copies) == 1


def test_a_root_that_cannot_be_copied_leaves_no_scratch_folder(tmp_path, seed_dir, monkeypatch):
    task = load_tool_task(seed_dir)

    def fail(self: Any, task: Task, dest: Path) -> None:
        dest.mkdir(parents=True)
        raise OSError("disk full")

    monkeypatch.setattr(type(format_of(task)), "copy", fail)
    with pytest.raises(OSError, match="disk full"):
        scaling.root_node(task, LineageStore(tmp_path / "lineages"))
    assert not list((tmp_path / "lineages" / task.task_id / ".staging").iterdir())


def test_a_seed_whose_own_reference_fails_is_named_invalid_without_proposing(tmp_path):
    seed = make_tool_task(tmp_path / "seed")
    (seed / "solution" / "solve.py").write_text("def solve(call):\n    return 'nothing'\n")
    proposer = Scripted(["require_token"])
    result = _scaler(tmp_path, proposer, depth_cap=2).scale(load_tool_task(seed))
    assert (result.stop_reason, len(result.nodes), proposer.seen) == ("no_valid_child", 1, [])
    assert result.why.startswith("the seed's reference fails in its own environment: score ")
    unscaled = summarise(tmp_path / "lineages").to_dict()["seeds"]["unscaled"][0]
    assert (unscaled["stop"], unscaled["reason"]) == ("invalid_seed", result.why)


def test_a_nodes_target_attempts_run_side_by_side_and_record_as_one_after_another(
    tmp_path, seed_dir, episodes, monkeypatch
) -> None:
    import threading
    import time

    serial_fake = scaling.run_episode  # the fixture's scripted episodes
    running, most = [0], [0]
    lock = threading.Lock()

    def slow(task: Task, agent: Target, **kwargs: Any) -> Any:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.2)
        try:
            return serial_fake(task, agent, **kwargs)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(scaling, "run_episode", slow)
    target = Target({1: [(True, False), (False, False), (True, True)]})
    manifests = []
    for parallel, folder in ((1, "serial"), (3, "parallel")):
        scaler = _scaler(tmp_path / folder, Scripted(["require_token"]), target, target_attempts=3, seed=7)
        scaler.parallel_attempts = parallel
        most[0] = 0
        result = scaler.scale(load_tool_task(seed_dir))
        manifests.append([(n.manifest.node_id, n.manifest.target) for n in result.nodes])
        assert most[0] == parallel  # at most that many at once, and that many did run together
    assert manifests[0] == manifests[1]  # same nodes, same attempts in attempt order


def test_attempts_run_side_by_side_only_in_the_slots_the_seeds_leave_free() -> None:
    from res_repro.pipelines.lineages import parallel_attempts

    assert parallel_attempts(threads=8, seeds=35, attempts=3) == 1  # every slot holds a seed
    assert parallel_attempts(threads=8, seeds=2, attempts=3) == 3
    assert parallel_attempts(threads=8, seeds=3, attempts=3) == 2  # 3 seeds x 2 attempts <= 8 slots
    assert parallel_attempts(threads=1, seeds=1, attempts=3) == 1
