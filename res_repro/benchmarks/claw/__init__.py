"""claw_bundled: Claw-style workflows over mock enterprise services, generated from seeded task families.

Each family (financial reconciliation, expense audit, CRM follow-up, ...) turns a seeded RNG into a
tool-API task: fixtures for its services, declared tools, a reference program that derives the answer
through the tools, and a grader whose expected values the generator computed from the fixtures.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from res_repro.benchmarks.claw.families import FAMILIES
from res_repro.benchmarks.generated import ToolTaskDraft, materialize
from res_repro.env.task import Task

NAME = "claw_bundled"
PACKAGE_DIR = Path(__file__).resolve().parent


def drafts(tasks_per_family: int, seed: int) -> Iterator[ToolTaskDraft]:
    """Every task of the suite, family by family, each from its own seeded RNG."""
    for family, generate in FAMILIES.items():
        for index in range(tasks_per_family):
            yield generate(random.Random(f"{seed}-{family}-{index}"), index)


def sources() -> list[Path]:
    """The files whose contents define the suite: every Python file of this package, templates included."""
    return sorted(PACKAGE_DIR.rglob("*.py"))


def load_claw_bundled(params: Mapping[str, Any], generated_dir: Path) -> list[Task]:
    """Generate the suite once under ``generated_dir`` and load it.

    ``params`` may set ``tasks_per_family`` (default 5) and ``seed`` (default 0); others are ignored.
    """
    tasks_per_family = int(params.get("tasks_per_family", 5))
    seed = int(params.get("seed", 0))
    return materialize(
        NAME,
        lambda: drafts(tasks_per_family, seed),
        sources=sources(),
        params={"tasks_per_family": tasks_per_family, "seed": seed},
        root=generated_dir,
    )
