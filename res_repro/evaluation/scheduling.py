"""Admission of episode jobs to an executor: at most ``slots`` running at once, and at most N per limited
key.

The driver decides what runs, whatever the executor: a job is submitted only when the executor has a free
slot (or a free place in its queue, for an executor that starts queued jobs by itself as slots free up)
and every key it counts against (its model, its sandbox backend) is under its limit, so the limits hold
for threads and for Ray tasks alike, and no worker sits blocked on a semaphore. A queued job counts
against its limits from submission on, so a cap is never exceeded. Jobs start in the order given among
those that may start; results come back in completion order.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from res_repro.errors import UserInputError
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.jobs import EpisodeJob

if TYPE_CHECKING:
    from res_repro.evaluation.executor_base import Executor


def model_key(agent: str) -> str:
    """The limit key of every episode of the agent (model) named ``agent``."""
    return f"model:{agent}"


def sandbox_key(backend: str) -> str:
    """The limit key of every episode in the sandbox backend ``backend``."""
    return f"sandbox:{backend}"


@dataclass
class ConcurrencyLimits:
    """Per-key caps on episodes running at once; a key without a cap is unbounded."""

    caps: Mapping[str, int] = field(default_factory=dict)
    running: Counter[str] = field(default_factory=Counter)

    @classmethod
    def from_settings(
        cls, models: Mapping[str, int | None], sandboxes: Mapping[str, int | None]
    ) -> ConcurrencyLimits:
        """Caps from ``models.<key>.max_concurrency`` and ``sandbox.max_concurrency`` (None: unbounded)."""
        caps: dict[str, int] = {}
        fields = (
            (models, model_key, "models.{}.max_concurrency"),
            (sandboxes, sandbox_key, "sandbox.max_concurrency"),
        )
        for names, key, field_name in fields:
            for name, cap in names.items():
                if cap is None:
                    continue
                if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
                    raise UserInputError(
                        f"{field_name.format(name)}: expected a positive integer or null, got {cap!r}"
                    )
                caps[key(name)] = cap
        return cls(caps)

    def keys(self, agent: str, backend: str) -> tuple[str, ...]:
        """The capped keys an episode of ``agent`` in ``backend`` counts against."""
        return tuple(key for key in (model_key(agent), sandbox_key(backend)) if key in self.caps)

    def admits(self, keys: Iterable[str]) -> bool:
        """True when one more episode counting against ``keys`` stays within every cap."""
        return all(self.running[key] < self.caps[key] for key in keys)

    def acquire(self, keys: Iterable[str]) -> None:
        """Count an episode as running."""
        self.running.update(keys)

    def release(self, keys: Iterable[str]) -> None:
        """Count an episode as finished."""
        self.running.subtract(keys)


def stream(
    executor: Executor, jobs: Iterable[EpisodeJob], limits: ConcurrencyLimits
) -> Iterator[tuple[EpisodeJob, EpisodeRecord]]:
    """Run ``jobs`` on ``executor`` within its slots, its queue and ``limits``; yield each result as it
    finishes."""
    queues: dict[tuple[str, ...], deque[tuple[int, EpisodeJob]]] = {}
    for position, job in enumerate(jobs):  # one queue per combination of keys: admission looks at heads
        queues.setdefault(job.keys, deque()).append((position, job))
    running: dict[object, EpisodeJob] = {}
    while queues or running:
        while len(running) < executor.slots + executor.queued:
            ready = [queue for keys, queue in queues.items() if limits.admits(keys)]
            if not ready:
                break
            _, job = min(ready, key=lambda queue: queue[0][0]).popleft()
            if not queues[job.keys]:
                del queues[job.keys]
            limits.acquire(job.keys)
            running[executor.submit(job)] = job
        for handle in executor.wait(list(running)):
            job = running.pop(handle)
            limits.release(job.keys)
            yield job, executor.result(handle)
