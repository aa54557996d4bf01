"""The Harbor on-disk task format (used by Terminal-Bench 2.x), loaded into and saved from :class:`Task`.

A task directory holds::

    instruction.md          the objective, in words
    task.toml               [task] [metadata] [verifier] [agent] [environment] [solution]
    environment/            Dockerfile and/or workspace/ (the starting contents of /app)
    solution/solve.sh       the reference solution
    tests/test.sh           the verifier; writes /logs/verifier/reward.txt or reward.json
"""

from __future__ import annotations

import logging
import shutil
import tomllib
from pathlib import Path
from textwrap import shorten
from typing import Any

import tomli_w
from pydantic import ValidationError

from res_repro.env.errors import TaskFormatError
from res_repro.env.formats.harbor.schema import TaskConfig, unknown_keys
from res_repro.env.task import Task

INSTRUCTION_FILE = "instruction.md"
CONFIG_FILE = "task.toml"
ENVIRONMENT_DIR = "environment"
WORKSPACE_DIR = "workspace"
SOLUTION_SCRIPT = "solution/solve.sh"
TEST_SCRIPT = "tests/test.sh"

log = logging.getLogger(__name__)


def _first_error(path: Path, error: ValidationError) -> TaskFormatError:
    """Turn pydantic's report into one line naming the file, the field and the expectation."""
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    got = first.get("input")
    expected = first["msg"][0].lower() + first["msg"][1:]
    return TaskFormatError(path, field, f"{expected} (got {shorten(repr(got), 80)})")


def parse_task_config(path: Path) -> TaskConfig:
    """Read and validate a task.toml; raise :class:`TaskFormatError` on any problem."""
    try:
        raw: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskFormatError(path, None, "missing; every task needs a task.toml") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskFormatError(path, None, f"not valid TOML: {exc}") from None
    try:
        config = TaskConfig.model_validate(raw)
    except ValidationError as exc:
        raise _first_error(path, exc) from None
    if config.steps:
        raise TaskFormatError(
            path, "steps", "multi-step tasks are not supported; expected a single-step task"
        )
    _warn_unknown(path, config)
    return config


_warned: set[tuple[str, str]] = set()


def _warn_unknown(path: Path, config: TaskConfig) -> None:
    """One warning per file and key that the schema does not define (the key is kept)."""
    for key in unknown_keys(config):
        if (str(path), key) not in _warned:
            _warned.add((str(path), key))
            log.warning("%s: unknown key '%s' (kept as it is; a newer Harbor may define it)", path, key)


def workspace_dir(task: Task) -> Path | None:
    """The folder copied to /app at the start of an episode, if the task has one."""
    workspace = task.path / ENVIRONMENT_DIR / WORKSPACE_DIR
    return workspace if workspace.is_dir() else None


def is_task_dir(path: Path) -> bool:
    """True when ``path`` looks like a Harbor task directory (it has a task.toml)."""
    return (path / CONFIG_FILE).is_file()


def load_task(task_dir: Path | str, benchmark: str = "harbor") -> Task:
    """Load one Harbor task directory, checking every file the harness relies on."""
    root = Path(task_dir).resolve()
    if not root.is_dir():
        raise TaskFormatError(root, None, "not a directory; expected a Harbor task directory")
    config = parse_task_config(root / CONFIG_FILE)
    instruction_path = root / INSTRUCTION_FILE
    if not instruction_path.is_file():
        raise TaskFormatError(instruction_path, None, "missing; every task needs its instruction")
    try:
        instruction = instruction_path.read_text(encoding="utf-8").strip()
    except UnicodeDecodeError as exc:
        raise TaskFormatError(
            instruction_path, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    if not instruction:
        raise TaskFormatError(instruction_path, None, "empty; expected the task's instruction")
    if not (root / TEST_SCRIPT).is_file():
        raise TaskFormatError(root / TEST_SCRIPT, None, "missing; the verifier script is required")
    if config.environment.docker_image is None and not (root / ENVIRONMENT_DIR).is_dir():
        raise TaskFormatError(
            root / ENVIRONMENT_DIR,
            None,
            "missing; expected a Dockerfile or workspace/, or environment.docker_image",
        )
    task_id = (config.task.name or root.name).rsplit("/", 1)[-1]  # Harbor names tasks org/name
    return Task(
        task_id=task_id, benchmark=benchmark, instruction=instruction, path=root, config=config, kind="harbor"
    )


def save_task(task: Task, dest: Path | str) -> Path:
    """Write ``task`` as a Harbor task directory at ``dest`` (which must not exist yet)."""
    dest = Path(dest)
    if dest.exists():
        raise FileExistsError(f"{dest}: already exists; refusing to overwrite a task directory")
    shutil.copytree(task.path, dest, ignore=shutil.ignore_patterns(CONFIG_FILE, INSTRUCTION_FILE))
    (dest / INSTRUCTION_FILE).write_text(task.instruction + "\n", encoding="utf-8")
    data = task.config.model_dump(mode="json", exclude_unset=True, exclude_none=True)
    (dest / CONFIG_FILE).write_text(tomli_w.dumps(data), encoding="utf-8")
    return dest
