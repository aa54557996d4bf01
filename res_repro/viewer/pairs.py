"""Paired episodes: one agent on one task in the original environment and in a scaled one (``+RES`` in
Table 1), aligned turn by turn, with the first divergence and the RES changes the scaled run met."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from itertools import zip_longest
from typing import Any

from res_repro.viewer.changes import Change, changes_behind, meetings
from res_repro.viewer.trajectory import Turn, episode_turns, first_divergence

ORIGINAL = "original"  # the environment every other one is paired with


def page_id(*parts: str) -> str:
    """A page's file name for the given key (agent, task, environment...)."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12]


@dataclass
class Pair:
    """One agent on one task: its episode on the original environment and on a scaled one."""

    original: dict[str, Any]
    scaled: dict[str, Any]
    changes: list[Change] = field(default_factory=list)  # behind the scaled environment, oldest first

    @property
    def id(self) -> str:
        """The paired page's file name."""
        return page_id(self.scaled["agent"], self.scaled["task_id"], self.scaled["environment"])

    @cached_property
    def original_turns(self) -> list[Turn]:
        """The original run's turns."""
        return episode_turns(self.original.get("messages") or [])[1]

    @cached_property
    def scaled_turns(self) -> list[Turn]:
        """The scaled run's turns."""
        return episode_turns(self.scaled.get("messages") or [])[1]

    @property
    def rows(self) -> list[tuple[int, Turn | None, Turn | None]]:
        """``(turn number, original turn, scaled turn)`` aligned by number."""
        aligned = zip_longest(self.original_turns, self.scaled_turns)
        return [(n, a, b) for n, (a, b) in enumerate(aligned, start=1)]

    @cached_property
    def divergence(self) -> int | None:
        """The first turn where the two trajectories differ (None: they never do)."""
        return first_divergence(self.original_turns, self.scaled_turns)

    @cached_property
    def met(self) -> dict[int, list[Change]]:
        """The changes the scaled run met, by the turn that first met each."""
        return meetings(self.scaled_turns, self.changes)

    def met_at(self, change: Change) -> int | None:
        """The turn at which the scaled run first met ``change`` (None: never)."""
        return next((number for number, found in self.met.items() if change in found), None)

    @property
    def prompts(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
        """The messages each run started from, when they differ (None when they are the same)."""
        original = episode_turns(self.original.get("messages") or [])[0]
        scaled = episode_turns(self.scaled.get("messages") or [])[0]
        return None if original == scaled else (original, scaled)


def pairs(episodes: list[dict[str, Any]], manifests: dict[str, list[dict[str, Any]]]) -> list[Pair]:
    """Every (agent, task, scaled environment) with an episode there and one on the original environment
    (the first of each, in record order), with the changes behind the scaled environment's lineage node
    (``manifests``: the shown manifests by seed)."""
    first: dict[tuple[str, str, str], dict[str, Any]] = {}
    for episode in episodes:
        first.setdefault((episode["agent"], episode["task_id"], episode["environment"]), episode)
    found = []
    for (agent, task, environment), scaled in first.items():
        original = first.get((agent, task, ORIGINAL))
        if environment == ORIGINAL or original is None:
            continue
        seed, node = scaled.get("seed_task_id"), scaled.get("node_id")
        changes = changes_behind(manifests.get(seed, []), node) if seed and node else []
        found.append(Pair(original, scaled, changes))
    return found
