"""Trajectory collection for Table 2: teachers on original and on RES environments, at equal counts.

The *original* condition holds each seed task's released environment (depth 0); the *RES* condition
holds every accepted environment of its lineage at depth >= 1. Trainable trajectories (see
:func:`res_repro.sft.export.trainable`) of each condition form a pool; both pools are downsampled with a
seeded generator to the same count, so the two fine-tuning runs see the same number of samples.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from res_repro.errors import UserInputError
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.metrics import MetricSettings
from res_repro.evaluation.runner import EpisodeRequest
from res_repro.res.scaling import LineageResult
from res_repro.sft.export import trainable

ORIGINAL, RES = "original", "res"
CONDITIONS = (ORIGINAL, RES)


def collection_requests(
    lineages: Sequence[LineageResult], teachers: Sequence[str]
) -> dict[str, list[EpisodeRequest]]:
    """Per condition, one episode per teacher and environment: depth 0 is original, depth >= 1 is RES."""
    requests: dict[str, list[EpisodeRequest]] = {condition: [] for condition in CONDITIONS}
    for teacher in teachers:
        for lineage in lineages:
            root, *scaled = lineage.nodes
            requests[ORIGINAL].append(
                EpisodeRequest(root.task, teacher, ORIGINAL, root.place, role="teacher")
            )
            requests[RES] += [
                EpisodeRequest(
                    node.task, teacher, f"{RES}-depth-{node.manifest.depth}", node.place, role="teacher"
                )
                for node in scaled
            ]
    return requests


def split_by_condition(
    records: Sequence[EpisodeRecord], requests: Mapping[str, Sequence[EpisodeRequest]]
) -> dict[str, list[EpisodeRecord]]:
    """Cut records that were run in the order of ``requests`` (condition by condition) back apart."""
    split: dict[str, list[EpisodeRecord]] = {}
    start = 0
    for condition, condition_requests in requests.items():
        split[condition] = list(records[start : start + len(condition_requests)])
        start += len(condition_requests)
    return split


def trainable_pools(
    records: Mapping[str, Sequence[EpisodeRecord]],
    *,
    only_passed: bool,
    include_scripted: bool,
    settings: MetricSettings | None = None,
) -> dict[str, list[EpisodeRecord]]:
    """Per condition, the records worth training on (passed under ``settings``, when ``only_passed``)."""
    return {
        condition: [
            r
            for r in mine
            if trainable(r, only_passed=only_passed, include_scripted=include_scripted, settings=settings)
        ]
        for condition, mine in records.items()
    }


def balance(
    pools: Mapping[str, Sequence[EpisodeRecord]], per_condition: int | None, seed: int
) -> dict[str, list[EpisodeRecord]]:
    """Downsample every pool to the same count (``per_condition``, else the smallest pool's size).

    Each condition draws from its own generator seeded by ``seed`` and the condition's name, over its
    pool sorted by episode id, so the choice does not depend on the order the episodes finished in.
    """
    smallest = min(len(pool) for pool in pools.values())
    if smallest == 0:
        empty = [condition for condition, pool in pools.items() if not pool]
        raise UserInputError(
            f"sft.collection.teachers: no trainable trajectory in condition(s) {empty}; expected teachers "
            "that pass some tasks there (or sft.collection.only_passed=false)"
        )
    count = smallest if per_condition is None else per_condition
    if not 0 < count <= smallest:
        raise UserInputError(
            f"sft.collection.per_condition: expected 1..{smallest} (the smaller pool), got {per_condition}"
        )
    return {
        condition: random.Random(f"{seed}-{condition}").sample(
            sorted(pool, key=lambda r: r.episode_id), count
        )
        for condition, pool in pools.items()
    }


@dataclass(frozen=True)
class CollectionSummary:
    """What one condition's training set holds."""

    count: int
    pool: int  # trainable trajectories before downsampling
    teachers: dict[str, int]  # agent -> trajectories
    scripted: dict[str, bool]  # agent -> scripted or not
    mean_turns: float
    mean_tool_calls: float

    @property
    def sources(self) -> str:
        """The teachers for a table cell, each labelled scripted or model, with its count."""
        return ", ".join(
            f"{agent} ({'scripted' if self.scripted[agent] else 'model'}) x{n}"
            for agent, n in sorted(self.teachers.items())
        )


def summarise(selected: Sequence[EpisodeRecord], pool: int) -> CollectionSummary:
    """Counts, sources and mean effort of a selected training set."""
    n = len(selected)
    return CollectionSummary(
        count=n,
        pool=pool,
        teachers=dict(Counter(r.agent for r in selected)),
        scripted={r.agent: r.scripted for r in selected},
        mean_turns=sum(r.turns for r in selected) / n if n else 0.0,
        mean_tool_calls=sum(r.tool_calls for r in selected) / n if n else 0.0,
    )
