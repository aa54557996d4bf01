"""Table cells shared by the result pipelines: the metric settings of a run, estimates with intervals,
paired p-values, the paper's values, and the note saying which agents produced the numbers.

Every rate and flag behind these cells comes from :mod:`res_repro.evaluation.metrics`."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from omegaconf import DictConfig

from res_repro.agents import Agent
from res_repro.evaluation.episode import EpisodeRecord, infrastructure_failures
from res_repro.evaluation.metrics import MetricSettings, RateEstimate, mean_with_ci, rate_with_ci
from res_repro.evaluation.statistics import mcnemar_exact, paired_bootstrap, paired_permutation_test
from res_repro.evaluation.summary import PERMUTATION
from res_repro.reporting.tables import Table
from res_repro.res.scaling import HINTS

NOT_RUN = "n/a (scripted)"
"""What a token cell says when every agent is scripted: no model is called, so there are no tokens."""


def metric_settings(cfg: DictConfig) -> MetricSettings:
    """The run's metric settings: the ``metrics`` config group and the seed."""
    return MetricSettings.from_config(cfg.metrics, cfg.seed)


def pct(value: float) -> str:
    """A fraction as a percentage with two decimals."""
    return f"{100 * value:.2f}"


def format_p(p: float | None, n_bootstrap: int) -> str:
    """A p-value for a table; a bootstrap p of 0 is reported as below its resolution (``n_bootstrap``;
    0 for a p that is never 0)."""
    if p is None:
        return ""
    return f"<{1 / n_bootstrap:.0e}" if p == 0 and n_bootstrap else f"{p:.3g}"


def rate_cells(flags: Sequence[bool], confidence: float, scale: float = 100.0) -> list[str]:
    """A rate and its Wilson interval, on a 0-``scale`` scale."""
    estimate = rate_with_ci(list(flags), confidence)
    return [f"{scale * estimate.value:.2f}", f"[{scale * estimate.low:.2f}, {scale * estimate.high:.2f}]"]


def interval_text(estimate: RateEstimate) -> str:
    """An estimate's interval in percent, within [0, 100] (every rate and native score lies there);
    blank when undefined (a single value)."""
    if math.isnan(estimate.low) or math.isnan(estimate.high):
        return ""
    return f"[{pct(max(0.0, estimate.low))}, {pct(min(1.0, estimate.high))}]"


def mean_cells(
    values: Sequence[float],
    confidence: float,
    scale: float = 1.0,
    digits: int = 2,
    bounds: tuple[float, float] | None = None,
) -> list[str]:
    """A mean and its Student-t interval (blank when undefined), clipped to ``bounds`` when given
    (the range a score or a rate can take)."""
    estimate = mean_with_ci(list(values), confidence)
    if math.isnan(estimate.low):
        return [f"{scale * estimate.value:.{digits}f}", ""]
    low, high = scale * estimate.low, scale * estimate.high
    if bounds is not None:
        low, high = max(bounds[0], low), min(bounds[1], high)
    return [f"{scale * estimate.value:.{digits}f}", f"[{low:.{digits}f}, {high:.{digits}f}]"]


PERCENT = (0.0, 100.0)
"""The bounds of a score or rate on a 0-100 scale."""


def mcnemar_cell(control: Sequence[bool] | None, flags: Sequence[bool]) -> str:
    """Exact McNemar p of ``flags`` against the paired ``control`` (blank without a control)."""
    return "" if control is None else f"{mcnemar_exact(list(control), list(flags)).p_value:.3g}"


BOOTSTRAP_TEST = f"paired bootstrap, with a {PERMUTATION} p beside it in brackets"
"""What a bootstrap cell holds, for a table's notes."""


def bootstrap_cell(control: Sequence[float] | None, values: Sequence[float], settings: MetricSettings) -> str:
    """Paired bootstrap p of the mean of ``values`` against ``control``, and beside it the paired
    permutation p of the same mean (blank without a control)."""
    if control is None:
        return ""
    result = paired_bootstrap(
        list(control),
        list(values),
        n_resamples=settings.n_bootstrap,
        confidence=settings.confidence,
        seed=settings.seed,
    )
    permutation = paired_permutation_test(
        list(control), list(values), n_resamples=settings.n_bootstrap, seed=settings.seed
    )
    return f"{format_p(result.p_value, settings.n_bootstrap)} ({format_p(permutation.p_value, 0)})"


def paper_cell(row: Mapping[str, Any] | None, key: str) -> str:
    """The paper's reported value for ``key`` in ``row`` (blank when the paper does not give it)."""
    value = (row or {}).get(key)
    if value is None:
        return ""
    return f"{value:.2f}" if isinstance(value, float) else str(value)


BY_CONSTRUCTION = "by construction"


