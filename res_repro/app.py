"""The Hydra entry point: compose the config, then run the pipeline it names."""

from __future__ import annotations

import atexit
import errno
import functools
import gc
import sys
import time
from contextlib import suppress

import hydra
from omegaconf import DictConfig

from res_repro.config import CONF_DIR, register_configs
from res_repro.errors import RunFailedError, UserInputError
from res_repro.pipelines import pipeline_function, run_pipeline

register_configs()


def whole_lines() -> None:
    """Flush stdout at every line: parallel jobs share the terminal or the file, and a piped stdout
    would otherwise be flushed in blocks that end mid-line, between another job's lines."""
    sys.stdout.reconfigure(line_buffering=True, write_through=False)  # type: ignore[union-attr]


@functools.cache
def freeze_at_exit() -> None:
    """Leave the interpreter's collections while it shuts down nothing to walk: at exit, everything still
    alive is taken out of the cyclic garbage collector's reach (``gc.freeze``; the handler is registered
    now, so it runs after those registered later). They cost a job's process 0.2-0.3 s, which a
    multirun's driver waits for in each worker, and the driver as much again. Objects are still freed
    when their last reference goes; the finalizers of cycles left at exit do not run. Once per process."""
    atexit.register(gc.freeze)


def freeze_the_job_modules(task_name: str) -> None:
    """Import the modules of the pipeline ``task_name`` names (an unknown name is left for the run to
    report), then take everything alive out of the cyclic garbage collector's reach (``gc.freeze``): the
    modules, their classes and functions, the composed config live as long as the process, and each
    full collection of the job would walk them again (0.2 s of a warm Claw-Eval job). Once per process:
    a later job's pipeline adds what it imports to the collector as usual."""
    with suppress(UserInputError):
        pipeline_function(task_name)
    _freeze_once()


@functools.cache
def _freeze_once() -> None:
    gc.freeze()


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
def hydra_main(cfg: DictConfig) -> None:
    """Run one pipeline (or one job of a multirun) as configured, closing with its wall time (the files
    and the MLflow run are printed as they are written); bad input, and a model whose every episode
    failed, end it with one line and a non-zero exit."""
    started = time.perf_counter()
    whole_lines()
    freeze_the_job_modules(cfg.task_name)  # this process runs jobs, then exits
    freeze_at_exit()
    try:
        run_pipeline(cfg)
    except UserInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except RunFailedError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        sys.exit(130)
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        where = f" writing {exc.filename}" if exc.filename else ""
        print(f"error: the disk is full{where}; {FINISHED_WORK_KEPT}", file=sys.stderr)
        sys.exit(1)
    print(f"{cfg.task_name} on {cfg.benchmark.name} done in {time.perf_counter() - started:.0f} s")


FINISHED_WORK_KEPT = "finished episodes and lineage nodes are kept, and a rerun resumes from them"
INTERRUPTED = f"interrupted; {FINISHED_WORK_KEPT}"
