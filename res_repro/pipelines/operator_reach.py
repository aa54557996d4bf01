"""Where each operator applies: for every task of a benchmark, whether the operator proposes a change to
the task's original environment (``res-repro operators TARGET``).

An operator applies when its ``propose`` returns parameters for a draft of the unchanged task, with an
empty dependency graph and a fixed seed. That is where it can act; whether the change is accepted is
decided later by the checks (the reference passes, the parent's reference fails, ...).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from res_repro.env.formats import format_of
from res_repro.env.task import Task
from res_repro.reporting.tables import Table
from res_repro.res.graph import DependencyGraph
from res_repro.res.operators import OPERATORS, Operator

SEED = 0  # the proposals are seeded: an operator that draws a target and finds it unsuitable may answer
# differently with another seed, so the counts are those of this seed


@dataclass(frozen=True)
class Reach:
    """How many tasks of each kind there were, and how many of them each operator applies to."""

    tasks: Counter[str]  # by kind of draft ("tool", "harbor")
    applies: dict[str, int]  # by operator name

    def table(self) -> Table:
        """One row per operator whose kind of task was present: its family and the tasks it applies to."""
        rows = [
            [op.name, op.family.value, op.kind, f"{self.applies[op.name]} / {self.tasks[op.kind]}"]
            for op in OPERATORS.values()
            if self.tasks[op.kind]
        ]
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(self.tasks.items()))
        return Table(
            title="Where each operator applies",
            columns=["operator", "family", "kind", "applies to"],
            rows=rows,
            notes=[
                f"Tasks: {counts or 'none'}. An operator applies when it proposes a change to the task's "
                "original environment; the checks decide later whether that change is accepted."
            ],
        )


def _applies(operator: Operator, task: Task) -> bool:
    draft = format_of(task).draft(task.path)
    return operator.propose(draft, DependencyGraph(), random.Random(SEED)) is not None


def operator_reach(tasks: Iterable[Task]) -> Reach:
    """For each operator, the number of ``tasks`` whose original environment it would change."""
    kinds: Counter[str] = Counter()
    applies = dict.fromkeys(OPERATORS, 0)
    for task in tasks:
        kind = format_of(task).draft(task.path).kind
        kinds[kind] += 1
        for operator in OPERATORS.values():
            if operator.kind == kind and _applies(operator, task):
                applies[operator.name] += 1
    return Reach(kinds, applies)
