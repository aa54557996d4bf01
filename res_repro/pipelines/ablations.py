"""The component ablations on a slice of seed tasks: one set of records behind Tables 3A, 3B, A5, A6, A7.

Conditions, per seed task of the slice:

- ``original``: the released environment E0;
- ``saved_res``: the last accepted environment of its saved lineage (the full RES control of 3A);
- ``without_dependencies``: the saved environment with every composed change (one that consumed an
  earlier change's artifact) and the earlier changes it built on (transitively) removed, the other
  changes applied again in order on E0 (the paper's "removes composed dependencies and their
  prerequisite work from saved environments"; ``res_repro.res.dependencies``); what each task lost is
  kept beside the environment and reported in Table 3A's notes;
- ``rebuilt_res``, ``without_inheritance``, ``basic_library``: lineages rebuilt from E0 to the saved
  lineage's depth (its planned depth d_i), under one rebuild seed and the same proposer and revision
  budget, varying only the components named in ``ablation.rebuilds`` (inheritance, dependency
  composition, operator library). Rebuilt RES is the full control of 3B.

The cohort follows the paper's rule: seed tasks whose saved lineage reached a planned depth of at least
``ablation.min_planned_depth`` (3), ``ablation.tasks`` of them evenly spaced over those that qualify. At
depth 1 "w/o inheritance" and the rebuild are the same environment, so shallower lineages carry no
information about inheritance. When fewer tasks qualify the cohort is all of them, and the run says so.

Lineages live in the content-addressed lineage store and episodes in the episode store, so a second
table over the same slice runs no episode again.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from omegaconf import DictConfig, OmegaConf

from res_repro.agents import Agent
from res_repro.env.formats import load_copy
from res_repro.env.task import Task
from res_repro.errors import UserInputError
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.runner import EpisodeRequest
from res_repro.pipelines.cells import FailedAgents, split_failed
from res_repro.pipelines.lineages import (
    build_lineages,
    cache_dir,
    configured_agents,
    configured_tasks,
    make_scaler,
    plain,
    run_requests,
)
from res_repro.pipelines.reporting import write_episodes
from res_repro.res.dependencies import without_dependencies
from res_repro.res.scaling import LineageResult
from res_repro.sandbox import backend_from_config
from res_repro.storage import read_json_record, write_json_atomic

log = logging.getLogger(__name__)

LABELS = {
    "original": "Original",
    "saved_res": "Saved RES",
    "without_dependencies": "w/o dependencies",
    "rebuilt_res": "Rebuilt RES",
    "without_inheritance": "w/o inheritance",
    "basic_library": "Basic library",
}
"""Every condition (in table order) and how tables name it; keys match the paper's reported rows."""

CONTROLS = {
    "saved_res": "original",
    "without_dependencies": "saved_res",
    "rebuilt_res": "original",
    "without_inheritance": "rebuilt_res",
    "basic_library": "rebuilt_res",
}
"""The condition each one is paired against (the full RES control for an ablation)."""

COMPONENTS = ("inheritance", "composition", "library")
"""The scaling settings a rebuild variant may change; everything else follows ``scaling``."""


@dataclass
class AblationRecords:
    """Per (agent, condition), one record per slice task (tasks with an infrastructure failure dropped);
    agents whose every episode failed have no records, only their errors (``failed``)."""

    tasks: list[str]  # seed task ids, in slice order
    planned_depths: list[int]
    agents: dict[str, Agent]
    records: dict[tuple[str, str], list[EpisodeRecord]]
    conditions: list[str]
    episodes: list[EpisodeRecord]  # every episode, in run order
    failed: FailedAgents = field(default_factory=FailedAgents)
    removals: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # task id -> w/o deps' summary


Item = TypeVar("Item")


def ablation_slice(items: Sequence[Item], size: int) -> list[Item]:
    """``size`` items (seed tasks or their lineages) evenly spaced over ``items`` (all of them when there
    are no more)."""
    if size >= len(items):
        return list(items)
    return [items[index * len(items) // size] for index in range(size)]


def ablation_cohort(lineages: list[LineageResult], size: int, min_depth: int) -> list[LineageResult]:
    """The paper's cohort: ``size`` lineages evenly spaced over those whose planned depth (the saved
    lineage's depth) is at least ``min_depth``; fewer, with a warning, when fewer qualify."""
    qualifying = [lineage for lineage in lineages if lineage.last.manifest.depth >= min_depth]
    if not qualifying:
        raise UserInputError(
            f"ablation.min_planned_depth: no seed task of {len(lineages)} reached planned depth >= "
            f"{min_depth}; lower it or scale deeper"
        )
    if len(qualifying) < size:
        log.warning(
            "ablation cohort: only %d of %d seed tasks reach planned depth >= %d; using those %d "
            "(ablation.tasks asks for %d)",
            len(qualifying),
            len(lineages),
            min_depth,
            len(qualifying),
            size,
        )
    chosen = {id(lineage) for lineage in ablation_slice(qualifying, size)}
    return [lineage for lineage in lineages if id(lineage) in chosen]


REMOVAL_KEYS = ("composed", "prerequisites", "kept", "dropped", "failed_checks")
"""What a w/o dependencies summary holds (``WithoutDependencies.summary``): operators and failed checks."""


def _removal_summary(data: Any) -> dict[str, list[str]]:
    return {key: [str(item) for item in data[key]] for key in REMOVAL_KEYS}


def without_dependencies_environment(
    cfg: DictConfig, lineage: LineageResult
) -> tuple[Task, dict[str, list[str]]]:
    """The last environment with its composed changes and the work they built on removed, and what was
    removed and kept (see ``res_repro.res.dependencies``; built once per node, hints and seed, then
    reused with its summary, which is written before the environment is published)."""
    last = lineage.last
    dest = (
        cache_dir(cfg)
        / "ablations"
        / "without-dependencies"
        / last.manifest.seed_task_id
        / f"{last.manifest.node_id}-{cfg.scaling.hints}-seed{cfg.seed}"
    )
    about = dest.with_name(f"{dest.name}.json")
    summary = read_json_record(about, _removal_summary) if about.is_file() and dest.is_dir() else None
    if summary is None:
        shutil.rmtree(dest, ignore_errors=True)  # an environment without its summary is rebuilt
        dest.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=dest.parent))
        try:
            history = last.manifest.history
            rebuilt = without_dependencies(
                lineage.nodes[0],
                history,
                staging / "env",
                backend=backend_from_config(plain(cfg.sandbox)),
                seed=cfg.seed,
                hints=cfg.scaling.hints,
            )
            summary = rebuilt.summary(history)
            write_json_atomic(about, summary, durable=False)
            try:
                (staging / "env").rename(dest)
            except OSError:  # another process of a parallel run published the same environment first
                if not dest.is_dir():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return load_copy(last.task, dest), summary


