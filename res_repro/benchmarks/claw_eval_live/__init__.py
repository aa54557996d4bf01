"""The Claw-Eval-Live suite: every task of a user's local checkout of the benchmark.

The task format itself (loading, services, grading) lives in :mod:`res_repro.env.formats.claw_eval_live`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from res_repro.env.formats.claw_eval_live.task_file import load_claw_eval_live
from res_repro.env.task import Task
from res_repro.errors import UserInputError

CHECKOUT_VARIABLE = "CLAW_EVAL_LIVE_DIR"  # where the checkout is when no option names it


def load_claw_eval_live_benchmark(params: Mapping[str, Any], generated_dir: Path) -> list[Task]:
    """The registry's loader: ``checkout`` (else $CLAW_EVAL_LIVE_DIR), ``task_filter`` and ``threshold``."""
    checkout = params.get("checkout") or os.environ.get(CHECKOUT_VARIABLE)
    if not checkout or not Path(str(checkout)).expanduser().is_dir():
        found = f" ({checkout!r} is not a folder)" if checkout else ""
        raise UserInputError(
            f"claw_eval_live needs a local checkout of the benchmark{found}: pass --checkout DIR to "
            f"check or validate, benchmark.checkout=DIR to a run, or set {CHECKOUT_VARIABLE}=DIR"
        )
    return load_claw_eval_live(
        Path(str(checkout)), task_filter=params.get("task_filter"), threshold=params.get("threshold")
    )
