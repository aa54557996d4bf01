"""Tables 3A and 3B: the component ablations, Pass@1 and Score beside the paper's.

3A removes the composed dependencies and their prerequisite work from the saved RES environments (every
change that consumed an earlier change's artifact and, transitively, the earlier changes it built on; the
other changes stay, applied again on the original) and its notes say what was removed from each task; 3B
rebuilds lineages under matched planned depths and budgets with the full library,
without inheritance, and with the basic library. Both are views of ``ablation_records``; each ablation
is compared task by task with its full RES control (exact McNemar for Pass@1, paired bootstrap for Score).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig

from res_repro.evaluation.metrics import mean_with_ci, pass_flags, rate_with_ci
from res_repro.pipelines.ablations import (
    CONTROLS,
    LABELS,
    AblationRecords,
    ablation_records,
    write_ablation_episodes,
)
from res_repro.pipelines.cells import (
    BOOTSTRAP_TEST,
    PERCENT,
    agent_label,
    agent_note,
    bootstrap_cell,
    mcnemar_cell,
    mean_cells,
    metric_settings,
    paper_cell,
    rate_cells,
    scaling_note,
)
from res_repro.pipelines.paper import paper_values
from res_repro.pipelines.reporting import publish, raise_for_failed_agents
from res_repro.reporting.tables import Table


@dataclass(frozen=True)
class ComponentTable:
    """One part of Table 3: its title, its conditions, and where the paper's rows are."""

    title: str
    conditions: tuple[str, ...]
    paper_key: str


PARTS = {
    "table3a": ComponentTable(
        "Table 3A: remove dependencies from saved environments",
        ("saved_res", "without_dependencies"),
        "A_remove_dependencies_15_tasks",
    ),
    "table3b": ComponentTable(
        "Table 3B: rebuild environments under matched budgets",
        ("rebuilt_res", "without_inheritance", "basic_library"),
        "B_rebuild_matched_budgets_15_tasks",
    ),
}


def components(cfg: DictConfig, condition: str) -> tuple[str, str, str]:
    """(dependency composition, inheritance, library) of a condition, as the paper's table marks them."""
    if condition in cfg.ablation.rebuilds:
        settings = cfg.ablation.rebuilds[condition]
        composition, inheritance, library = settings.composition, settings.inheritance, settings.library
    else:
        composition, inheritance, library = condition != "without_dependencies", True, None
    return (
        "✓" if composition else "×",
        "✓" if inheritance else "×",
        "full" if library is None else f"basic ({len(library)} operators)",
    )


def build_component_table(
    cfg: DictConfig, data: AblationRecords, part: ComponentTable, paper: Sequence[Mapping[str, Any]]
) -> tuple[Table, dict[str, float]]:
    """Rows per (agent, condition): Pass@1 and Score with intervals, paired p against the control."""
    settings = metric_settings(cfg)
    ci = f"{settings.confidence:.0%} CI"
    columns = ["agent", "variant", "dependency composition", "inheritance", "library", "n"]
    columns += ["Pass@1 (%)", ci, "McNemar p", "paper Pass@1", "Score", ci, "bootstrap p", "paper Score"]
    table = Table(title=f"{part.title} ({cfg.benchmark.name}, {len(data.tasks)} tasks)", columns=columns)
    reported = {row["variant"]: row for row in paper}
    logged: dict[str, float] = {}
    for key in data.agents:
        for condition in part.conditions:
            records = data.records[(key, condition)]
            scores = [r.score for r in records]
            control = data.records.get((key, CONTROLS[condition]))
            control_scores = [r.score for r in control] if control else None
            flags = pass_flags(scores, settings.threshold)
            control_flags = pass_flags(control_scores, settings.threshold) if control_scores else None
            table.add_row(
                agent_label(key, data.agents[key], cfg.scaling.target),
                LABELS[condition],
                *components(cfg, condition),
                len(records),
                *rate_cells(flags, settings.confidence),
                mcnemar_cell(control_flags, flags),
                paper_cell(reported.get(condition), "pass_at_1"),
                *mean_cells(scores, settings.confidence, scale=100, bounds=PERCENT),
                bootstrap_cell(control_scores, scores, settings),
                paper_cell(reported.get(condition), "score"),
            )
            logged.update(rate_with_ci(flags, settings.confidence).as_metrics(f"{key}.{condition}.pass_at_1"))
            logged.update(mean_with_ci(scores, settings.confidence).as_metrics(f"{key}.{condition}.score"))
    data.failed.add_rows(
        table,
        part.conditions,
        lambda key, agent, condition: [
            agent_label(key, agent, cfg.scaling.target),
            LABELS[condition],
            *components(cfg, condition),
            0,
        ],
    )
    table.notes = [
        agent_note(data.agents, cfg.scaling.target),
        scaling_note(cfg),
        "One attempt per agent per environment. Pass@1: native score >= "
        f"{settings.threshold:.2f}; Score: mean native score x 100. Lower values mean harder environments.",
        "Paired p against the full RES control ("
        + "; ".join(f"{LABELS[c]} vs {LABELS[CONTROLS[c]]}" for c in part.conditions)
        + f"): exact McNemar for Pass@1; for Score a {BOOTSTRAP_TEST}. Intervals: Wilson, Student t.",
        "Rebuilt variants share each task's planned depth d_i (the saved lineage's depth), the proposer, "
        f"the revision budget and one rebuild seed ({cfg.ablation.rebuild_seed}).",
    ]
    if "without_dependencies" in part.conditions:
        table.notes += removal_notes(data)
    return table, logged


