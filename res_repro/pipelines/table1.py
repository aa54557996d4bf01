"""Table 1: agents on the original and the last accepted RES environment of each seed task.

Each agent makes one attempt per task in both conditions; the two are compared task by task (exact McNemar
for pass rates; paired bootstrap and, beside it, a paired permutation test for scores and RPR). The paper's
reported figures sit in their own "paper" column; scripted agents are labelled as such.

What holds by construction is marked, not reported as evidence: the scaling target's +RES row (each lineage
grows until the target fails to fulfil its newest child, so that row was selected against it) sits apart,
the +RES rows of agents whose kind fixes them (``Agent.fixed_on_scaled``: the oracle, an explorer that
replays the seed's plan, one whose skills were written for the operators) read "by construction" with the
reason, and an agent whose outcomes cannot vary (not seeded) gets no p-value. Every seed grows a child
before the stopping rule is consulted; a seed that grew no valid child (its +RES is the original) is
counted and named in the notes with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from omegaconf import DictConfig

from res_repro.agents import Agent
from res_repro.env.outcome import StopReason
from res_repro.env.task import Task
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.metrics import MetricSettings
from res_repro.evaluation.runner import EpisodeRequest
from res_repro.evaluation.summary import Metric, metrics_for, statistics_note
from res_repro.pipelines.cells import (
    BY_CONSTRUCTION,
    condition_failures,
    failed_text,
    fixed_notes,
    fixed_on_scaled,
    format_p,
    interval_text,
    metric_settings,
    pct,
    scaling_note,
)
from res_repro.pipelines.costs import DryRunPlan, report_usage
from res_repro.pipelines.lineage_views import (
    childless_note,
    childless_seeds,
    incomplete_note,
    proposer_totals,
)
from res_repro.pipelines.lineages import (
    build_lineages,
    configured_agents,
    configured_tasks,
    run_requests,
    write_manifests,
)
from res_repro.pipelines.paper import paper_rows
from res_repro.pipelines.reporting import publish, raise_for_failed_agents, write_episodes
from res_repro.reporting.tables import Table
from res_repro.res.scaling import STOP_RULES

ORIGINAL, RES = "original", "+RES"
DETERMINISTIC = "deterministic"
TARGET_KIND = "scaling target"


def _display(agent: Agent, models: Mapping[str, object]) -> tuple[str, str, str | None]:
    """(row name, kind, the paper's name for the row or None) of an agent: models by their display name
    (simulated ones labelled so), scripted agents by theirs. A paper model's entry pointed at another
    model (``models.<key>.model=...``) is named by that model's id and has no paper figure."""
    if agent.scripted:
        return agent.name, "scripted", None
    model = models.get(agent.name)
    kind = "simulated" if getattr(model, "simulated", False) else "model"
    name = str(getattr(model, "name", agent.name))
    paper_model = getattr(model, "paper_model", None)
    if paper_model is None:
        return name, kind, None
    if getattr(model, "model", None) != paper_model:
        return str(getattr(model, "model", name)), kind, None
    return name, kind, name


def _p_cell(p: float | None, marker: str | None, settings: MetricSettings) -> str:
    """A p-value, or the marker saying why there is none to report."""
    return marker if marker and p is not None else format_p(p, settings.n_bootstrap)


def build_table1(
    records: Mapping[tuple[str, str], Sequence[EpisodeRecord]],
    *,
    benchmark: str,
    agents: Mapping[str, Agent],
    models: Mapping[str, object],
    settings: MetricSettings,
    target: str | None = None,
    target_stop_depths: Sequence[int] = (),
    target_rule: str = "fulfilled",
    failures: Mapping[tuple[str, str], int] | None = None,
    childless: Sequence[tuple[str, str]] = (),
    seeds: int = 0,
) -> tuple[Table, dict[str, float]]:
    """Rows per (agent, condition) with intervals and paired p-values, then the paper's rows.

    ``target`` is the scaling target's agent key when it is also evaluated, and ``target_stop_depths`` the
    depth of each lineage that ended because it met the stopping rule (``target_rule``: fulfilled, or
    passed) on its newest node in none of its attempts: its
    rows come last, marked as the scaling target, its +RES row "by construction". ``failures`` counts the
    infrastructure errors per (agent, condition): a condition with no episode to report keeps its row,
    marked "failed: N infrastructure errors", beside the paper's figure. ``childless`` names the seeds (of
    ``seeds``) that grew no valid child, with why (``lineage_views.childless_seeds``)."""
    metrics, prefix = metrics_for(benchmark)
    columns = ["agent", "agent kind", "environment", "n"]
    for metric in metrics:
        columns += [f"{metric.label} (%)", f"{settings.confidence:.0%} CI", f"paired p ({metric.label})"]
        if metric.permutation is not None:
            columns.append(f"permutation p ({metric.label})")
        columns.append("paper")
    table = Table(title=f"Table 1 ({benchmark}): original vs last accepted RES environment", columns=columns)
    logged: dict[str, float] = {}
    paper = {(row["model"], row["env"]): row for row in paper_rows("table1")}
    order = [key for key in agents if key != target] + [key for key in agents if key == target]
    for key in order:
        agent = agents[key]
        name, kind, paper_name = _display(agent, models)
        if key == target:
            kind = f"{kind}, {TARGET_KIND}"
        for condition in (ORIGINAL, RES):
            mine = records.get((key, condition))
            reported = paper.get((paper_name, "original" if condition == ORIGINAL else "res"), {})
            if not mine:
                errors = (failures or {}).get((key, condition), 0)
                if errors:
                    why = failed_text(errors)
                    table.add_row(
                        *_unreported_row([name, kind, condition, 0], metrics, prefix, reported, why)
                    )
                continue
            selected = condition == RES and fixed_on_scaled(key, agent, target)
            marker = BY_CONSTRUCTION if selected else None if agent.seeded else DETERMINISTIC
            shown = f"{condition} ({BY_CONSTRUCTION})" if selected else condition
            cells: list[object] = [name, kind, shown, len(mine)]
            for metric in metrics:
                estimate = metric.estimate(mine, settings)
                base = records.get((key, ORIGINAL))
                compared = condition == RES and bool(base)
                p = metric.paired(base, mine, settings) if compared else None
                cells += [pct(estimate.value), interval_text(estimate), _p_cell(p, marker, settings)]
                if metric.permutation is not None:
                    perm = metric.permutation(base, mine, settings) if compared else None
                    cells.append(_p_cell(perm, marker, settings))
                cells.append(reported.get(f"{prefix}_{metric.paper_suffix}", "") if prefix else "")
                logged.update(
                    estimate.as_metrics(f"{key}.{condition.lstrip('+').lower()}.{metric.paper_suffix}")
                )
            table.add_row(*cells)
    run_models = {_display(a, models)[2] for a in agents.values() if not a.scripted}
    for (model, env), row in paper.items():
        if model in run_models or not prefix:
            continue
        table.add_row(
            *_unreported_row(
                [model, "model", ORIGINAL if env == "original" else RES, ""], metrics, prefix, row, "not run"
            )
        )
    simulated = [key for key in agents if _display(agents[key], models)[1] == "simulated"]
    table.notes = table1_notes(agents, metrics, settings, target, target_stop_depths, target_rule, simulated)
    note = childless_note(childless, seeds or len(childless))
    if note:
        table.notes.append(note)
    return table, logged


def _unreported_row(
    head: list[object], metrics: Sequence[Metric], prefix: str, reported: Mapping[str, object], why: str
) -> list[object]:
    """A row with no estimate of ours: ``why`` in each metric's column, the paper's figure beside it."""
    cells = list(head)
    for metric in metrics:
        cells += [why, "", ""] + ([""] if metric.permutation is not None else [])
        cells.append(reported.get(f"{prefix}_{metric.paper_suffix}", "") if prefix else "")
    return cells


def table1_notes(
    agents: Mapping[str, Agent],
    metrics: Sequence[Metric],
    settings: MetricSettings,
    target: str | None,
    target_stop_depths: Sequence[int],
    target_rule: str,
    simulated: Sequence[str] = (),
) -> list[str]:
    """What the rows are, what holds by construction, and which interval and test each column uses."""
    scripted = [a.name for a in agents.values() if a.scripted]
    fixed = [a.name for k, a in agents.items() if not a.seeded and not fixed_on_scaled(k, a, target)]
    notes = [
        "Each agent makes one attempt per task in each environment; +RES is the last accepted environment of "
        "each seed task's lineage."
    ]
    if scripted:
        notes.append(
            f"Scripted agents ({', '.join(scripted)}) are programs, not models. Explorers vary only through "
            "the episode seed, which orders the alternatives they try; their p-values describe this sample "
            "of tasks and seeds, not a model's sampling."
        )
    if simulated:
        notes.append(
            f"Simulated models ({', '.join(simulated)}) are the scripted explorer tiers answering through "
            "the simulated endpoint (models=sim): they show the paper's protocol running end to end, not how "
            "any model performs."
        )
    notes += [
        "The 'paper' column holds the RES paper's reported figures (its models, its benchmarks); they are "
        "not results of this harness. 'not run' rows need the model's API key (models=api or models=paper).",
        statistics_note(metrics, settings.confidence),
    ]
    if fixed:
        notes.append(
            f"{', '.join(fixed)}: outcomes cannot vary with the seed, so no p-value is given "
            f"('{DETERMINISTIC}')."
        )
    if target is not None:
        notes.append(
            f"{target} is the scaling target and is reported apart: each lineage grew at least one child, "
            f"then grew until {target} {target_rule} its newest node in none of its attempts "
            f"({len(target_stop_depths)} lineage(s) stopped so), so "
            f"its +RES row is low {BY_CONSTRUCTION} (as in the paper) and is no evidence about RES."
        )
    notes += fixed_notes(agents, target)
    evidence = [a.name for k, a in agents.items() if not fixed_on_scaled(k, a, target)]
    shown = ", ".join(evidence) or f"none in this run (every +RES row is fixed {BY_CONSTRUCTION})"
    notes.append(f"Rows that are evidence about RES (+RES not fixed {BY_CONSTRUCTION}): {shown}.")
    return notes


def paired_records(
    flat: Sequence[EpisodeRecord], agent_keys: Sequence[str], n_tasks: int
) -> dict[tuple[str, str], list[EpisodeRecord]]:
    """Split records (agent-major, then original, then +RES, then task order) into aligned pairs.

    A task whose episode failed for infrastructure reasons in either condition is left out of both, so
    the paired tests compare the same tasks.
    """
    records: dict[tuple[str, str], list[EpisodeRecord]] = {}
    for index, key in enumerate(agent_keys):
        start = 2 * n_tasks * index
        originals, scaled = flat[start : start + n_tasks], flat[start + n_tasks : start + 2 * n_tasks]
        for original, res in zip(originals, scaled, strict=True):
            if not (original.infrastructure_failure or res.infrastructure_failure):
                records.setdefault((key, ORIGINAL), []).append(original)
                records.setdefault((key, RES), []).append(res)
    return records


def left_out_notes(flat: Sequence[EpisodeRecord], agent_keys: Sequence[str], n_tasks: int) -> list[str]:
    """One note per agent naming the tasks :func:`paired_records` left out of both conditions (an
    infrastructure failure in either), with how many failed in each condition; none when nothing was."""
    notes = []
    for index, key in enumerate(agent_keys):
        start = 2 * n_tasks * index
        originals, scaled = flat[start : start + n_tasks], flat[start + n_tasks : start + 2 * n_tasks]
        dropped = [
            (original, res)
            for original, res in zip(originals, scaled, strict=True)
            if original.infrastructure_failure or res.infrastructure_failure
        ]
        if not dropped:
            continue
        in_original = sum(original.infrastructure_failure for original, _ in dropped)
        in_res = sum(res.infrastructure_failure for _, res in dropped)
        named = ", ".join(original.task_id for original, _ in dropped)
        notes.append(
            f"{key}: {len(dropped)} of {n_tasks} task(s) left out of both conditions for infrastructure "
            f"failures (original: {in_original}, +RES: {in_res}; the run exits non-zero and a rerun retries "
            f"them): {named}."
        )
    return notes


def truncation_note(flat: Sequence[EpisodeRecord]) -> str | None:
    """The note counting episodes whose model reply was cut at its output token limit, per agent and
    condition (they are scored on what the agent did before), or None when none was."""
    counts: dict[tuple[str, str], int] = {}
    for record in flat:
        if record.stop_reason == StopReason.TRUNCATED:
            counts[(record.agent, record.environment)] = counts.get((record.agent, record.environment), 0) + 1
    if not counts:
        return None
    named = ", ".join(f"{agent} {environment}: {n}" for (agent, environment), n in sorted(counts.items()))
    return (
        "Episodes cut at the model's output token limit (stop reason truncated; scored on the environment "
        f"as the agent left it, with no answer; a larger max_output_tokens avoids them): {named}."
    )


def table1_requests(
    agent_keys: Sequence[str], conditions: Mapping[str, Sequence[Task]]
) -> list[EpisodeRequest]:
    """One episode per agent, condition and task, agent-major (the order :func:`paired_records` reads)."""
    return [
        EpisodeRequest(task, key, environment=condition)
        for key in agent_keys
        for condition, condition_tasks in conditions.items()
        for task in condition_tasks
    ]


def plan_table1(cfg: DictConfig) -> DryRunPlan:
    """What :func:`run_table1` would run: each seed scaled, every agent on original and +RES (before
    scaling, the +RES environment of a seed stands in as the seed itself: the count is the same)."""
    tasks = configured_tasks(cfg)
    return DryRunPlan(table1_requests(list(cfg.agents), {ORIGINAL: tasks, RES: tasks}), len(tasks))


def run_table1(cfg: DictConfig) -> Table:
    """Scale the benchmark's seed tasks, evaluate every agent on original and +RES, and report."""
    agents = configured_agents(cfg, cfg.agents)
    tasks = configured_tasks(cfg)
    lineages = build_lineages(cfg, tasks)
    conditions = {
        ORIGINAL: [lineage.nodes[0].task for lineage in lineages],
        RES: [lin.last.task for lin in lineages],
    }
    flat = run_requests(cfg, table1_requests(list(agents), conditions), agents, lineages)
    records = paired_records(flat, list(agents), len(tasks))
    target = cfg.scaling.target if cfg.scaling.target in agents else None
    table, metrics = build_table1(
        records,
        benchmark=cfg.benchmark.name,
        agents=agents,
        models=cfg.models,
        settings=metric_settings(cfg),
        target=target,
        target_stop_depths=[
            lin.last.manifest.depth for lin in lineages if lin.stop_reason == "target_failed"
        ],
        target_rule=STOP_RULES[cfg.scaling.stop_on],
        failures=condition_failures(flat),
        childless=childless_seeds(lineages),
        seeds=len(lineages),
    )
    table.notes += left_out_notes(flat, list(agents), len(tasks))
    table.notes += [note for note in (truncation_note(flat),) if note]
    table.notes += [note for note in (incomplete_note(lineages), scaling_note(cfg)) if note]
    metrics.update(report_usage(cfg, flat))
    if cfg.scaling.proposer.kind == "llm":
        metrics.update({f"proposer.{key}": value for key, value in proposer_totals(lineages).items()})
    depths = [lineage.last.manifest.depth for lineage in lineages]
    metrics["res.mean_depth"] = sum(depths) / len(depths)
    out = Path(cfg.paths.output_dir)
    extra = [write_episodes(flat, out / "episodes.jsonl"), write_manifests(lineages, out / "lineages.jsonl")]
    publish(cfg, table, "table1", metrics, extra=extra)
    raise_for_failed_agents(flat)
    return table
