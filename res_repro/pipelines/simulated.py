"""The simulator of a run whose configured models include simulated ones (``models=sim``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from omegaconf import DictConfig

from res_repro.pipelines.lineages import configured_tasks
from res_repro.simulation import simulator

TIMING_FIELDS = ("latency_s", "latency_spread", "requests_per_minute")  # a simulated model's, in time


def simulated_keys(cfg: DictConfig) -> list[str]:
    """The keys of ``models`` that the simulator serves."""
    return [key for key, model in cfg.models.items() if model.get("simulated")]


@contextmanager
def simulated_models(cfg: DictConfig) -> Iterator[None]:
    """While the block runs, serve the simulated models over the benchmark's seed tasks and point their
    ``address`` at the simulator; nothing is started when no configured model is simulated."""
    keys = simulated_keys(cfg)
    if not keys:
        yield
        return
    timing = {
        cfg.models[key].model: {field: cfg.models[key].get(field) for field in TIMING_FIELDS} for key in keys
    }
    with simulator(
        configured_tasks(cfg),
        seed=cfg.seed,
        operators_per_child=cfg.scaling.proposer.operators_per_child,
        timing=timing,
    ) as running:
        for key in keys:
            cfg.models[key].address = running.url
        try:
            yield
        finally:
            for key in keys:
                cfg.models[key].address = None
