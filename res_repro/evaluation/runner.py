"""The evaluation runner: episodes on an executor (threads or Ray), cached, resumable, with progress shown."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import replace

from res_repro.agents.base import Agent
from res_repro.env.formats import format_of
from res_repro.evaluation.durations import EpisodeDurations
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.executor_base import Executor
from res_repro.evaluation.executors import LocalExecutor
from res_repro.evaluation.jobs import EpisodeJob, EpisodeRequest
from res_repro.evaluation.progress import progress
from res_repro.evaluation.scheduling import ConcurrencyLimits, stream
from res_repro.evaluation.store import EpisodeStore, episode_key
from res_repro.sandbox import Backend, backend_key, backend_name
from res_repro.sandbox.warm import warm_sandboxes

log = logging.getLogger(__name__)

WARM_SANDBOXES_PER_WORKER = 2  # started local sandboxes kept ready for the next episodes, per worker

__all__ = ["EpisodeRequest", "evaluate"]


def _episode_id(request: EpisodeRequest, agent: Agent, backend: str, seed: int) -> str:
    return episode_key(
        task=request.task.content_hash,
        agent=agent.fingerprint(),
        environment=request.environment,
        backend=backend,
        seed=seed,
    )


def _refusals(requests: Sequence[EpisodeRequest], backend: str) -> dict[str, str]:
    """Why each task that cannot run on ``backend`` is refused, said once per task."""
    found: dict[str, str] = {}
    for task in {request.task.task_id: request.task for request in requests}.values():
        reason = format_of(task).refusal(task, backend)
        if reason is not None:
            log.warning("%s: %s", task.task_id, reason)
            found[task.task_id] = reason
    return found


def evaluate(
    requests: Sequence[EpisodeRequest],
    *,
    agents: Mapping[str, Agent],
    backend: Backend,
    store: EpisodeStore,
    workers: int = 1,
    seed: int = 0,
    max_infra_retries: int = 2,
    show_progress: bool = True,
    label: str = "evaluation",
    executor: Executor | None = None,
    limits: ConcurrencyLimits | None = None,
    durations: EpisodeDurations | None = None,
) -> list[EpisodeRecord]:
    """Run every request not already in ``store`` and return all records in request order.

    Episodes run on ``executor`` (default: ``workers`` local threads) within ``limits`` (per model and per
    sandbox backend). Each finished record is written to the store on this process as soon as it comes
    back, so an interrupted run loses nothing and a rerun redoes nothing. ``backend`` is a backend name or
    a :class:`~res_repro.sandbox.SandboxBackend` with its limits; concurrency limits count by its name,
    ids also carry non-default limits. Progress is shown under ``label`` (see
    :func:`~res_repro.evaluation.progress.progress`). On the local backend, episodes run in this process
    take their sandboxes from a pool of warm ones (:func:`~res_repro.sandbox.warm.warm_sandboxes`),
    started in the background while earlier episodes run. With ``durations``, episodes start longest first
    by what earlier runs measured, and this run's durations are saved there for the next.
    """
    executor = executor or LocalExecutor(workers)
    limits = limits or ConcurrencyLimits()
    records: dict[int, EpisodeRecord] = {}
    jobs: list[EpisodeJob] = []
    refusals = _refusals(requests, backend_name(backend))
    for index, request in enumerate(requests):
        episode_id = _episode_id(request, agents[request.agent], backend_key(backend), seed)
        cached = store.get(episode_id)
        if cached is not None:
            records[index] = request.label(cached)
            continue
        reason = refusals.get(request.task.task_id)
        if reason is not None:  # not stored: the same task runs on a backend that can give it
            refused = EpisodeRecord.unfinished(
                request.task, agents[request.agent], request.environment, episode_id, backend
            )
            records[index] = request.label(replace(refused, error=reason))
            continue
        keys = limits.keys(request.agent, backend_name(backend))
        jobs.append(EpisodeJob(index, request, episode_id, backend, seed, max_infra_retries, keys))
    log.info("%d episodes: %d reused from the store, %d to run", len(requests), len(records), len(jobs))
    if durations is not None:
        jobs = durations.longest_first(jobs)
    with progress(label, len(requests), completed=len(records), enabled=show_progress) as advance:
        warm = backend_name(backend) == "local" and isinstance(executor, LocalExecutor)
        pool = warm_sandboxes(WARM_SANDBOXES_PER_WORKER * executor.slots) if warm else nullcontext()
        if jobs:
            try:
                with pool, executor.start(agents):
                    for job, record in stream(executor, jobs, limits):
                        labelled = job.request.label(record)
                        store.put(labelled)
                        records[job.index] = labelled
                        if durations is not None:
                            durations.record(job, record)
                        advance()
            finally:
                if durations is not None:
                    durations.save()
    return [records[index] for index in range(len(requests))]
