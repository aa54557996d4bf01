"""Views of the lineage manifests shared by results: proposer cost per accepted child (Table A2, Figure 5,
the depth study), termination rates by depth (Figure 4, the depth study) and the seeds that grew no valid
child (a note of every table over the lineages)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from omegaconf import DictConfig

from res_repro.res.scaling import LineageResult


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
    before the stopping rule is consulted, so only the checks (or a proposer with nothing to apply) leave a
    seed without one."""
    return [
        (lineage.seed_task_id, lineage.why or "no reason recorded")
        for lineage in lineages
        if lineage.stop_reason == "no_valid_child" and len(lineage.nodes) == 1
    ]


def childless_note(seeds: Sequence[tuple[str, str]], total: int) -> str | None:
    """The note naming the seeds of :func:`childless_seeds` (out of ``total``) and why each has no child, or
    None when every seed grew one."""
    if not seeds:
        return None
    named = "; ".join(f"{seed} ({why})" for seed, why in seeds)
    return (
        f"{len(seeds)} of {total} seed task(s) grew no valid child within the revision budget, so their last "
        f"accepted environment is the original: {named}."
    )


def lineage_notes(lineages: Sequence[LineageResult]) -> list[str]:
    """The notes a table over ``lineages`` carries about them (empty when there is nothing to say)."""
    note = childless_note(childless_seeds(lineages), len(lineages))
    return [note] if note else []
