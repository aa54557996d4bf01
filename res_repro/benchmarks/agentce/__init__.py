"""AgentCE-style suite: fill the hidden slots of a week's meeting grid, with horizon H and decoy budget B.

Each task shows a schedule of days x periods x rooms with H hidden cells. Every hidden slot has
candidate meetings, found only through tools answered from static JSON fixtures; local rules (room,
availability, length) must be checked per slot from the room, person and meeting records, and global
rules (no meeting twice, no double booking, a daily cap, precedence) across the whole week. B decoys in
all fit their slots locally but break a global rule. Exactly one assignment keeps every rule; the score
is the share of slots filled right. Parameters: ``H`` (1-12), ``B`` (0-3H), ``instances``, ``seed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from res_repro.benchmarks.agentce.generator import generate
from res_repro.benchmarks.agentce.settings import Settings
from res_repro.benchmarks.generated import materialize
from res_repro.env.task import Task

SOURCES = tuple(sorted(Path(__file__).resolve().parent.glob("*.py")))


def load_agentce(params: Mapping[str, Any], generated_dir: Path) -> list[Task]:
    """Generate (once per parameter set and source version) and load the suite's tasks."""
    settings = Settings.from_params(params)
    return materialize(
        "agentce",
        lambda: generate(settings),
        sources=SOURCES,
        params=settings.as_params(),
        root=generated_dir,
    )
