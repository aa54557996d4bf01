"""Shared steps of the pipelines: build agents and load tasks from the config, and scale seed tasks.

Lineages live in one store under the cache folder; node ids depend on the parent and the change, so
runs with different settings never collide and a run that shares a prefix with an earlier one (a
smaller depth cap, a rerun after a crash) reuses the finished nodes.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from res_repro.agents import Agent, build_agents, make_llm_agent
from res_repro.agents.providers.base import Generation
from res_repro.agents.response_cache import ResponseCache
from res_repro.benchmarks.registry import load_benchmark
from res_repro.env.task import Task
from res_repro.errors import UserInputError
from res_repro.evaluation.durations import EPISODE_DURATIONS_FILE, EpisodeDurations
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.executors import make_executor
from res_repro.evaluation.jobs import agent_recipes
from res_repro.evaluation.progress import progress
from res_repro.evaluation.runner import EpisodeRequest, evaluate
from res_repro.evaluation.scheduling import ConcurrencyLimits
from res_repro.evaluation.store import EpisodeStore
from res_repro.pipelines.lineage_views import (
    childless_seeds,
    incomplete_lineages,
    proposer_line,
    proposer_totals,
)
from res_repro.pipelines.ray_lineages import scale_on_ray
from res_repro.res.admission import AdmissionSettings
from res_repro.res.lineage import LineageStore
from res_repro.res.llm_proposer import MODES, LLMProposer, ProposerLimits
from res_repro.res.operators import library
from res_repro.res.proposer import ProgrammaticProposer, Proposer
from res_repro.res.scaling import HINTS, STOP_RULES, AdmissionGate, LineageResult, Scaler, ScalingSettings
from res_repro.sandbox import backend_from_config
from res_repro.storage import write_jsonl

log = logging.getLogger(__name__)


UNSET = "???"  # how OmegaConf shows a value left for the user to give


def plain(node: Any) -> Any:
    """A resolved config node as plain Python containers (None and scalars pass through)."""
    return OmegaConf.to_container(node, resolve=True) if OmegaConf.is_config(node) else node


def cache_dir(cfg: DictConfig) -> Path:
    """The content-addressed cache shared by runs."""
    return Path(cfg.paths.cache_dir)


def configured_agents(
    cfg: DictConfig, names: Sequence[str], *, max_turns: int | None = None
) -> dict[str, Agent]:
    """Build the named agents (scripted or models) once, failing before any work on a missing key."""
    loop = plain(cfg.agent_loop)
    if max_turns is not None:
        loop["max_turns"] = max_turns
    return build_agents(
        list(names),
        models=plain(cfg.models),
        loop=loop,
        cache_dir=Path(cfg.paths.response_cache),
        seed=cfg.seed,
    )


def configured_tasks(cfg: DictConfig) -> list[Task]:
    """The configured benchmark's tasks; a value left unset (``???``, a checkout or a path the user
    gives) is left out, so the benchmark's loader says which setting it needs."""
    params = {key: value for key, value in plain(cfg.benchmark).items() if value != UNSET}
    return load_benchmark(cfg.benchmark.name, params, generated_dir=cache_dir(cfg) / "generated")


def placed(requests: Sequence[EpisodeRequest], lineages: Sequence[LineageResult]) -> list[EpisodeRequest]:
    """``requests`` with the lineage node each one's task is (matched by content), so records carry it."""
    where = {node.task.content_hash: node.place for lineage in lineages for node in lineage.nodes}
    return [dataclasses.replace(r, place=where.get(r.task.content_hash, r.place)) for r in requests]


def run_requests(
    cfg: DictConfig,
    requests: Sequence[EpisodeRequest],
    agents: Mapping[str, Agent],
    lineages: Sequence[LineageResult] = (),
) -> list[EpisodeRecord]:
    """Run (or reuse) the episodes with the configured backend, executor, concurrency limits, store,
    workers, seed and retries; records of tasks that are nodes of ``lineages`` carry their place."""
    requests = placed(requests, lineages)
    models = plain(cfg.models)
    recipes = agent_recipes(
        agents,
        models=models,
        loop=plain(cfg.agent_loop),
        cache_dir=Path(cfg.paths.response_cache),
        seed=cfg.seed,
    )
    limits = ConcurrencyLimits.from_settings(
        {name: model.get("max_concurrency") for name, model in models.items()},
        {cfg.sandbox.backend: cfg.sandbox.get("max_concurrency")},
    )
    return evaluate(
        requests,
        agents=agents,
        backend=backend_from_config(plain(cfg.sandbox)),
        store=EpisodeStore(cache_dir(cfg) / "episodes"),
        workers=cfg.workers,
        seed=cfg.seed,
        max_infra_retries=cfg.sandbox.max_infra_retries,
        show_progress=cfg.show_progress,
        label=f"{cfg.benchmark.name}: evaluation",
        executor=make_executor(plain(cfg.executor), workers=cfg.workers, recipes=recipes),
        limits=limits,
        durations=EpisodeDurations(cache_dir(cfg) / EPISODE_DURATIONS_FILE),
    )


