"""Writing a Harbor task as Harbor itself reads it: an ``org/name`` package name, schema 1.4, and only
fields Harbor defines (the harness's own ``[solution] timeout_sec`` moves to ``[metadata]``)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import tomli_w

from res_repro.env.errors import TaskFormatError
from res_repro.env.formats.harbor.schema import METADATA_KEY, WRITTEN_SCHEMA_VERSION
from res_repro.env.formats.harbor.task_file import CONFIG_FILE
from res_repro.env.task import Task

PACKAGE_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]*/[a-zA-Z0-9][a-zA-Z0-9._-]*$")


def package_part(text: str) -> str:
    """``text`` as one part of an ``org/name`` package name (letters, digits, ``._-``)."""
    cleaned = re.sub(r"[^a-zA-Z0-9._-]+", "-", text).strip("-.") or "task"
    return cleaned if cleaned[0].isalnum() else f"t{cleaned}"


def harbor_config(task: Task, name: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """The task.toml of ``task`` as Harbor reads it, named ``name`` (``org/name``), with ``metadata``
    recorded under ``[metadata.res_repro]``."""
    if not PACKAGE_NAME.match(name):
        raise TaskFormatError(task.path / CONFIG_FILE, "task.name", f"expected org/name, got {name!r}")
    data = task.config.model_dump(mode="json", exclude_unset=True, exclude_none=True)
    data.pop("version", None)
    data["schema_version"] = WRITTEN_SCHEMA_VERSION
    data["task"] = {**data.get("task", {}), "name": name}
    solution = data.setdefault("solution", {})
    recorded = dict(metadata)
    if "timeout_sec" in solution:
        recorded["solution_timeout_sec"] = solution.pop("timeout_sec")
    if not solution:
        data.pop("solution")
    environment = data.setdefault("environment", {})
    environment.pop("allow_internet", None)  # deprecated since schema 1.2: the effective mode replaces it
    environment["network_mode"] = task.config.environment.network.value
    data["metadata"] = {**data.get("metadata", {}), METADATA_KEY: recorded}
    first = ["schema_version", "artifacts"]
    return {key: data[key] for key in first if key in data} | {
        k: v for k, v in data.items() if k not in first
    }


def write_harbor_task(task: Task, dest: Path, name: str, metadata: dict[str, Any]) -> Path:
    """Copy ``task``'s directory to ``dest`` (which must not exist) with a Harbor-conformant task.toml."""
    if dest.exists():
        raise FileExistsError(f"{dest}: already exists; refusing to overwrite a task directory")
    config = harbor_config(task, name, metadata)
    shutil.copytree(task.path, dest, symlinks=True, ignore=shutil.ignore_patterns(CONFIG_FILE))
    (dest / CONFIG_FILE).write_text(tomli_w.dumps(config), encoding="utf-8")
    return dest