def without_dependencies_task(cfg: DictConfig, lineage: LineageResult) -> Task:
    """The last environment of :func:`without_dependencies_environment`."""
    return without_dependencies_environment(cfg, lineage)[0]


def rebuild_config(cfg: DictConfig, variant: str) -> DictConfig:
    """The config of one matched-budget rebuild: ``scaling`` with the variant's components, the
    rebuild seed, and no target (the rebuild goes to the planned depth)."""
    components = {key: cfg.ablation.rebuilds[variant][key] for key in COMPONENTS}
    return OmegaConf.merge(
        cfg, {"seed": cfg.ablation.rebuild_seed, "scaling": {**components, "target": None}}
    )


def rebuilt(cfg: DictConfig, variant: str, tasks: list[Task], depths: list[int]) -> list[Task]:
    """Each task's last environment when rebuilt under ``variant`` to its planned depth."""
    scaler = make_scaler(rebuild_config(cfg, variant))
    return [scaler.scale(task, depth_cap=depth).last.task for task, depth in zip(tasks, depths, strict=True)]


def ablation_environments(
    cfg: DictConfig, tasks: list[Task], lineages: list[LineageResult]
) -> tuple[dict[str, list[Task]], list[int], list[dict[str, list[str]]]]:
    """Every condition's environments for the cohort's tasks and saved lineages, their planned depths,
    and what w/o dependencies removed from each."""
    depths = [lineage.last.manifest.depth for lineage in lineages]
    decomposed = [without_dependencies_environment(cfg, lineage) for lineage in lineages]
    found = {
        "original": [lineage.nodes[0].task for lineage in lineages],
        "saved_res": [lineage.last.task for lineage in lineages],
        "without_dependencies": [task for task, _ in decomposed],
    }
    for variant in cfg.ablation.rebuilds:
        found[variant] = rebuilt(cfg, variant, tasks, depths)
    return found, depths, [summary for _, summary in decomposed]


def ablation_records(cfg: DictConfig) -> AblationRecords:
    """Choose the cohort, build (or reuse) every condition and evaluate (or reuse) every agent on it."""
    agents = configured_agents(cfg, cfg.agents)
    every = configured_tasks(cfg)
    by_id = {task.task_id: task for task in every}
    lineages = ablation_cohort(build_lineages(cfg, every), cfg.ablation.tasks, cfg.ablation.min_planned_depth)
    tasks = [by_id[lineage.seed_task_id] for lineage in lineages]
    found, depths, removals = ablation_environments(cfg, tasks, lineages)
    conditions = [name for name in LABELS if name in found]
    requests = [
        EpisodeRequest(task, key, environment=condition)
        for key in agents
        for condition in conditions
        for task in found[condition]
    ]
    episodes = run_requests(cfg, requests, agents, lineages)
    flat = iter(episodes)
    raw = {(key, c): [next(flat) for _ in tasks] for key in agents for c in conditions}
    ran, failed = split_failed(agents, episodes)
    keep = [
        index
        for index in range(len(tasks))
        if not any(raw[(key, c)][index].infrastructure_failure for key in ran for c in conditions)
    ]
    return AblationRecords(
        tasks=[tasks[i].task_id for i in keep],
        planned_depths=[depths[i] for i in keep],
        agents=ran,
        records={(key, c): [raw[(key, c)][i] for i in keep] for key in ran for c in conditions},
        conditions=conditions,
        failed=failed,
        episodes=episodes,
        removals={tasks[i].task_id: removals[i] for i in keep},
    )


def write_ablation_episodes(cfg: DictConfig, data: AblationRecords) -> Path:
    """Every episode of the slice as JSONL in the run folder (the trajectories behind a table, and those
    that failed for infrastructure reasons)."""
    return write_episodes(data.episodes, Path(cfg.paths.output_dir) / "episodes.jsonl")
