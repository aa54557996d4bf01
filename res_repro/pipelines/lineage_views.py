"""Views of the lineage manifests shared by results: proposer cost per accepted child (Table A2, Figure 5,
the depth study), termination rates by depth (Figure 4, the depth study) and the seeds that grew no valid
child (a note of every table over the lineages)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from omegaconf import DictConfig

from res_repro.res.scaling import INCOMPLETE, PROPOSER_FAILED, LineageResult


def child_costs(lineages: Sequence[LineageResult]) -> list[dict[str, Any]]:
    """The proposer cost of every accepted child (every node below the root), with its depth."""
    return [
        {**node.manifest.proposer, "depth": node.manifest.depth}
        for lineage in lineages
        for node in lineage.nodes[1:]
    ]


def model_proposer(cfg: DictConfig) -> bool:
    """Whether a model proposes the children (its time is a cost worth plotting; a programmatic
    proposer's is sub-millisecond noise)."""
    return cfg.scaling.proposer.kind == "llm"


def termination_rates(lineages: Sequence[LineageResult]) -> dict[str, dict[int, float]]:
    """Per stop reason, the share of chains reaching depth d that stop there."""
    depths = [lineage.last.manifest.depth for lineage in lineages]
    rates: dict[str, dict[int, float]] = {}
    for lineage, depth in zip(lineages, depths, strict=True):
        reached = sum(d >= depth for d in depths)
        by_depth = rates.setdefault(lineage.stop_reason, {})
        by_depth[depth] = by_depth.get(depth, 0.0) + 1 / reached
    return rates


def childless_seeds(lineages: Sequence[LineageResult]) -> list[tuple[str, str]]:
    """(seed task id, why) of each seed that grew no valid child: every seed grows its depth-1 child
    before the stopping rule is consulted, so only the checks, a proposer with nothing to apply or no valid
    proposal, or a proposer that failed leave a seed without one."""
    return [
        (lineage.seed_task_id, lineage.why or "no reason recorded")
        for lineage in lineages
        if lineage.stop_reason in ("no_valid_child", PROPOSER_FAILED) and len(lineage.nodes) == 1
    ]


def incomplete_lineages(lineages: Sequence[LineageResult]) -> list[tuple[str, int, str]]:
    """(seed task id, depth reached, why) of each lineage that stopped past depth 0 because the proposer
    or the scaling target could not be run (infrastructure failures: the next run goes on from there)."""
    return [
        (lineage.seed_task_id, lineage.last.manifest.depth, lineage.why)
        for lineage in lineages
        if lineage.stop_reason in INCOMPLETE and len(lineage.nodes) > 1
    ]


def incomplete_note(lineages: Sequence[LineageResult]) -> str | None:
    """The note naming :func:`incomplete_lineages`, or None."""
    found = incomplete_lineages(lineages)
    if not found:
        return None
    named = "; ".join(f"{seed} (stopped at depth {depth}: {why})" for seed, depth, why in found)
    return (
        f"{len(found)} lineage(s) are incomplete: the proposer or the scaling target could not be run (an "
        "infrastructure failure, not a verdict); their +RES environment is the last accepted one and a "
        f"rerun goes on: {named}."
    )


def proposer_totals(lineages: Sequence[LineageResult]) -> dict[str, float]:
    """Every proposer call the lineages cost, accepted or not: summed over the accepted children's costs
    and the costs of the depths where none was accepted, with the accepted children counted."""
    accepted = child_costs(lineages)
    costs = [*accepted, *(lineage.unaccepted.get("proposer", {}) for lineage in lineages)]
    totals = {key: float(sum(cost.get(key, 0) for cost in costs)) for key in COST_KEYS}
    totals["accepted_children"] = float(len(accepted))
    return totals


COST_KEYS = (
    "executions",
    "requests",
    "cache_hits",
    "input_tokens",
    "output_tokens",
    "cached_tokens",
    "seconds",
)


def proposer_line(totals: dict[str, float]) -> str:
    """:func:`proposer_totals` in one line."""
    children = int(totals["accepted_children"])
    tokens = totals["input_tokens"] + totals["output_tokens"]
    per_child = (
        f"{tokens / children / 1000:.1f}k tokens per accepted child" if children else "no child accepted"
    )
    requests, cached = int(totals["requests"]), int(totals["cache_hits"])
    tokens_in, tokens_out = totals["input_tokens"] / 1000, totals["output_tokens"] / 1000
    return (
        f"proposer: {requests} requests ({cached} answered from the response cache), {tokens_in:.1f}k input "
        f"and {tokens_out:.1f}k output tokens, {totals['seconds']:.1f} s, {children} accepted children: "
        f"{per_child}"
    )


def childless_note(seeds: Sequence[tuple[str, str]], total: int) -> str | None:
    """The note naming the seeds of :func:`childless_seeds` (out of ``total``) and why each has no child, or
    None when every seed grew one."""
    if not seeds:
        return None
    named = "; ".join(f"{seed} ({why})" for seed, why in seeds)
    return (
        f"{len(seeds)} of {total} seed task(s) are unscaled: they grew no valid child (within the revision "
        f'budget, or the proposer failed), so their "+RES" environment is the original: {named}.'
    )


def lineage_notes(lineages: Sequence[LineageResult]) -> list[str]:
    """The notes a table over ``lineages`` carries about them (empty when there is nothing to say)."""
    notes = [childless_note(childless_seeds(lineages), len(lineages)), incomplete_note(lineages)]
    return [note for note in notes if note]
