"""The executor interface: what the scheduler needs to run episode jobs somewhere.

Implementations live in :mod:`res_repro.evaluation.executors` (local threads) and
:mod:`res_repro.evaluation.ray_executor` (Ray tasks); both import this module, never each other's.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from res_repro.agents.base import Agent
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.jobs import EpisodeJob


class Executor(abc.ABC):
    """Runs jobs somewhere. ``slots`` is how many may run at once; ``queued`` how many more it may be
    handed to start by itself as slots free up (0: each job is handed over when a slot is free). Use as
    ``with executor.start(agents): ...``."""

    slots: int
    queued: int = 0

    @abc.abstractmethod
    def start(self, agents: Mapping[str, Agent]) -> Executor:
        """Get ready to run episodes of ``agents`` (by name); returns itself."""

    @abc.abstractmethod
    def submit(self, job: EpisodeJob) -> Any:
        """Start ``job``; return a handle for :meth:`wait` and :meth:`result`."""

    @abc.abstractmethod
    def wait(self, handles: list[Any]) -> list[Any]:
        """Block until at least one of ``handles`` has finished; return the finished ones."""

    @abc.abstractmethod
    def result(self, handle: Any) -> EpisodeRecord:
        """The record of a finished job (re-raises what the job raised)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release what :meth:`start` acquired."""

    def __enter__(self) -> Executor:
        """The executor itself (already started)."""
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Close the executor, whatever happened in the block."""
        self.close()