def make_proposer(cfg: DictConfig) -> Proposer:
    """The configured proposer over the configured operator library."""
    scaling = cfg.scaling
    operators = library(plain(scaling.library))
    if scaling.proposer.kind == "programmatic":
        return ProgrammaticProposer(operators, per_child=scaling.proposer.operators_per_child)
    if scaling.proposer.kind == "llm":
        key = scaling.proposer.model
        if key not in cfg.models:
            raise UserInputError(
                f"scaling.proposer.model: {key!r} is not a key of models {sorted(cfg.models)}"
            )
        proposer = scaling.proposer
        if proposer.mode not in MODES:
            raise UserInputError(
                f"scaling.proposer.mode: expected one of {list(MODES)}, got {proposer.mode!r}"
            )
        model = plain(cfg.models[key])
        agent = make_llm_agent(key, model, plain(cfg.agent_loop), None, cfg.seed)
        limits = ProposerLimits(
            mode=proposer.mode,
            per_child=proposer.operators_per_child,
            max_turns=proposer.max_turns,
            token_budget=proposer.token_budget,
            max_invalid_replies=proposer.max_invalid_replies,
            max_reply_chars=proposer.max_reply_chars,
            context_chars=proposer.context_chars,
            files_chars=proposer.files_chars,
        )
        return LLMProposer(
            operators,
            agent.provider,
            agent.model,
            retry=agent.retry,
            generation=Generation.from_model(model),
            limits=limits,
            cache=ResponseCache(cfg.paths.response_cache),
            seed=cfg.seed,
        )
    raise UserInputError(
        f"scaling.proposer.kind: expected 'programmatic' or 'llm', got {scaling.proposer.kind!r}"
    )


def scaling_settings(cfg: DictConfig, **overrides: Any) -> ScalingSettings:
    """The scaling settings of the config (``scaling`` group and seed); ``overrides`` replace some."""
    scaling = cfg.scaling
    if scaling.hints not in HINTS:
        raise UserInputError(f"scaling.hints: expected one of {sorted(HINTS)}, got {scaling.hints!r}")
    if scaling.stop_on not in STOP_RULES:
        expected = sorted(STOP_RULES)
        raise UserInputError(f"scaling.stop_on: expected one of {expected}, got {scaling.stop_on!r}")
    settings = ScalingSettings(
        depth_cap=scaling.depth_cap,
        inheritance=scaling.inheritance,
        composition=scaling.composition,
        max_revisions=scaling.max_revisions,
        target_attempts=scaling.target_attempts,
        seed=cfg.seed,
        stop_on=scaling.stop_on,
        hints=scaling.hints,
    )
    return dataclasses.replace(settings, **overrides)


def make_admission(cfg: DictConfig, target: Agent | None) -> AdmissionGate | None:
    """The configured admission gate (``scaling.admission``), or None when its kind is ``none``."""
    admission = cfg.scaling.admission
    if admission.kind == "none":
        return None
    if admission.kind != "calibration":
        raise UserInputError(
            f"scaling.admission.kind: expected 'none' or 'calibration', got {admission.kind!r}"
        )
    band = plain(admission.band)
    if len(band) != 2 or not 0 <= band[0] <= band[1] <= 1:
        raise UserInputError(f"scaling.admission.band: expected [low, high] within [0, 1], got {band}")
    if admission.solver:
        solver = configured_agents(cfg, [admission.solver])[admission.solver]
    elif target is not None:
        solver = target
    else:
        raise UserInputError("scaling.admission.solver: admission needs a solver, and scaling.target is null")
    settings = AdmissionSettings(
        band=(float(band[0]), float(band[1])),
        ngram=admission.ngram,
        rollouts=admission.rollouts,
        widened_rollouts=admission.widened_rollouts,
    )
    return AdmissionGate(settings, solver)


def make_scaler(cfg: DictConfig, **overrides: Any) -> Scaler:
    """A scaler from the config; ``overrides`` replace scaling settings (for ablations)."""
    scaling = cfg.scaling
    settings = scaling_settings(cfg, **overrides)
    target = None
    if scaling.target:
        target = configured_agents(cfg, [scaling.target], max_turns=scaling.target_max_turns)[scaling.target]
    return Scaler(
        settings=settings,
        proposer=make_proposer(cfg),
        store=LineageStore(cache_dir(cfg) / "lineages"),
        backend=backend_from_config(plain(cfg.sandbox)),
        target=target,
        admission=make_admission(cfg, target),
    )


