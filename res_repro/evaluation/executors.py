"""Executors run episode jobs: ``local`` (a thread pool in this process) or ``ray`` (tasks on a Ray cluster).

The registry maps ``executor.name`` to a factory; the interface is in
:mod:`res_repro.evaluation.executor_base`, so imports go one way (this module -> ray_executor -> base). An
executor only submits, waits and collects; what to submit and when is decided on the driver by
:func:`res_repro.evaluation.scheduling.stream`, which also stores every record as it arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from res_repro.agents.base import Agent
from res_repro.errors import UserInputError
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.executor_base import Executor
from res_repro.evaluation.jobs import AgentRecipe, EpisodeJob, run_job
from res_repro.evaluation.ray_executor import RayExecutor  # imports nothing of Ray until started


class LocalExecutor(Executor):
    """Episodes in a pool of ``workers`` threads in this process (sandboxes are separate processes).

    One job per thread waits in the pool's queue, so a thread that finishes an episode starts the next
    at once instead of waiting for the driver to record the last one and hand over another.
    """

    def __init__(self, workers: int = 1) -> None:
        self.slots = max(1, workers)
        self.queued = self.slots
        self._agents: Mapping[str, Agent] = {}
        self._pool: ThreadPoolExecutor | None = None

    @classmethod
    def from_settings(
        cls, settings: Mapping[str, Any], *, workers: int, recipes: Mapping[str, AgentRecipe]
    ) -> LocalExecutor:
        """The local executor; it needs neither settings nor recipes (agents are used as they are)."""
        return cls(workers)

    def start(self, agents: Mapping[str, Agent]) -> LocalExecutor:
        """Open the thread pool."""
        self._agents = agents
        self._pool = ThreadPoolExecutor(max_workers=self.slots, thread_name_prefix="episode")
        return self

    def submit(self, job: EpisodeJob) -> Future[EpisodeRecord]:
        """Run ``job`` on a pool thread."""
        assert self._pool is not None, "start() first"
        return self._pool.submit(run_job, job, self._agents[job.request.agent])

    def wait(self, handles: list[Any]) -> list[Any]:
        """The futures that have finished (at least one)."""
        done, _ = wait(handles, return_when=FIRST_COMPLETED)
        return list(done)

    def result(self, handle: Any) -> EpisodeRecord:
        """The future's record."""
        return handle.result()

    def close(self) -> None:
        """Wait for running episodes and drop the pool."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


ExecutorFactory = Callable[..., Executor]

EXECUTORS: dict[str, ExecutorFactory] = {
    "local": LocalExecutor.from_settings,
    "ray": RayExecutor.from_settings,
}


def make_executor(
    settings: Mapping[str, Any], *, workers: int, recipes: Mapping[str, AgentRecipe] | None = None
) -> Executor:
    """The executor named by ``settings["name"]``, with ``workers`` slots; ``recipes`` rebuild model agents
    where they cannot be sent as they are."""
    name = settings.get("name")
    try:
        factory = EXECUTORS[name]
    except KeyError:
        raise UserInputError(
            f"executor: unknown executor {name!r}; expected one of {sorted(EXECUTORS)}"
        ) from None
    return factory(settings, workers=workers, recipes=recipes or {})


__all__ = ["EXECUTORS", "Executor", "ExecutorFactory", "LocalExecutor", "RayExecutor", "make_executor"]
