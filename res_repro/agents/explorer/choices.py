"""The explorer's seeded choices: the order in which it tries alternatives that are equally plausible.

An explorer is a program, so without a seed its every attempt at an environment is the same. Where the
plan and the tool results leave it more than one reasonable next move (which of two hints to follow
first, which note or policy to read first), the episode's seed picks the order, so attempts with
different seeds can take different paths while each stays exactly reproducible for its seed.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")


class Choices:
    """One episode's seeded order of alternatives."""

    def __init__(self, seed: str) -> None:
        self._rng = random.Random(seed)

    def order(self, alternatives: Iterable[T]) -> list[T]:
        """The alternatives in this episode's order (a seeded shuffle; one or none stay as they are)."""
        items = list(alternatives)
        if len(items) > 1:
            self._rng.shuffle(items)
        return items
