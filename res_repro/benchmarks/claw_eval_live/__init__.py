"""The Claw-Eval-Live suite: every task of a user's local checkout of the benchmark.

The task format itself (loading, services, grading) lives in :mod:`res_repro.env.formats.claw_eval_live`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from res_repro.env.formats.claw_eval_live.task_file import DEFAULT_THRESHOLD, load_claw_eval_live
from res_repro.env.task import Task
from res_repro.errors import UserInputError


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
