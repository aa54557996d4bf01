"""Cost before spending and after: a dry run's projected requests, tokens and dollars per model, and a
real run's actual usage.

A dry run counts what a pipeline's own planning would request (its plan function builds the same episode
requests as the run) and sends nothing. The projection is an upper bound by construction: every planned
episode runs to its turn limit (``agent_loop.max_turns``; ``scaling.target_max_turns`` for the scaling
target), scaling reaches the depth cap, and every revision is used (each LLM proposer revision using
its request budget: ``max_turns`` when agentic, its invalid replies sent back when single). Tokens per
request are the ``cost_estimate`` config's stated means.
Episodes already in the cache would be reused at no cost; the projection counts them anyway.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig

from res_repro.evaluation.cost import TokenUsage, cost_lines, cost_metrics, usage_by_model
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.runner import EpisodeRequest
from res_repro.pipelines.lineages import plain


@dataclass(frozen=True)
class DryRunPlan:
    """What a pipeline would run: its evaluation episodes and how many seed tasks it scales."""

    requests: Sequence[EpisodeRequest]
    scaled_seeds: int


def _episodes(cfg: DictConfig, episodes: int, turns: int) -> TokenUsage:
    estimate = cfg.cost_estimate
    requests = episodes * turns
    return TokenUsage(
        episodes,
        requests,
        requests * estimate.input_tokens_per_turn,
        requests * estimate.output_tokens_per_turn,
    )


def projected_usage(cfg: DictConfig, plan: DryRunPlan) -> dict[str, TokenUsage]:
    """Per model (keys of ``models``): the planned episodes, requests and tokens (see the module's note)."""
    models, scaling = cfg.models, cfg.scaling
    totals: dict[str, TokenUsage] = {}

    def add(model: str | None, usage: TokenUsage) -> None:
        if model in models:
            totals.setdefault(str(model), TokenUsage()).add(usage)

    for request in plan.requests:
        add(request.agent, _episodes(cfg, 1, cfg.agent_loop.max_turns))
    seeds, depth = plan.scaled_seeds, scaling.depth_cap
    candidates = seeds * depth * (scaling.max_revisions + 1)  # children tried, at most
    if scaling.target:
        nodes = seeds * (depth + 1) * scaling.target_attempts
        add(scaling.target, _episodes(cfg, nodes, scaling.target_max_turns))
    if scaling.proposer.kind == "llm":
        proposer = scaling.proposer
        per_revision = proposer.max_turns if proposer.mode == "agentic" else proposer.max_invalid_replies + 1
        calls = candidates * per_revision
        estimate = cfg.cost_estimate
        usage = TokenUsage(
            0, calls, calls * estimate.proposer_input_tokens, calls * estimate.proposer_output_tokens
        )
        add(scaling.proposer.model, usage)
    admission = scaling.admission
    if admission.kind != "none":
        solver = admission.solver or scaling.target
        add(solver, _episodes(cfg, candidates * admission.widened_rollouts, cfg.agent_loop.max_turns))
    return totals


def dry_run(cfg: DictConfig, plan: DryRunPlan) -> dict[str, TokenUsage]:
    """Print the projection per model and the method behind it; run nothing."""
    usage = projected_usage(cfg, plan)
    models = plain(cfg.models)
    estimate = cfg.cost_estimate
    print(f"dry run of {cfg.task_name}: nothing was sent to any model")
    print(
        f"planned: {len(plan.requests)} evaluation episodes, {plan.scaled_seeds} seed tasks scaled to depth "
        f"{cfg.scaling.depth_cap} at most"
    )
    print(
        "method: upper bound; every episode runs to its turn limit, every revision is used; "
        f"{estimate.input_tokens_per_turn} input and {estimate.output_tokens_per_turn} output tokens per "
        f"agent turn, {estimate.proposer_input_tokens} and {estimate.proposer_output_tokens} per proposer "
        "call (cost_estimate); cached episodes would cost nothing"
    )
    for line in cost_lines(usage, models) or ["no model is planned: scripted agents cost nothing"]:
        print(f"  {line}")
    return usage


def report_usage(cfg: DictConfig, records: Sequence[EpisodeRecord]) -> dict[str, float]:
    """Print the tokens and cost per model of ``records`` and return them as MLflow metrics."""
    models: Mapping[str, Any] = plain(cfg.models)
    usage = usage_by_model(records, models)
    if usage:
        print("model usage of these episodes (episodes reused from the cache cost nothing again):")
        for line in cost_lines(usage, models):
            print(f"  {line}")
    return cost_metrics(usage, models)