def _names(operators: Sequence[str]) -> str:
    return ", ".join(operators) or "nothing"


def _task_removal(task: str, removal: Mapping[str, Sequence[str]]) -> str:
    """One task's part of the removal note: what went, what stayed."""
    if removal["composed"]:
        removed = f"removed {_names(removal['composed'])} (composed)"
        if removal["prerequisites"]:
            removed += f" and {_names(removal['prerequisites'])} (built on)"
    else:
        removed = "nothing removed (no composed change)"
    dropped = f", left out {_names(removal['dropped'])}" if removal["dropped"] else ""
    return f"{task}: {removed}, kept {_names(removal['kept'])}{dropped}"


def removal_notes(data: AblationRecords) -> list[str]:
    """What 'w/o dependencies' removed: the definition, the totals over the tasks, and each task's
    removed and kept changes (by operator, in history order)."""
    label = LABELS["without_dependencies"]
    notes = [
        f"{label}: from each saved RES environment, every composed change (one that consumed an earlier "
        "change's artifact: a token, a record, a tool, a file) and the earlier changes it built on "
        "(transitively) are removed; the other changes are applied again, in order, on the original "
        "environment (the paper: removes composed dependencies and their prerequisite work)."
    ]
    found = [(task, data.removals[task]) for task in data.tasks if task in data.removals]
    if not found:
        return notes
    composed = sum(len(r["composed"]) for _, r in found)
    built_on = sum(len(r["prerequisites"]) for _, r in found)
    kept = sum(len(r["kept"]) for _, r in found)
    dropped = sum(len(r["dropped"]) for _, r in found)
    total = composed + built_on + kept + dropped
    extra = (
        f"; {dropped} change(s) to keep no longer applied without the removed ones, left out"
        if dropped
        else ""
    )
    failing = [task for task, r in found if r["failed_checks"]]
    if failing:
        extra += f"; the rebuilt environment fails its checks for {', '.join(failing)}"
    notes.append(
        f"Over the {len(found)} task{'s' if len(found) != 1 else ''}, {composed + built_on} of {total} "
        f"changes were removed ({composed} composed, {built_on} they built on) and {kept} kept{extra}. "
        "Per task: " + "; ".join(_task_removal(task, r) for task, r in found) + "."
    )
    return notes


def run_component_table(cfg: DictConfig, name: str) -> Table:
    """Compute (or reuse) the ablation records and publish one part of Table 3."""
    part = PARTS[name]
    data = ablation_records(cfg)
    table, metrics = build_component_table(cfg, data, part, paper_values()["table3"][part.paper_key])
    publish(cfg, table, name, metrics, extra=[write_ablation_episodes(cfg, data)])
    raise_for_failed_agents(data.episodes)
    return table


def run_table3a(cfg: DictConfig) -> Table:
    """Table 3A: saved RES vs without dependencies."""
    return run_component_table(cfg, "table3a")


def run_table3b(cfg: DictConfig) -> Table:
    """Table 3B: rebuilt RES vs without inheritance vs the basic library."""
    return run_component_table(cfg, "table3b")
