"""The Harbor on-disk task format (used by Terminal-Bench 2.x), loaded into and saved from :class:`Task`.

A task directory holds::

    instruction.md          the objective, in words
    task.toml               [task] [metadata] [verifier] [agent] [environment] [solution]
    environment/            Dockerfile and/or workspace/ (the starting contents of /app)
    solution/solve.sh       the reference solution
    tests/test.sh           the verifier; writes /logs/verifier/reward.txt or reward.json
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from res_repro.env.errors import TaskFormatError
from res_repro.env.task import Task

INSTRUCTION_FILE = "instruction.md"
CONFIG_FILE = "task.toml"
ENVIRONMENT_DIR = "environment"
WORKSPACE_DIR = "workspace"
SOLUTION_SCRIPT = "solution/solve.sh"
TEST_SCRIPT = "tests/test.sh"


class _Section(BaseModel):
    """A task.toml table: known fields are typed; unknown ones are kept (other tools add their own)."""

    model_config = ConfigDict(extra="allow")


class TaskSection(_Section):
    """``[task]``: identity."""

    name: str | None = None
    version: str = "1.0"


class MetadataSection(_Section):
    """``[metadata]``: descriptive fields, free-form beyond these."""

    category: str | None = None
    difficulty: str | None = None
    tags: list[str] = Field(default_factory=list)


class VerifierSection(_Section):
    """``[verifier]``: how long tests/test.sh may run."""

    timeout_sec: float = Field(default=120.0, gt=0)
    env: dict[str, str] = Field(default_factory=dict)


class AgentSection(_Section):
    """``[agent]``: the agent's wall-clock budget."""

    timeout_sec: float = Field(default=600.0, gt=0)


class EnvironmentSection(_Section):
    """``[environment]``: image, network and resources of the sandbox."""

    docker_image: str | None = None
    build_timeout_sec: float = Field(default=600.0, gt=0)
    allow_internet: bool = False
    cpus: float = Field(default=1.0, gt=0)
    memory_mb: int = Field(default=2048, gt=0)
    storage_mb: int = Field(default=10240, gt=0)


class SolutionSection(_Section):
    """``[solution]``: how long solution/solve.sh may run."""

    timeout_sec: float = Field(default=600.0, gt=0)
    env: dict[str, str] = Field(default_factory=dict)


class TaskConfig(BaseModel):
    """The whole task.toml. Unknown top-level tables are refused; a typo there would be silently lost."""

    model_config = ConfigDict(extra="forbid")

    version: str | None = None
    task: TaskSection = Field(default_factory=TaskSection)
    metadata: MetadataSection = Field(default_factory=MetadataSection)
    verifier: VerifierSection = Field(default_factory=VerifierSection)
    agent: AgentSection = Field(default_factory=AgentSection)
    environment: EnvironmentSection = Field(default_factory=EnvironmentSection)
    solution: SolutionSection = Field(default_factory=SolutionSection)


def _first_error(path: Path, error: ValidationError) -> TaskFormatError:
    """Turn pydantic's report into one line naming the file, the field and the expectation."""
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"])
    got = first.get("input")
    expected = first["msg"][0].lower() + first["msg"][1:]
    if first["type"] == "extra_forbidden":
        expected = "unknown table; expected one of task, metadata, verifier, agent, environment, solution"
    return TaskFormatError(path, field, f"{expected} (got {got!r})")


def parse_task_config(path: Path) -> TaskConfig:
    """Read and validate a task.toml; raise :class:`TaskFormatError` on any problem."""
    try:
        raw: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskFormatError(path, None, "missing; every task needs a task.toml") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TaskFormatError(path, None, f"not valid TOML: {exc}") from None
    try:
        return TaskConfig.model_validate(raw)
    except ValidationError as exc:
        raise _first_error(path, exc) from None


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
    instruction = instruction_path.read_text(encoding="utf-8").strip()
    if not instruction:
        raise TaskFormatError(instruction_path, None, "empty; expected the task's instruction")
    if not (root / TEST_SCRIPT).is_file():
        raise TaskFormatError(root / TEST_SCRIPT, None, "missing; the verifier script is required")
    if not (root / ENVIRONMENT_DIR).is_dir():
        raise TaskFormatError(root / ENVIRONMENT_DIR, None, "missing; expected a Dockerfile or workspace/")
    task_id = config.task.name or root.name
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
    data = task.config.model_dump(mode="json", exclude_none=True)
    (dest / CONFIG_FILE).write_text(tomli_w.dumps(data), encoding="utf-8")
    return dest
