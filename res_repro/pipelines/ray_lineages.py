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

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from omegaconf import DictConfig, OmegaConf

from res_repro.env.formats import load_task_dir
from res_repro.env.task import Task
from res_repro.evaluation.ray_executor import RayExecutor
from res_repro.res.scaling import LineageResult, Scaler
from res_repro.simulation.process import task_spec

RETRIES = 3  # times Ray reruns a seed's task whose worker or node died


def _scale_seed(
    make_scaler: Callable[[DictConfig], Scaler],
    config: dict[str, Any],
    spec: Mapping[str, Any],
    held_out: Mapping[str, str],
    parallel_attempts: int,
) -> LineageResult:
    """The body of a seed's Ray task: build the scaler from ``config`` and scale the seed task ``spec``."""
    cfg = OmegaConf.create(config)
    scaler = make_scaler(cfg)
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
    *,
    make_scaler: Callable[[DictConfig], Scaler],
    held_out: Mapping[str, str],
    slots: int,
    parallel_attempts: int,
    advance: Any,
) -> list[LineageResult]:
    """Scale every seed of ``tasks`` as a Ray task, at most ``slots`` in flight, each with a scaler from
    ``make_scaler`` (a module-level function: it travels by name) and admission's ``held_out`` set;
    results in task order. ``advance`` is called as each seed finishes."""
    executor = RayExecutor.from_settings(OmegaConf.to_container(cfg.executor), workers=slots, recipes={})
    executor.start({})
    try:
        import ray

        remote = ray.remote(_scale_seed).options(num_cpus=executor.task_cpus, max_retries=RETRIES)
        config = ray.put(shippable_config(cfg))
        results: dict[int, LineageResult] = {}
        pending: dict[Any, int] = {}
        queue = list(enumerate(tasks))
        try:
            while queue or pending:
                while queue and len(pending) < slots:
                    index, task = queue.pop(0)
                    pending[
                        remote.remote(make_scaler, config, task_spec(task), held_out, parallel_attempts)
                    ] = index
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    results[pending.pop(ref)] = ray.get(ref)
                    advance()
        finally:
            for ref in pending:  # a run stopped early: its seeds' tasks end (what they stored stays)
                ray.cancel(ref, force=False)
        return [results[index] for index in range(len(tasks))]
    finally:
        executor.close()
