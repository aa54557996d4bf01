"""The shell sandbox some Claw-Eval-Live tasks work in: their files under /workspace, three sandbox tools,
and the commands whose output the grader reads afterwards (the environment snapshot).

A task that lists ``sandbox_files`` (or, failing that, ``environment.fixtures``) together with
``env_snapshot_commands`` gets a sandbox of the configured backend whose /app is also reachable as
/workspace. After the episode, ``sandbox_grader_files`` are added (the agent never saw them) and each
snapshot command runs there; the grader receives ``{"cmd:<command>": {exit_code, stdout, stderr}}``.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from res_repro.env.tools import ToolCall, ToolResponse, ToolSpec, error, ok
from res_repro.sandbox.base import APP_DIR, Sandbox, SandboxError

WORKSPACE = "/workspace"
# The benchmark's images have ``python``; a host may have only ``python3``. A folder first on the
# sandbox's PATH holds a ``python`` that runs ``python3``.
SHIM_DIR = "/tmp/.res-repro-bin"
PYTHON_SHIM = '#!/bin/sh\nexec python3 "$@"\n'
SNAPSHOT_TIMEOUT_S = 10.0  # as the benchmark's own runner allows each snapshot command
READ_CAP_BYTES = 256 * 1024

WORKSPACE_TOOLS = (
    ToolSpec(
        "sandbox_shell_exec",
        "Execute a shell command inside the sandbox and return stdout/stderr.",
        {
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 600},
            },
            "required": ["command"],
        },
    ),
    ToolSpec(
        "sandbox_file_read",
        "Read the contents of a file at the given path.",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
    ToolSpec(
        "sandbox_file_write",
        "Write content to a file at the given path (creates parent directories if needed).",
        {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    ),
)


def _listed(spec_extra: dict[str, Any], key: str) -> list[str]:
    value = spec_extra.get(key) or []
    return [str(item) for item in value] if isinstance(value, list) else []


def workspace_files(spec_extra: dict[str, Any], fixtures: list[str]) -> list[str]:
    """The task files the agent finds under /workspace (relative to the task directory)."""
    return _listed(spec_extra, "sandbox_files") or list(fixtures)


def needs_workspace(spec_extra: dict[str, Any]) -> bool:
    """True when the task works in the shell sandbox: it ships sandbox files or snapshot commands."""
    return bool(_listed(spec_extra, "sandbox_files") or _listed(spec_extra, "env_snapshot_commands"))


def add_python_shim(sandbox: Sandbox) -> None:
    """Put ``python`` (running ``python3``) in :data:`SHIM_DIR` unless the sandbox already has one."""
    if sandbox.exec("command -v python >/dev/null", timeout=10).exit_code != 0:
        sandbox.write_file(f"{SHIM_DIR}/python", PYTHON_SHIM, mode=0o755)


def shim_path(path: str) -> str:
    """``path`` (a PATH value) with :data:`SHIM_DIR` first."""
    return f"{SHIM_DIR}:{path}"


def stage(task_dir: Path, files: list[str], dest: Path) -> Path:
    """Copy ``files`` (relative to ``task_dir``) to ``dest``, keeping their relative paths."""
    for relative in files:
        source = task_dir / relative
        if source.is_file():
            (dest / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / relative)
    return dest


def _in_app(path: str) -> str:
    """A sandbox path as the transfer folder holds it (/workspace/x is /app/x; relative paths too)."""
    if path.startswith(WORKSPACE + "/") or path == WORKSPACE:
        return APP_DIR + path[len(WORKSPACE) :]
    return path if path.startswith("/") else f"{APP_DIR}/{path}"


def workspace_call(sandbox: Sandbox, call: ToolCall) -> ToolResponse:
    """Answer one sandbox tool call (shell, read, write) in ``sandbox``."""
    arguments = call.arguments
    try:
        if call.tool == "sandbox_shell_exec":
            timeout = float(arguments.get("timeout_seconds") or 30)
            result = sandbox.exec(str(arguments["command"]), timeout=timeout, cwd=APP_DIR)
            return ok({"exit_code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr})
        if call.tool == "sandbox_file_read":
            data = sandbox.read_file(_in_app(str(arguments["path"])), limit=READ_CAP_BYTES)
            return ok({"content": data[:READ_CAP_BYTES].decode("utf-8", "replace")})
        sandbox.write_file(_in_app(str(arguments["path"])), str(arguments["content"]))
        return ok({"written": len(str(arguments["content"]).encode())})
    except FileNotFoundError as exc:
        return error(404, str(exc))
    except (IsADirectoryError, SandboxError, OSError) as exc:
        return error(403, str(exc))


def snapshot(sandbox: Sandbox, task_dir: Path, spec_extra: dict[str, Any], staging: Path) -> dict[str, Any]:
    """Add the grader's files, run every snapshot command, and return what the grader reads."""
    grader_files = _listed(spec_extra, "sandbox_grader_files")
    if grader_files:
        sandbox.put_dir(stage(task_dir, grader_files, staging), APP_DIR)
    found: dict[str, Any] = {}
    for command in _listed(spec_extra, "env_snapshot_commands"):
        result = sandbox.exec(command, timeout=SNAPSHOT_TIMEOUT_S, cwd=APP_DIR)
        found[f"cmd:{command}"] = {
            "exit_code": -1 if result.timed_out else result.exit_code,
            "stdout": result.stdout,
            "stderr": result.stderr,
        }
    return found
