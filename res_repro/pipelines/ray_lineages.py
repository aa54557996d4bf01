"""Lineage building on Ray (``executor=ray``): each seed's lineage is a Ray task on any node of the
cluster, at most as many in flight as the scaling caps allow, its results in seed order.

A task builds its own :class:`~res_repro.res.scaling.Scaler` from the run's config (SDK clients and sandbox
backends do not pickle; API keys are read from the node's environment, never sent), loads its seed task by
path and scales it into the lineage store at ``paths.cache_dir``, which every node must mount at the same
path (as the task folders). A node is published there whole, by one rename, once its checks pass, so a
task that dies with its node is retried by Ray and resumes from the nodes already stored: the same parent
and change give the same node id, and a retry recomputes nothing that was published.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from omegaconf import DictConfig, OmegaConf

from res_repro.env.formats import load_task_dir
from res_repro.env.task import Task
from res_repro.errors import UserInputError
from res_repro.evaluation.ray_executor import RayExecutor, fetched
from res_repro.res.scaling import LineageResult, Scaler
from res_repro.simulation.process import task_spec

RETRIES = 3  # times Ray reruns a seed's task whose worker or node died


def scale_seed(
    make_scaler: Callable[[DictConfig], Scaler],
    config: dict[str, Any],
    spec: Mapping[str, Any],
    held_out: Mapping[str, str],
    parallel_attempts: int,
) -> LineageResult:
    """The body of a seed's Ray task: build the scaler from ``config`` and scale the seed task ``spec``."""
    cfg = OmegaConf.create(config)
    scaler = make_scaler(cfg)
    if not scaler.store.root.is_dir():  # the driver made it: this node does not mount it
        raise UserInputError(
            f"paths.cache_dir: the lineage store {scaler.store.root} is not on this Ray node; mount "
            "paths.cache_dir at the same path on every node"
        )
    scaler.held_out = dict(held_out)
    scaler.parallel_attempts = parallel_attempts
    task = load_task_dir(spec["path"], spec["benchmark"], kind=spec["kind"], context=spec["context"])
    return scaler.scale(task)


def shippable_config(cfg: DictConfig) -> dict[str, Any]:
    """The run's config as plain data for the workers, without what must not travel with a task: the
    executor's runtime environment (where a key may be given) stays on the driver."""
    config = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(config, dict)
    config["executor"] = {**config["executor"], "runtime_env": {}}
    return config


def scale_on_ray(
    cfg: DictConfig,
    tasks: Sequence[Task],
    scaler: Scaler,
    *,
    make_scaler: Callable[[DictConfig], Scaler],
    slots: int,
    advance: Callable[[], None],
) -> list[LineageResult]:
    """Scale every seed of ``tasks`` as a Ray task, at most ``slots`` in flight, each with a scaler that
    ``make_scaler`` (a module-level function: it travels by name) builds from ``cfg``, given the held-out
    set and the parallel attempts of the driver's ``scaler`` (built from ``cfg`` too); results in task
    order. ``advance`` is called as each seed finishes. A task reserves what the executor's episodes do
    (``executor.task_cpus``, ``executor.task_resources``) and is named ``scale <seed task id>`` in Ray's
    task listings (and its worker's process title)."""
    executor = RayExecutor.from_settings(OmegaConf.to_container(cfg.executor), workers=slots, recipes={})
    scaler.store.root.mkdir(parents=True, exist_ok=True)  # a worker that does not see it says so
    executor.start({})
    pending: dict[Any, int] = {}
    try:
        seed_task = executor.remote(scale_seed, max_retries=RETRIES)
        config, held = executor.put(shippable_config(cfg)), executor.put(dict(scaler.held_out))
        results: dict[int, LineageResult] = {}
        queue = deque(enumerate(tasks))
        while queue or pending:
            while queue and len(pending) < slots:
                index, task = queue.popleft()
                named = seed_task.options(name=f"scale {task.task_id}")
                ref = named.remote(make_scaler, config, task_spec(task), held, scaler.parallel_attempts)
                pending[ref] = index
            for ref in executor.wait(list(pending)):
                results[pending.pop(ref)] = fetched(ref)
                advance()
        return [results[index] for index in range(len(tasks))]
    finally:
        executor.cancel(list(pending))  # a run stopped early: its seeds' tasks end (what they stored stays)
        executor.close()
