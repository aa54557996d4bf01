"""What an executor runs: an episode job, the function that runs it, and recipes for agents that must be
rebuilt on another machine.

Everything here pickles, so a job can run in a thread, in a Ray worker or anywhere else that imports the
package. LLM agents hold SDK clients (thread locks inside) that do not pickle, and should not: a pickled
client would carry its API key. They travel as an :class:`AgentRecipe` instead, the arguments that
built them, and the worker builds the agent once per process, reading the key from its own environment.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from res_repro.agents.base import Agent
from res_repro.env.outcome import PERMANENT_ERROR
from res_repro.env.task import Task
from res_repro.evaluation.episode import EpisodeRecord, LineagePlace, run_episode
from res_repro.sandbox import Backend


@dataclass(frozen=True)
class EpisodeRequest:
    """One episode to run: which agent attempts which task in which environment; ``place`` is the lineage
    node the task is (when it is one) and ``role`` why the episode runs, both copied onto its record."""

    task: Task
    agent: str
    environment: str = "original"
    place: LineagePlace | None = None
    role: str = "evaluated"

    def label(self, record: EpisodeRecord) -> EpisodeRecord:
        """``record`` (fresh or reused from the store) with this request's role and lineage place."""
        place = asdict(self.place) if self.place else dict.fromkeys(("seed_task_id", "node_id", "depth"))
        return replace(record, role=self.role, **place)


@dataclass(frozen=True)
class EpisodeJob:
    """A request with everything needed to run it anywhere; ``keys`` name the concurrency limits it counts
    against (see :mod:`res_repro.evaluation.scheduling`)."""

    index: int
    request: EpisodeRequest
    episode_id: str
    backend: Backend
    seed: int
    max_infra_retries: int
    keys: tuple[str, ...] = ()


SPENT_ACROSS_RUNS = ("retries", "model_seconds", "input_tokens", "output_tokens", "cached_tokens")
"""What a rerun of a failed episode spent is added to the record that stands, so its cost is complete."""


def run_job(job: EpisodeJob, agent: Agent) -> EpisodeRecord:
    """Run the job's episode, retrying infrastructure failures up to ``job.max_infra_retries`` times;
    a provider error that no retry can change (a 4xx other than 408, 409 and 429) is not retried. The
    record that stands carries what every run spent (``SPENT_ACROSS_RUNS``) and how many runs it took."""
    runs: list[EpisodeRecord] = []
    for _ in range(job.max_infra_retries + 1):
        record = run_episode(
            job.request.task,
            agent,
            backend=job.backend,
            episode_id=job.episode_id,
            environment=job.request.environment,
            seed=job.seed,
        )
        runs.append(record)
        if not record.infrastructure_failure or record.accounting.get(PERMANENT_ERROR):
            break
    if len(runs) > 1:
        totals = {key: sum(run.accounting.get(key, 0) for run in runs) for key in SPENT_ACROSS_RUNS}
        record.accounting = {**record.accounting, **totals, "episode_runs": len(runs)}
    return record


_BUILT: dict[str, Agent] = {}  # agents built from recipes in this process, by recipe


@dataclass(frozen=True)
class AgentRecipe:
    """The arguments that build one model agent (:func:`res_repro.agents.make_llm_agent`), never its key.

    ``fingerprint`` is the agent's fingerprint where it was first built; a rebuilt agent must match it,
    so an episode never runs under an id that describes a different agent.
    """

    name: str
    model: dict[str, Any]
    loop: dict[str, Any]
    cache_dir: str | None
    seed: int
    fingerprint: dict[str, Any]

    def build(self) -> Agent:
        """The agent, built once per process (the key is read from this process's environment)."""
        from res_repro.agents import make_llm_agent

        key = json.dumps(
            [self.name, self.model, self.loop, self.cache_dir, self.seed], sort_keys=True, default=str
        )
        if key not in _BUILT:
            cache = Path(self.cache_dir) if self.cache_dir else None
            agent = make_llm_agent(self.name, self.model, self.loop, cache, self.seed)
            if agent.fingerprint() != self.fingerprint:
                raise RuntimeError(
                    f"agent {self.name!r} rebuilt from its recipe differs from the driver's: "
                    f"{agent.fingerprint()} != {self.fingerprint}"
                )
            _BUILT[key] = agent
        return _BUILT[key]


def agent_recipes(
    agents: Mapping[str, Agent],
    *,
    models: Mapping[str, Mapping[str, Any]],
    loop: Mapping[str, Any],
    cache_dir: Path | None,
    seed: int,
) -> dict[str, AgentRecipe]:
    """Recipes for the agents that are models (keys of ``models``), built with the same arguments as
    :func:`res_repro.agents.build_agents`."""
    return {
        name: AgentRecipe(
            name=name,
            model=dict(models[name]),
            loop=dict(loop),
            cache_dir=str(cache_dir) if cache_dir else None,
            seed=seed,
            fingerprint=agent.fingerprint(),
        )
        for name, agent in agents.items()
        if name in models
    }
