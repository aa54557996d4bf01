"""AutoEnvScaling-style admission of an environment, optional beside the RES checks.

An environment is admitted when: its reference scores 1; nop scores below 0.5; its instruction shares
no 13-word sequence with a held-out task set (no leakage into evaluation data); and a solver's mean
reward over 4 rollouts lies inside [0.25, 0.75] (neither trivial nor hopeless), widened to 8 rollouts
when the 4-rollout mean sits within half a rollout's weight of either edge of the band. Those are the
defaults of :class:`AdmissionSettings`; the ``scaling.admission`` config group sets them for a run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from res_repro.agents.base import Agent
from res_repro.agents.reference import NopAgent, OracleAgent
from res_repro.env.task import Task
from res_repro.evaluation.episode import run_episode
from res_repro.sandbox import Backend

NGRAM = 13
BAND = (0.25, 0.75)
ROLLOUTS, WIDENED_ROLLOUTS = 4, 8


@dataclass(frozen=True)
class AdmissionSettings:
    """The calibration band of the solver's mean reward, its rollouts, and the leakage n-gram length."""

    band: tuple[float, float] = BAND
    ngram: int = NGRAM
    rollouts: int = ROLLOUTS
    widened_rollouts: int = WIDENED_ROLLOUTS

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return asdict(self)


def ngrams(text: str, n: int = NGRAM) -> set[tuple[str, ...]]:
    """Every sequence of ``n`` consecutive lower-cased words."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def overlaps(instruction: str, held_out: Iterable[str], n: int = NGRAM) -> bool:
    """True when the instruction shares any ``n``-gram with a held-out instruction."""
    mine = ngrams(instruction, n)
    return any(mine & ngrams(other, n) for other in held_out)


@dataclass
class Admission:
    """The verdict and the evidence behind it."""

    admitted: bool
    reasons: list[str] = field(default_factory=list)
    solver_rewards: list[float] = field(default_factory=list)


def _near_edge(mean: float, rollouts: int, band: tuple[float, float]) -> bool:
    half_step = 0.5 / rollouts
    return any(abs(mean - edge) <= half_step for edge in band)


def admit(
    task: Task,
    solver: Agent,
    held_out: Sequence[str],
    *,
    backend: Backend,
    seed: int = 0,
    settings: AdmissionSettings = AdmissionSettings(),
) -> Admission:
    """Apply every admission rule; the solver's rollouts are seeded ``seed``, ``seed + 1``, ..."""
    reasons = []
    low, high = settings.band

    def score(agent: Agent, attempt: int) -> float:
        return run_episode(
            task, agent, backend=backend, episode_id=f"admit-{attempt}", seed=seed + attempt
        ).score

    if score(OracleAgent(), 0) < 1.0:
        reasons.append("the reference does not score 1")
    if score(NopAgent(), 0) >= 0.5:
        reasons.append("nop scores 0.5 or more")
    if overlaps(task.instruction, held_out, settings.ngram):
        reasons.append(f"the instruction shares a {settings.ngram}-gram with the held-out set")
    rewards = [score(solver, attempt) for attempt in range(settings.rollouts)]
    if _near_edge(sum(rewards) / len(rewards), settings.rollouts, settings.band):
        rewards += [score(solver, attempt) for attempt in range(settings.rollouts, settings.widened_rollouts)]
    mean = sum(rewards) / len(rewards)
    if not low <= mean <= high:
        reasons.append(f"the solver's mean reward {mean:.2f} lies outside [{low}, {high}]")
    return Admission(not reasons, reasons, rewards)
