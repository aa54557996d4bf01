"""RES by depth: agents' pass rate, turns and tool calls at each depth of the lineages, and the ablations.

The pass rate is the benchmark's success rule (``metrics.succeeded``) under the ``metrics`` config
group: Pass@1 at ``metrics.threshold`` on native scores, TCR at ``metrics.tcr_fraction`` on rubric items,
the verifier's verdict on binary tasks.

Depth d evaluates, for every seed task, its node at depth d, or its last node when the lineage stopped
earlier (early-stopped finals are carried forward, as in the paper's historical means). Two ablations
follow: the last environments with their composed dependencies and prerequisite work removed (Table 3A),
and lineages rebuilt without inheritance to the same depth (Table 3B).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import fmean

from matplotlib.figure import Figure
from omegaconf import DictConfig

from res_repro.agents import Agent
from res_repro.env.task import Task
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.metrics import (
    MetricSettings,
    rate_with_ci,
    succeeded,
    success_description,
    success_flags,
)
from res_repro.evaluation.runner import EpisodeRequest
from res_repro.pipelines.ablations import without_dependencies_task
from res_repro.pipelines.budgets import historical_values
from res_repro.pipelines.cells import (
    FailedAgents,
    agent_label,
    agent_note,
    failed_row,
    metric_settings,
    scaling_note,
    split_failed,
)
from res_repro.pipelines.lineage_views import child_costs, lineage_notes, model_proposer, termination_rates
from res_repro.pipelines.lineages import (
    build_lineages,
    configured_agents,
    configured_tasks,
    make_scaler,
    run_requests,
)
from res_repro.pipelines.reporting import publish, raise_for_failed_agents, write_episodes
from res_repro.reporting.figures import budget_curves, lineage_graph, proposer_cost
from res_repro.reporting.tables import Table
from res_repro.res.scaling import LineageResult

WITHOUT_DEPENDENCIES = "w/o dependencies"
WITHOUT_INHERITANCE = "w/o inheritance"


def at_depth(lineage: LineageResult, depth: int) -> Task:
    """The lineage's environment at ``depth``, or its last one when it stopped earlier."""
    return lineage.nodes[min(depth, len(lineage.nodes) - 1)].task


def conditions(
    cfg: DictConfig, tasks: Sequence[Task], lineages: Sequence[LineageResult]
) -> dict[str, list[Task]]:
    """Every evaluated condition: depths 0..cap, then the two ablations."""
    found: dict[str, list[Task]] = {
        f"depth {d}": [at_depth(lineage, d) for lineage in lineages] for d in range(cfg.scaling.depth_cap + 1)
    }
    found[WITHOUT_DEPENDENCIES] = [without_dependencies_task(cfg, lineage) for lineage in lineages]
    rebuild = make_scaler(cfg, inheritance=False)
    rebuild.target = None  # matched planned depth: rebuild to the depth the full lineage reached
    found[WITHOUT_INHERITANCE] = [
        rebuild.scale(task, depth_cap=lineage.last.manifest.depth).last.task
        for task, lineage in zip(tasks, lineages, strict=True)
    ]
    return found


def build_depth_table(
    records: Mapping[tuple[str, str], Sequence[EpisodeRecord]],
    agents: Mapping[str, Agent],
    settings: MetricSettings,
    benchmark: str,
    failed: FailedAgents | None = None,
    target: str | None = None,
) -> tuple[Table, dict[str, float]]:
    """One row per condition; per agent its pass rate (with CI), mean turns and mean tool calls, or, for
    an agent of ``failed`` (every episode an infrastructure error), the failure in place of them. The
    agents are labelled as in every table: the scaling ``target`` and the agents whose kind fixes their
    outcomes on scaled environments, with the reasons in the notes (:func:`cells.agent_note`)."""
    confidence = settings.confidence
    columns = ["condition", "n"]
    for key in agents:
        columns += [f"{key} pass (%)", f"{key} {confidence:.0%} CI", f"{key} turns", f"{key} tool calls"]
    table = Table(title="RES by depth: scripted agents' pass rate and interaction demand", columns=columns)
    logged: dict[str, float] = {}
    names = list(dict.fromkeys(condition for _, condition in records))
    for condition in names:
        cells: list[object] = [condition, len(records[(next(iter(agents)), condition)])]
        for key in agents:
            if failed and key in failed.agents:
                cells += failed_row([], failed.errors.get((key, condition), 0), 4)
                continue
            mine = records[(key, condition)]
            rate = rate_with_ci(success_flags(mine, settings), confidence)
            turns, calls = fmean(r.turns for r in mine), fmean(r.tool_calls for r in mine)
            cells += [
                f"{100 * rate.value:.1f}",
                f"[{100 * rate.low:.1f}, {100 * rate.high:.1f}]",
                f"{turns:.1f}",
                f"{calls:.1f}",
            ]
            slug = condition.replace(" ", "_").replace("/", "")
            logged.update({**rate.as_metrics(f"{key}.{slug}.pass_rate"), f"{key}.{slug}.tool_calls": calls})
        table.add_row(*cells)
    table.notes = [
        agent_note(agents, target),
        f"Pass: {success_description(benchmark, settings)}.",
        "Depth d uses each seed's node at depth d, or its last node if its lineage stopped earlier.",
        f"'{WITHOUT_DEPENDENCIES}': the last environments with every composed change and the earlier "
        "changes it built on removed, the other changes applied again in order on E0. "
        f"'{WITHOUT_INHERITANCE}': every round extends E0 independently, to the same depth.",
    ]
    return table, logged


