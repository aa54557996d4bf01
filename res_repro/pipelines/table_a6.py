"""Table A6: execution cost per ablation condition: turns, tool calls, tokens, relative tokens, seconds.

Task means over the slice, including failed and turn-limited attempts. Tokens sum model input and output;
scripted agents call no model, so their tokens (and relative tokens) are not applicable.
"""

from __future__ import annotations

from statistics import fmean

from omegaconf import DictConfig

from res_repro.pipelines.ablations import (
    CONTROLS,
    LABELS,
    AblationRecords,
    ablation_records,
    write_ablation_episodes,
)
from res_repro.pipelines.cells import (
    BOOTSTRAP_TEST,
    NOT_RUN,
    agent_label,
    agent_note,
    bootstrap_cell,
    mean_cells,
    metric_settings,
    paper_cell,
    scaling_note,
)
from res_repro.pipelines.paper import paper_values
from res_repro.pipelines.reevaluation import tokens
from res_repro.pipelines.reporting import publish, raise_for_failed_agents
from res_repro.reporting.tables import Table


def _token_cells(data: AblationRecords, key: str, condition: str) -> list[str]:
    """Mean tokens (k) and tokens relative to Original, or 'not applicable' for a scripted agent."""
    if data.agents[key].scripted:
        return [NOT_RUN, NOT_RUN]
    mean = fmean(tokens(r) for r in data.records[(key, condition)])
    base = fmean(tokens(r) for r in data.records[(key, "original")])
    return [f"{mean / 1000:.2f}", f"{mean / base:.2f}" if base else ""]


def build_table_a6(cfg: DictConfig, data: AblationRecords) -> tuple[Table, dict[str, float]]:
    """Rows per (agent, condition): cost means with intervals, paired p of tool calls vs the control."""
    settings = metric_settings(cfg)
    ci = f"{settings.confidence:.0%} CI"
    columns = ["agent", "condition", "n", "turns", ci, "tool calls", ci, "bootstrap p (tool calls)"]
    columns += ["tokens (k)", "relative tokens (x)", "wall seconds"]
    columns += ["paper turns", "paper tool calls", "paper tokens (k)", "paper relative tokens"]
    table = Table(title=f"Table A6: target execution cost ({cfg.benchmark.name})", columns=columns)
    reported = {row["condition"]: row for row in paper_values()["table_a6_execution_cost"]}
    logged: dict[str, float] = {}
    for key in data.agents:
        for condition in data.conditions:
            records = data.records[(key, condition)]
            calls = [float(r.tool_calls) for r in records]
            control = data.records.get((key, CONTROLS.get(condition, "")))
            paper = reported.get(condition)
            table.add_row(
                agent_label(key, data.agents[key], cfg.scaling.target),
                LABELS[condition],
                len(records),
                *mean_cells([float(r.turns) for r in records], settings.confidence),
                *mean_cells(calls, settings.confidence),
                bootstrap_cell([float(r.tool_calls) for r in control] if control else None, calls, settings),
                *_token_cells(data, key, condition),
                f"{fmean(r.wall_seconds for r in records):.3f}",
                paper_cell(paper, "turns"),
                paper_cell(paper, "tool_calls"),
                paper_cell(paper, "tokens_k"),
                paper_cell(paper, "relative_tokens"),
            )
            logged[f"{key}.{condition}.tool_calls"] = fmean(calls)
            logged[f"{key}.{condition}.wall_seconds"] = fmean(r.wall_seconds for r in records)
    data.failed.add_rows(
        table,
        data.conditions,
        lambda key, agent, condition: [agent_label(key, agent, cfg.scaling.target), LABELS[condition], 0],
    )
    table.notes = [
        agent_note(data.agents, cfg.scaling.target),
        scaling_note(cfg),
        f"Tokens: '{NOT_RUN}' because scripted agents call no model; the paper's tokens are DeepSeek's "
        "input plus output. Wall seconds: mean episode wall time on this machine (sandbox included).",
        f"Bootstrap p: mean tool calls against the condition's control, {BOOTSTRAP_TEST} (Original for "
        "Saved and Rebuilt RES; Saved RES for w/o dependencies; Rebuilt RES for the other two).",
        "Scripted agents make one tool call per turn, so their turns equal their tool calls; the paper's "
        "model makes several calls per turn.",
    ]
    return table, logged


def run_table_a6(cfg: DictConfig) -> Table:
    """Compute (or reuse) the ablation records and publish Table A6."""
    data = ablation_records(cfg)
    table, metrics = build_table_a6(cfg, data)
    publish(cfg, table, "table_a6", metrics, extra=[write_ablation_episodes(cfg, data)])
    raise_for_failed_agents(data.episodes)
    return table
