"""How long each task's episodes took in earlier runs, so that a run can start its longest episodes first.

With several workers, the end of a run holds whatever episodes were submitted last; when a long one is
among them, the other workers sit idle while it finishes. Started longest first (the longest-processing-
time rule), the run leaves its short episodes for the end. The estimate of an episode is the wall time of
the latest finished episode of the same task (by content hash) with the same agent, else the longest
of the other agents' on that task; an episode with no estimate starts before every estimated one, in
request order. The history is a small JSON file shared by every run of the project (a multirun's jobs
merge what they learned under a file lock); it only orders episodes and never changes a result.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path

from filelock import FileLock

from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.jobs import EpisodeJob

log = logging.getLogger(__name__)

EPISODE_DURATIONS_FILE = "episode_durations.json"  # its name in the project's cache folder
History = dict[str, dict[str, float]]  # task content hash -> agent name -> seconds


def _read(path: Path) -> History:
    """The history in ``path``; empty when the file is missing, and with a warning when it is unreadable
    (it is only a hint for ordering: a damaged one must not stop a run)."""
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        loaded, problem = None, str(exc)
    else:
        problem = "expected a JSON object"
    if not isinstance(loaded, dict):
        log.warning("%s: ignoring the episode durations (%s); episodes start in request order", path, problem)
        return {}
    return {
        task: {agent: float(s) for agent, s in agents.items() if isinstance(s, int | float)}
        for task, agents in loaded.items()
        if isinstance(agents, dict)
    }


class EpisodeDurations:
    """The episode durations kept in ``path``: read at construction, extended by :meth:`record`, merged
    back into the file by :meth:`save`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._known = _read(path)
        self._learned: History = {}

    def estimate(self, task_hash: str, agent: str) -> float | None:
        """Seconds an episode of ``agent`` on the task ``task_hash`` is expected to take, or None."""
        by_agent = {**self._known.get(task_hash, {}), **self._learned.get(task_hash, {})}
        if agent in by_agent:
            return by_agent[agent]
        return max(by_agent.values(), default=None)

    def longest_first(self, jobs: Sequence[EpisodeJob]) -> list[EpisodeJob]:
        """``jobs`` ordered by their estimates, longest first; those without one first, in their order."""

        def expected(job: EpisodeJob) -> float:
            seconds = self.estimate(job.request.task.content_hash, job.request.agent)
            return float("inf") if seconds is None else seconds

        return sorted(jobs, key=expected, reverse=True)  # sorted is stable: ties keep request order

    def record(self, job: EpisodeJob, record: EpisodeRecord) -> None:
        """Remember how long ``job``'s episode took (an infrastructure failure says nothing of the task)."""
        if not record.infrastructure_failure:
            agents = self._learned.setdefault(job.request.task.content_hash, {})
            agents[job.request.agent] = record.wall_seconds

    def save(self) -> None:
        """Merge what this run learned into the file (another run may have saved meanwhile); a file that
        cannot be written costs the next run its order, with a warning, never this run its records."""
        if not self._learned:
            return
        partial = self.path.with_suffix(f".{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with FileLock(str(self.path.with_suffix(".lock"))):
                merged = _read(self.path)
                for task, agents in self._learned.items():
                    merged.setdefault(task, {}).update(agents)
                partial.write_text(json.dumps(merged, sort_keys=True), encoding="utf-8")
                partial.replace(self.path)
        except OSError as exc:
            log.warning("%s: the episode durations were not saved (%s)", self.path, exc)
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)
            return
        self._known, self._learned = merged, {}