def run_res_depth(cfg: DictConfig) -> Table:
    """Scale, evaluate every agent under every condition, and report the depth table."""
    agents = configured_agents(cfg, cfg.agents)
    tasks = configured_tasks(cfg)
    lineages = build_lineages(cfg, tasks)
    found = conditions(cfg, tasks, lineages)
    requests = [
        EpisodeRequest(task, key, environment=condition)
        for key in agents
        for condition, tasks in found.items()
        for task in tasks
    ]
    flat = run_requests(cfg, requests, agents, lineages)
    records: dict[tuple[str, str], list[EpisodeRecord]] = {}
    for request, record in zip(requests, flat, strict=True):
        records.setdefault((request.agent, request.environment), []).append(record)
    settings = metric_settings(cfg)
    ran, failed = split_failed(agents, flat)
    table, metrics = build_depth_table(
        records, agents, settings, cfg.benchmark.name, failed, cfg.scaling.target
    )
    table.notes += [*lineage_notes(lineages), scaling_note(cfg)]
    episodes = write_episodes(flat, Path(cfg.paths.output_dir) / "episodes.jsonl")
    figures = depth_figures(cfg, records, ran, lineages, settings)
    publish(cfg, table, "res_depth", metrics, extra=[episodes], figures=figures)
    raise_for_failed_agents(flat)
    return table


def depth_figures(
    cfg: DictConfig,
    records: Mapping[tuple[str, str], Sequence[EpisodeRecord]],
    agents: Mapping[str, Agent],
    lineages: Sequence[LineageResult],
    settings: MetricSettings,
) -> dict[str, Figure]:
    """Historical means by budget with termination rates (as Figure 4), proposer cost (Figure 5) and
    the deepest lineage's graph (Figure 6)."""
    benchmark = cfg.benchmark.name
    budgets = range(cfg.scaling.depth_cap + 1)
    measures = {"pass rate (%)": lambda r: 100.0 * succeeded(r, settings), "turns": lambda r: r.turns}
    measures["tool calls"] = lambda r: r.tool_calls
    panels = {
        label: {
            agent_label(key, agent, cfg.scaling.target): {
                d: historical_values(
                    [
                        [float(measure(records[(key, f"depth {j}")][i])) for j in budgets]
                        for i in range(len(lineages))
                    ],
                    d,
                )
                for d in budgets
            }
            for key, agent in agents.items()
        }
        for label, measure in measures.items()
    }
    deepest = max(lineages, key=lambda lineage: lineage.last.manifest.depth).last.manifest
    families = {e.dependent: a.family for a in deepest.history for e in a.edges}
    figures = {
        f"depth_curves_{benchmark}": budget_curves(
            panels,
            title=f"{benchmark}: historical means by depth budget (lines: means, shading: IQR)",
            limits={"turns": cfg.agent_loop.max_turns},
            termination=termination_rates(list(lineages)),
        ),
        f"lineage_graph_{benchmark}": lineage_graph(
            deepest.graph, families, title=f"{deepest.seed_task_id} at depth {deepest.depth}"
        ),
    }
    costs = child_costs(lineages)
    if costs:
        figures[f"proposer_cost_{benchmark}"] = proposer_cost(
            costs,
            title=f"{benchmark}: proposer cost per child",
            timed=model_proposer(cfg),
        )
    return figures