def agent_note(agents: Mapping[str, Agent], target: str | None = None) -> str:
    """Which agents produced the numbers, each labelled scripted or model; when the scaling ``target`` is
    among them, what its selection fixes by construction."""
    kinds = ", ".join(agent_label(key, agent, target) for key, agent in agents.items())
    note = (
        f"Agents: {kinds}. Scripted agents are programs, not models (an explorer varies only through its "
        "episode seed, which orders the alternatives it tries); the paper's values "
        "(the 'paper' columns, from its DeepSeek-V4.1-Flash runs) are not results of this harness."
    )
    if target in agents:
        note += (
            f" {target} is the scaling target: each saved lineage stopped where it fulfilled none of its "
            "attempts, so its rows on saved environments (Saved RES, the deepest caps) are low by "
            "construction, not evidence about RES."
        )
    return " ".join([note, *fixed_notes(agents, target)])


def scaling_note(cfg: DictConfig) -> str:
    """How the scaled environments' added layers answer errors (``scaling.hints``), for a table's notes."""
    hints = str(cfg.scaling.hints)
    return f"Scaled environments: errors are {hints} ({HINTS.get(hints, 'unknown setting')}; scaling.hints)."


def fixed_notes(agents: Mapping[str, Agent], target: str | None = None) -> list[str]:
    """One sentence per agent (other than the scaling ``target``) whose rows on scaled environments are
    fixed by construction, with the reason (:attr:`Agent.fixed_on_scaled`)."""
    return [
        f"{key}'s rows on scaled environments are fixed {BY_CONSTRUCTION}, not evidence about RES: "
        f"{agent.fixed_on_scaled}."
        for key, agent in agents.items()
        if key != target and agent.fixed_on_scaled
    ]


def fixed_on_scaled(key: str, agent: Agent, target: str | None = None) -> bool:
    """True when ``agent``'s outcomes on scaled environments follow from how they were built: it is the
    scaling target, or its kind binds them (:attr:`Agent.fixed_on_scaled`)."""
    return key == target or bool(agent.fixed_on_scaled)


def agent_label(key: str, agent: Agent, target: str | None = None) -> str:
    """An agent's key with its kind, e.g. ``explorer-standard (scripted)``, and ``scaling target`` when it
    is the agent that decided where the saved lineages stop, or ``RES rows by construction`` when its
    kind fixes its outcomes on scaled environments."""
    kind = "scripted" if agent.scripted else "model"
    if key == target:
        return f"{key} ({kind}, scaling target)"
    return f"{key} ({kind}, RES rows {BY_CONSTRUCTION})" if agent.fixed_on_scaled else f"{key} ({kind})"


def condition_failures(records: Iterable[EpisodeRecord]) -> dict[tuple[str, str], int]:
    """Infrastructure errors per (agent, environment) of ``records``."""
    counts: dict[tuple[str, str], int] = {}
    for record in records:
        key = (record.agent, record.environment)
        counts[key] = counts.get(key, 0) + record.infrastructure_failure
    return counts


def failed_text(errors: int) -> str:
    """What a row says in place of its estimates when none of its episodes ran: every one ended in an
    infrastructure error (the run then exits non-zero, see ``reporting.raise_for_failed_agents``)."""
    return f"failed: {errors} infrastructure errors"


def failed_row(head: Sequence[object], errors: int, width: int) -> list[object]:
    """A row of ``width`` cells kept for an (agent, condition) whose every episode ended in an
    infrastructure error: ``head`` (naming it, with its n of 0), :func:`failed_text`, then blanks."""
    return [*head, failed_text(errors), *[""] * (width - len(head) - 1)]


@dataclass(frozen=True)
class FailedAgents:
    """The agents whose every episode ended in an infrastructure error: their rows stay in a table, each
    saying :func:`failed_text` in place of estimates."""

    agents: dict[str, Agent] = field(default_factory=dict)
    errors: dict[tuple[str, str], int] = field(default_factory=dict)  # per (agent, environment)

    def total(self, key: str) -> int:
        """All infrastructure errors of the agent ``key``."""
        return sum(n for (agent, _), n in self.errors.items() if agent == key)

    def add_rows(
        self,
        table: Table,
        conditions: Iterable[object],
        head: Callable[[str, Agent, object], Sequence[object]],
    ) -> None:
        """Keep each failed agent's rows in ``table``: per condition, :func:`failed_row` after
        ``head(key, agent, condition)``, with the errors of that condition (all the agent's errors when
        the table's rows are not the environments it ran in, as depth caps)."""
        for key, agent in self.agents.items():
            for condition in conditions:
                errors = self.errors.get((key, str(condition)), self.total(key))
                table.add_row(*failed_row(head(key, agent, condition), errors, len(table.columns)))


def split_failed(
    agents: Mapping[str, Agent], records: Iterable[EpisodeRecord]
) -> tuple[dict[str, Agent], FailedAgents]:
    """The agents with an episode that ran, and the rest (see
    :func:`~res_repro.evaluation.episode.infrastructure_failures`) with their errors per environment."""
    records = list(records)
    failed = infrastructure_failures(records)
    errors = {key: n for key, n in condition_failures(records).items() if key[0] in failed}
    ran = {key: agent for key, agent in agents.items() if key not in failed}
    return ran, FailedAgents({key: agent for key, agent in agents.items() if key in failed}, errors)
