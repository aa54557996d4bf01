"""Table A2: proposer cost per accepted child (outer executions, tokens, execution seconds).

Read from the lineage manifests, which record each child's proposer cost aggregated over its
revisions. The programmatic proposer calls no model, so its tokens are not applicable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from omegaconf import DictConfig

from res_repro.pipelines.cells import mean_cells, metric_settings, paper_cell, scaling_note
from res_repro.pipelines.lineage_views import child_costs, lineage_notes, model_proposer, proposer_totals
from res_repro.pipelines.lineages import build_lineages, configured_tasks
from res_repro.pipelines.paper import paper_values
from res_repro.pipelines.reporting import publish
from res_repro.reporting.figures import proposer_cost
from res_repro.reporting.tables import Table

QUANTITIES = {
    "outer_executions": ("Outer proposer executions", 3, lambda c: float(c.get("executions", 0))),
    "tokens_k": (
        "Input + output tokens (k)",
        2,
        lambda c: (c.get("input_tokens", 0) + c.get("output_tokens", 0)) / 1000,
    ),
    "execution_seconds": ("Summed execution time (s)", 5, lambda c: float(c.get("seconds", 0.0))),
    "requests": ("Model requests", 3, lambda c: float(c.get("requests", 0))),
}
"""Each row of the table: its paper key, its label, its decimals, and how to read it from a manifest's
proposer cost."""


def build_table_a2(
    costs: Sequence[Mapping[str, Any]],
    *,
    proposer: str,
    confidence: float,
    benchmark: str,
    totals: Mapping[str, float] | None = None,
) -> tuple[Table, dict[str, float]]:
    """Mean (with interval), median and P90 of each quantity over children, beside the paper's; with
    ``totals`` (:func:`~res_repro.pipelines.lineage_views.proposer_totals`), a last row of every proposer
    token spent, accepted or not, per accepted child."""
    ci = f"{confidence:.0%} CI"
    columns = ["quantity", "children", "mean", ci, "median", "P90", "paper mean", "paper median", "paper P90"]
    table = Table(title=f"Table A2: proposer cost per accepted child ({benchmark})", columns=columns)
    reported = paper_values()["table_a2_proposer_cost_per_child"]
    logged: dict[str, float] = {}
    for key, (label, digits, read) in QUANTITIES.items():
        values = [read(cost) for cost in costs]
        paper = reported.get(key)
        mine: list[str] = ["", "", "", ""]
        if key in ("tokens_k", "requests") and proposer == "programmatic":
            mine = ["n/a (programmatic)", "", "", ""]
        elif values:
            mine = [
                *mean_cells(values, confidence, digits=digits),
                f"{np.median(values):.{digits}f}",
                f"{np.percentile(values, 90):.{digits}f}",
            ]
            logged[f"{key}.mean"] = float(np.mean(values))
        table.add_row(label, len(values), *mine, *(paper_cell(paper, s) for s in ("mean", "median", "p90")))
    children = int((totals or {}).get("accepted_children", 0))
    if totals is not None and proposer != "programmatic":
        spent = (totals["input_tokens"] + totals["output_tokens"]) / 1000
        per_child = f"{spent / children:.2f}" if children else "no child"
        table.add_row("All tokens spent / accepted children (k)", children, per_child, "", "", "", "", "", "")
        logged.update({f"proposer.{key}": value for key, value in totals.items()})
    table.notes = [
        f"Proposer: {proposer}. Costs aggregate each child's outer executions (one per revision), model "
        "requests (inspection turns and re-asks included) and revisions; target solving, checks and grading "
        "are excluded."
        + (
            " The last row divides every proposer token, including depths where no child was accepted, by "
            "the accepted children."
            if proposer != "programmatic"
            else ""
        ),
        "The programmatic proposer is a seeded sampler that calls no model: it has no tokens, and its "
        "seconds are sampling time only."
        if proposer == "programmatic"
        else "Tokens are counted as the provider reported them when each response was made (a response "
        "answered from the cache counts what it cost then).",
        "The paper's children were written by GPT-5.6 Sol (289 children).",
    ]
    return table, logged


def run_table_a2(cfg: DictConfig) -> Table:
    """Scale (or reuse) the lineages and publish Table A2 with Figure 5."""
    lineages = build_lineages(cfg, configured_tasks(cfg))
    costs = child_costs(lineages)
    table, metrics = build_table_a2(
        costs,
        proposer=cfg.scaling.proposer.kind,
        confidence=metric_settings(cfg).confidence,
        benchmark=cfg.benchmark.name,
        totals=proposer_totals(lineages),
    )
    table.notes += [*lineage_notes(lineages), scaling_note(cfg)]
    figures = {}
    if costs:
        figures["fig5_proposer_cost"] = proposer_cost(
            costs,
            title=f"Figure 5 ({cfg.benchmark.name}): proposer cost per child by depth",
            timed=model_proposer(cfg),
        )
    publish(cfg, table, "table_a2", metrics, figures=figures)
    return table
