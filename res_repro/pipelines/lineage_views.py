"""Views of the lineage manifests shared by results: proposer cost per accepted child (Table A2, Figure 5,
the depth study) and termination rates by depth (Figure 4, the depth study)."""

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
