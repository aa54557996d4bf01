"""Test agents: one that only waits, logging when it ran, so tests can count how many episodes
overlapped; one that fails at once.

Each episode writes one ``start end`` line (wall-clock seconds) to its own file under a shared folder,
so threads and Ray worker processes on this machine can all be counted.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

from res_repro.agents.base import Agent, Attempt
from res_repro.env.outcome import AgentOutcome, StopReason
from res_repro.env.task import Task


class IntervalAgent(Agent):
    """Waits ``seconds`` inside every episode and records the interval under ``log_dir``.

    It waits in short slices: a cancelled Ray task gets its KeyboardInterrupt between two slices (Ray
    interrupts Python code, not a blocking sleep), as an agent's loop would between two steps.
    """

    def __init__(self, name: str, log_dir: Path, seconds: float) -> None:
        self.name = name
        self.log_dir = log_dir
        self.seconds = seconds

    def run(self, task: Task, environment: Any, attempt: Attempt) -> AgentOutcome:
        """Wait, log the interval, answer nothing."""
        started = time.time()
        while (left := started + self.seconds - time.time()) > 0:
            time.sleep(min(left, 0.05))
        (self.log_dir / f"{uuid.uuid4().hex}.txt").write_text(f"{started} {time.time()}")
        return AgentOutcome(StopReason.ANSWERED, answer="")


class RaisingAgent(Agent):
    """Raises inside every episode (a bug in an agent, not an infrastructure failure)."""

    name = "raising"

    def run(self, task: Task, environment: Any, attempt: Attempt) -> AgentOutcome:
        """Fail."""
        raise RuntimeError("this agent always fails")


def max_overlap(log_dir: Path) -> int:
    """The largest number of logged intervals that were running at the same instant."""
    events: list[tuple[float, int]] = []
    for path in log_dir.glob("*.txt"):
        start, end = map(float, path.read_text().split())
        events += [(start, 1), (end, -1)]
    running = peak = 0
    for _, step in sorted(events):  # at a tie, an end (-1) sorts before a start
        running += step
        peak = max(peak, running)
    return peak
