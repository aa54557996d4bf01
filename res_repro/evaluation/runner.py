"""The evaluation runner: episodes in parallel sandboxes, cached, resumable, with a progress bar."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from res_repro.agents.base import Agent
from res_repro.env.task import Task
from res_repro.evaluation.episode import EpisodeRecord, run_episode
from res_repro.evaluation.store import EpisodeStore, episode_key

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EpisodeRequest:
    """One episode to run: which agent attempts which task in which environment."""

    task: Task
    agent: str
    environment: str = "original"


def _episode_id(request: EpisodeRequest, agent: Agent, backend: str, seed: int) -> str:
    return episode_key(
        task=request.task.content_hash,
        agent=agent.fingerprint(),
        environment=request.environment,
        backend=backend,
        seed=seed,
    )


def _run_with_retries(
    request: EpisodeRequest, agent: Agent, episode_id: str, backend: str, seed: int, max_infra_retries: int
) -> EpisodeRecord:
    """Run an episode, retrying infrastructure failures up to ``max_infra_retries`` times."""
    for _ in range(max_infra_retries + 1):
        record = run_episode(
            request.task,
            agent,
            backend=backend,
            episode_id=episode_id,
            environment=request.environment,
            seed=seed,
        )
        if not record.infrastructure_failure:
            break
    return record


def evaluate(
    requests: Sequence[EpisodeRequest],
    *,
    agents: Mapping[str, Agent],
    backend: str,
    store: EpisodeStore,
    workers: int = 1,
    seed: int = 0,
    max_infra_retries: int = 2,
    show_progress: bool = True,
) -> list[EpisodeRecord]:
    """Run every request not already in ``store`` and return all records in request order.

    Each finished record is written to the store at once, so an interrupted run loses nothing and a
    rerun redoes nothing.
    """
    ids = [_episode_id(request, agents[request.agent], backend, seed) for request in requests]
    records: dict[int, EpisodeRecord] = {}
    pending: list[int] = []
    for index, episode_id in enumerate(ids):
        cached = store.get(episode_id)
        if cached is None:
            pending.append(index)
        else:
            records[index] = cached
    log.info("%d episodes: %d reused from the store, %d to run", len(requests), len(records), len(pending))
    columns = (
        TextColumn("[bold]episodes"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("cached {task.fields[cached]}"),
        TimeRemainingColumn(),
    )
    with (
        Progress(*columns, disable=not show_progress, transient=True) as progress,
        ThreadPoolExecutor(max_workers=max(1, workers)) as pool,
    ):
        bar = progress.add_task("episodes", total=len(requests), completed=len(records), cached=len(records))
        futures = {
            pool.submit(
                _run_with_retries,
                requests[i],
                agents[requests[i].agent],
                ids[i],
                backend,
                seed,
                max_infra_retries,
            ): i
            for i in pending
        }
        for future in as_completed(futures):
            record = future.result()
            store.put(record)
            records[futures[future]] = record
            progress.advance(bar)
    return [records[index] for index in range(len(requests))]
