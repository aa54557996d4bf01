"""The Hydra entry point: compose the config, then run the pipeline it names."""

from __future__ import annotations

import atexit
import functools
import gc
import multiprocessing
import sys
import time

import hydra
from omegaconf import DictConfig

from res_repro.config import CONF_DIR, register_configs
from res_repro.errors import RunFailedError, UserInputError
from res_repro.pipelines import run_pipeline

register_configs()


def whole_lines() -> None:
    """Flush stdout at every line: parallel jobs share the terminal or the file, and a piped stdout
    would otherwise be flushed in blocks that end mid-line, between another job's lines."""
    sys.stdout.reconfigure(line_buffering=True, write_through=False)  # type: ignore[union-attr]


@functools.cache
def keep_for_the_process() -> None:
    """In a process that runs jobs and then exits, take what is alive now (the imported modules, their
    classes and functions, the registered configs) and, at exit, everything left out of the cyclic
    garbage collector's reach (``gc.freeze``). The job's full collections then walk only what the job
    made (the objects kept skipped, about 0.2 s of a warm Claw-Eval job), and the interpreter's
    collections while it shuts down walk nothing (0.2-0.3 s a process, which a multirun's driver waits
    for in each worker). Objects are still freed when their last reference goes; cycles among the kept
    ones live until the process ends, as the modules do. Done once per process."""
    gc.freeze()
    atexit.register(gc.freeze)  # registered now, so it runs after the handlers registered later


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def hydra_main(cfg: DictConfig) -> None:
    """Run one pipeline (or one job of a multirun) as configured, closing with its wall time (the files
    and the MLflow run are printed as they are written); bad input, and a model whose every episode
    failed, end it with one line and a non-zero exit."""
    started = time.perf_counter()
    whole_lines()
    if multiprocessing.parent_process() is not None:  # a launcher's worker, which only runs jobs
        keep_for_the_process()
    try:
        run_pipeline(cfg)
    except UserInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except RunFailedError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    print(f"{cfg.task_name} on {cfg.benchmark.name} done in {time.perf_counter() - started:.0f} s")
