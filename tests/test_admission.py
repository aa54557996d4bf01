"""AutoEnvScaling-style admission: reference, nop, n-gram leakage, and the solver's reward band."""

from __future__ import annotations

from itertools import count

import pytest
from hydra_config import compose_config
from scalers import build_scaler
from tool_factory import make_tool_task

from res_repro.agents.base import Agent
from res_repro.agents.reference import NopAgent, OracleAgent
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.env.outcome import AgentOutcome
from res_repro.errors import UserInputError
from res_repro.pipelines.lineages import make_admission, make_scaler
from res_repro.res.admission import AdmissionSettings, admit, overlaps
from res_repro.res.scaling import AdmissionGate


class Sometimes(Agent):
    """Fails (the nop's reward, 0.2) on the attempts listed in ``fails`` of every four; solves the rest."""

    name = "sometimes"

    def __init__(self, fails: set[int]) -> None:
        self.attempts = count()
        self.fails = fails

    def run(self, task, environment, attempt) -> AgentOutcome:
        agent = NopAgent() if next(self.attempts) % 4 in self.fails else OracleAgent()
        return agent.run(task, environment, attempt)


def test_a_task_of_middling_difficulty_is_admitted(tmp_path):
    verdict = admit(load_tool_task(make_tool_task(tmp_path)), Sometimes({1, 3}), held_out=[], backend="local")
    assert verdict.admitted, verdict.reasons
    assert verdict.solver_rewards == [1.0, 0.2, 1.0, 0.2]  # mean 0.6: far enough from both edges


def test_near_an_edge_the_rollouts_widen_to_eight(tmp_path):
    verdict = admit(load_tool_task(make_tool_task(tmp_path)), Sometimes({3}), held_out=[], backend="local")
    assert len(verdict.solver_rewards) == 8  # a 4-rollout mean of 0.8 is within 0.125 of 0.75
    assert verdict.reasons == ["the solver's mean reward 0.80 lies outside [0.25, 0.75]"]


def test_a_trivial_task_is_refused(tmp_path):
    verdict = admit(load_tool_task(make_tool_task(tmp_path)), OracleAgent(), held_out=[], backend="local")
    assert len(verdict.solver_rewards) == 4
    assert verdict.reasons == ["the solver's mean reward 1.00 lies outside [0.25, 0.75]"]


def test_leaked_instructions_are_refused(tmp_path):
    task = load_tool_task(make_tool_task(tmp_path))
    held_out = [f"Please: {task.instruction} Thanks."]
    assert overlaps(task.instruction, held_out)
    verdict = admit(task, Sometimes({1, 3}), held_out=held_out, backend="local")
    assert any("13-gram" in reason for reason in verdict.reasons)
    assert not overlaps("short text", ["short text"])  # fewer than 13 words cannot overlap


def _scaler(tmp_path, solver: Agent, **settings):
    return build_scaler(
        tmp_path / "lin",
        depth_cap=1,
        operators=["require_token", "open_session"],
        admission=AdmissionGate(AdmissionSettings(), solver),
        target_attempts=1,
        **settings,
    )


def test_scaling_admits_a_child_the_solver_finds_middling(tmp_path):
    task = load_tool_task(make_tool_task(tmp_path / "seed"))
    result = _scaler(tmp_path, Sometimes({1, 3})).scale(task)
    assert result.stop_reason == "depth_cap"
    admission = [c for c in result.last.manifest.checks if c["name"] == "admission"]
    assert admission == [
        {"name": "admission", "passed": True, "detail": "solver rewards [1.0, 0.2, 1.0, 0.2]"}
    ]


@pytest.mark.slow
def test_a_refused_admission_spends_revisions_until_the_budget_is_gone(tmp_path):
    task = load_tool_task(make_tool_task(tmp_path / "seed"))
    solver = Sometimes(set())  # always solves: every candidate is trivial for it
    result = _scaler(tmp_path, solver, max_revisions=2).scale(task)
    assert (result.stop_reason, len(result.nodes)) == ("no_valid_child", 1)
    assert next(solver.attempts) == 3 * 4  # three revisions, four rollouts each


def test_admission_is_chosen_in_the_scaling_config(tmp_path):
    assert make_scaler(compose_config(root=tmp_path)).admission is None  # the paper's RES: no admission
    cfg = compose_config(
        "scaling.admission.kind=calibration",
        "scaling.admission.band=[0.3,0.6]",
        "scaling.admission.solver=explorer-basic",
        root=tmp_path,
    )
    gate = make_scaler(cfg).admission
    assert gate is not None and gate.settings.band == (0.3, 0.6) and gate.solver.name == "explorer-basic"
    cfg.scaling.admission.kind = "strict"
    with pytest.raises(UserInputError, match=r"scaling\.admission\.kind"):
        make_admission(cfg, None)
