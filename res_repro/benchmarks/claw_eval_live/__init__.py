"""Claw-Eval-Live: workflow tasks over mock HTTP services, graded by each task's grader.py.

Tasks are read from a local checkout of the benchmark (``benchmark.checkout=/path/to/Claw-Eval-Live``).
An episode starts the task's services on free ports (:mod:`.services`), offers the task's tools
through the harness's dispatcher (:mod:`.environment`), and grades with the task's own grader in a
separate interpreter (:mod:`.grading`). See :mod:`.task_file` for the on-disk format.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from res_repro.benchmarks.claw_eval_live.environment import ClawEvalLiveEnvironment, open_claw_eval_live
from res_repro.benchmarks.claw_eval_live.grading import Judge, JudgeError
from res_repro.benchmarks.claw_eval_live.services import ServiceError, ServiceManager
from res_repro.benchmarks.claw_eval_live.task_file import (
    DEFAULT_THRESHOLD,
    KIND,
    ClawEvalLiveConfig,
    ClawTaskFile,
    load_claw_eval_live,
)
from res_repro.env.task import Task
from res_repro.errors import UserInputError

__all__ = [
    "DEFAULT_THRESHOLD",
    "KIND",
    "ClawEvalLiveConfig",
    "ClawEvalLiveEnvironment",
    "ClawTaskFile",
    "Judge",
    "JudgeError",
    "ServiceError",
    "ServiceManager",
    "load_claw_eval_live",
    "load_claw_eval_live_benchmark",
    "open_claw_eval_live",
]


def load_claw_eval_live_benchmark(params: Mapping[str, Any], generated_dir: Path) -> list[Task]:
    """The registry's loader: ``checkout`` (required), ``task_filter`` and ``threshold`` from ``params``."""
    checkout = params.get("checkout")
    if not checkout or not Path(str(checkout)).expanduser().is_dir():
        found = f" ({checkout!r} is not a folder)" if checkout else ""
        raise UserInputError(
            f"claw_eval_live needs a local checkout of the benchmark{found}; "
            "set benchmark.checkout=/path/to/Claw-Eval-Live"
        )
    threshold = params.get("threshold")
    return load_claw_eval_live(
        Path(str(checkout)),
        task_filter=params.get("task_filter"),
        threshold=DEFAULT_THRESHOLD if threshold is None else float(threshold),
    )