def scaling_threads(cfg: DictConfig) -> int:
    """How many seeds scale at once: ``workers``, within the concurrency caps of the sandbox backend and of
    the models scaling calls (the target and an LLM proposer). Each scaling thread runs one episode or
    model call at a time, so bounding the threads keeps every cap."""
    caps = [cfg.workers, cfg.sandbox.get("max_concurrency")]
    for key in (cfg.scaling.target, cfg.scaling.proposer.model):
        if key in cfg.models:
            caps.append(cfg.models[key].get("max_concurrency"))
    return max(1, min(cap for cap in caps if cap is not None))


def parallel_attempts(threads: int, seeds: int, attempts: int) -> int:
    """How many of a node's target attempts run at once: the episode slots the caps allow (``threads``)
    that the seeds scaling side by side leave free, shared evenly, so that scaling never runs more
    episodes at once than ``threads`` (each scaling thread otherwise runs one at a time)."""
    busy = max(1, min(threads, seeds))
    return max(1, min(attempts, threads // busy))


def scale_in_threads(
    cfg: DictConfig, tasks: Sequence[Task], scaler: Scaler, *, slots: int, advance: Callable[[], None]
) -> list[LineageResult]:
    """Scale the seeds in ``slots`` threads of this process, in task order (``executor=local``)."""
    with ThreadPoolExecutor(max_workers=slots) as pool:

        def scale(task: Task) -> LineageResult:
            result = scaler.scale(task)
            advance()
            return result

        return list(pool.map(scale, tasks))


def scale_as_ray_tasks(
    cfg: DictConfig, tasks: Sequence[Task], scaler: Scaler, *, slots: int, advance: Callable[[], None]
) -> list[LineageResult]:
    """Each seed a Ray task on any node, ``slots`` in flight, each building its scaler with
    :func:`make_scaler` (``executor=ray``; :mod:`res_repro.pipelines.ray_lineages`)."""
    return scale_on_ray(cfg, tasks, scaler, make_scaler=make_scaler, slots=slots, advance=advance)


SeedScaling = Callable[..., list[LineageResult]]

SEED_SCALING: dict[str, SeedScaling] = {"local": scale_in_threads, "ray": scale_as_ray_tasks}
"""How the seeds are scaled under each ``executor.name`` (the executors of episodes have the same names)."""


def build_lineages(
    cfg: DictConfig, tasks: Sequence[Task], scaler: Scaler | None = None
) -> list[LineageResult]:
    """Scale every seed task (in parallel within the caps, resumable, where ``executor`` says), in task
    order. With ``executor=ray`` the seeds' tasks build scalers of their own from ``cfg``; ``scaler``
    (built from ``cfg`` when not given) gives them its held-out set and parallel attempts."""
    name = cfg.executor.name
    if name not in SEED_SCALING:
        raise UserInputError(f"executor: unknown executor {name!r}; expected one of {sorted(SEED_SCALING)}")
    scaler = scaler or make_scaler(cfg)
    scaler.hold_out(tasks)
    threads = scaling_threads(cfg)
    scaler.parallel_attempts = parallel_attempts(threads, len(tasks), cfg.scaling.target_attempts)
    label = f"{cfg.benchmark.name}: scaling"
    with progress(label, len(tasks), enabled=cfg.show_progress) as advance:
        results = SEED_SCALING[name](cfg, tasks, scaler, slots=threads, advance=advance)
    for result in results:
        log.debug("%s: depth %d (%s)", result.seed_task_id, result.last.manifest.depth, result.stop_reason)
    composing, children = composition_counts(results)
    log.info("composition: %d of %d children build on an earlier change", composing, children)
    for line in scaling_report(results, llm=cfg.scaling.proposer.kind == "llm"):
        print(line)
    return results


def scaling_report(results: Sequence[LineageResult], *, llm: bool) -> list[str]:
    """What a scaling run ends by saying: the unscaled seeds and incomplete lineages, by name and why, and
    (for a model proposer) every proposer call the lineages cost."""
    lines = [f"unscaled seed {seed}: {why}" for seed, why in childless_seeds(results)]
    lines += [
        f"incomplete lineage {seed} at depth {depth}: {why}"
        for seed, depth, why in incomplete_lineages(results)
    ]
    if llm:
        lines.append(proposer_line(proposer_totals(results)))
    return lines


def composition_counts(lineages: Sequence[LineageResult]) -> tuple[int, int]:
    """(children that compose on an earlier change's artifact, children) over the lineages."""
    children = [node for lineage in lineages for node in lineage.nodes[1:]]
    composing = sum(any(a.composes for a in node.manifest.applications) for node in children)
    return composing, len(children)


def write_manifests(lineages: Sequence[LineageResult], path: Path) -> Path:
    """Every node manifest of the lineages a run used, one JSON document per line (an MLflow artifact)."""
    return write_jsonl((node.manifest.to_dict() for lineage in lineages for node in lineage.nodes), path)
