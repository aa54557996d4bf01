"""The Claw-Eval-Live task format: workflow tasks over mock HTTP services, graded by each task's grader.py.

Tasks live in a checkout of the benchmark (see :mod:`.task_file` for the layout). An episode starts the
task's services on free ports (:mod:`.services`), offers the task's tools through the harness's
dispatcher (:mod:`.environment`), and grades with the task's own grader in a separate interpreter
(:mod:`.grading`). A copy of a task outside its checkout (a lineage node) loads with the checkout named
in its context.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from res_repro.env.errors import TaskFormatError
from res_repro.env.formats.base import DirectoryFormat
from res_repro.env.formats.claw_eval_live.draft import ClawEvalLiveDraft
from res_repro.env.formats.claw_eval_live.environment import ClawEvalLiveEnvironment, open_claw_eval_live
from res_repro.env.formats.claw_eval_live.grading import Judge, JudgeError
from res_repro.env.formats.claw_eval_live.services import ServiceError, ServiceManager
from res_repro.env.formats.claw_eval_live.task_file import (
    DEFAULT_THRESHOLD,
    GRADER_FILE,
    KIND,
    PACKAGE_DIR,
    TASK_FILE,
    ClawEvalLiveConfig,
    ClawTaskFile,
    load_claw_eval_live,
    load_claw_task,
)
from res_repro.env.formats.files import has_top_level_key
from res_repro.env.formats.tool_api.task_file import HTTP_ENDPOINTS_KEY, SOLUTION_FILE
from res_repro.env.task import Task
from res_repro.sandbox import Backend


def is_claw_eval_live_dir(path: Path) -> bool:
    """A directory with grader.py and a task.yaml that routes tools to HTTP endpoints (``tool_endpoints``)."""
    return (path / GRADER_FILE).is_file() and has_top_level_key(path / TASK_FILE, HTTP_ENDPOINTS_KEY)


def enclosing_checkout(path: Path) -> Path | None:
    """The checkout a task directory sits in (``<checkout>/tasks/<id>``), or None."""
    checkout = path.resolve().parent.parent
    return checkout if (checkout / PACKAGE_DIR).is_dir() else None


class ClawEvalLiveFormat(DirectoryFormat):
    """Claw-Eval-Live task directories: task.yaml, grader.py, fixtures/ and an optional solution/solve.py."""

    name = KIND
    interface = "tools"
    reference_dir = "solution"
    original_plans = (SOLUTION_FILE,)

    def detect(self, path: Path) -> bool:
        """See :func:`is_claw_eval_live_dir`."""
        return is_claw_eval_live_dir(path)

    def load(self, path: Path, benchmark: str, context: Mapping[str, Any]) -> Task:
        """Read and validate the directory; ``context`` may name ``checkout`` and ``threshold``.

        Without a checkout in the context, the task must sit in one (``<checkout>/tasks/<id>``).
        """
        checkout = context.get("checkout") or enclosing_checkout(path)
        if checkout is None:
            raise TaskFormatError(
                path,
                None,
                "a Claw-Eval-Live task outside a checkout needs the checkout it belongs to "
                "(its graders and services come from there)",
            )
        return load_claw_task(path, Path(checkout), threshold=context.get("threshold"), benchmark=benchmark)

    def context(self, task: Task) -> dict[str, Any]:
        """The checkout and the pass threshold."""
        config: ClawEvalLiveConfig = task.config
        return {"checkout": str(config.checkout), "threshold": config.threshold}

    def copy(self, task: Task, dest: Path) -> None:
        """The directory, with the harness's reference program (if the task uses one) as its
        solution/solve.py, so that changes can adapt it."""
        shutil.copytree(task.path, dest, symlinks=True)
        config: ClawEvalLiveConfig = task.config
        if config.reference is not None and not (dest / SOLUTION_FILE).is_file():
            (dest / SOLUTION_FILE).parent.mkdir(exist_ok=True)
            shutil.copyfile(config.reference, dest / SOLUTION_FILE)

    @contextmanager
    def open(self, task: Task, backend: Backend, seed: int) -> Iterator[ClawEvalLiveEnvironment]:
        """The task's services started on free ports as local processes, and for a task that works in the
        shell sandbox, a sandbox of ``backend`` with its files under /workspace."""
        with open_claw_eval_live(task, backend, seed) as environment:
            yield environment

    def draft(self, path: Path) -> ClawEvalLiveDraft:
        """The copy's task file."""
        return ClawEvalLiveDraft(path)

    def original_plan(self, task: Task) -> Path | None:
        """The task's reference program, its own or the harness's."""
        config: ClawEvalLiveConfig = task.config
        return config.reference

    def has_reference(self, task: Task) -> bool:
        """True when the task or the harness has an executable reference program for it."""
        config: ClawEvalLiveConfig = task.config
        return config.reference is not None

    def objective_files(self, task: Task) -> list[Path]:
        """The task's grader."""
        return [task.path / GRADER_FILE]

    def objective_settings(self, task: Task) -> dict[str, Any]:
        """The pass threshold."""
        config: ClawEvalLiveConfig = task.config
        return {"threshold": config.threshold}


CLAW_EVAL_LIVE = ClawEvalLiveFormat()


__all__ = [
    "CLAW_EVAL_LIVE",
    "DEFAULT_THRESHOLD",
    "KIND",
    "ClawEvalLiveConfig",
    "ClawEvalLiveDraft",
    "ClawEvalLiveEnvironment",
    "ClawTaskFile",
    "Judge",
    "JudgeError",
    "ServiceError",
    "ServiceManager",
    "load_claw_eval_live",
    "open_claw_eval_live",
]
