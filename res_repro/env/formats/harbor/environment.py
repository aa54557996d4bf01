"""The environment of a Harbor task: a sandbox, the terminal tools an agent uses in it, and the verifier."""

from __future__ import annotations

import errno
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import Any

from res_repro.env.errors import TaskFormatError
from res_repro.env.formats.harbor.schema import EnvironmentSection, NetworkMode, VerifierMode
from res_repro.env.formats.harbor.task_file import (
    CONFIG_FILE,
    ENVIRONMENT_DIR,
    SOLUTION_SCRIPT,
    workspace_dir,
)
from res_repro.env.formats.harbor.verifier import run_verifier
from res_repro.env.grade import Grade
from res_repro.env.outcome import AgentOutcome, StopReason
from res_repro.env.task import Task
from res_repro.env.tools import ToolCall, ToolResponse, ToolSpec, error, ok
from res_repro.sandbox.base import APP_DIR, SOLUTION_DIR, ExecResult, Sandbox, SandboxError, SandboxSpec

COMMAND_TIMEOUT_S = 120.0
READ_CAP_BYTES = 256 * 1024
NO_SPACE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}  # the sandbox's storage limits, reached

TERMINAL_TOOLS = (
    ToolSpec(
        "run_command",
        "Run a bash command in a persistent shell (the working directory and exported variables persist). "
        "Returns the exit code and the combined output.",
        {
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "timeout_sec": {"type": "number", "exclusiveMinimum": 0, "maximum": 3600},
            },
            "required": ["command"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "read_file",
        "Read a text file (absolute path, or relative to /app).",
        {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "write_file",
        "Create or replace a text file (absolute path, or relative to /app); parent folders are created.",
        {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
            "additionalProperties": False,
        },
    ),
)


def sandbox_spec_for(task: Task, env: EnvironmentSection | None = None) -> SandboxSpec:
    """Translate a Harbor task's [environment] table (or ``env``, a verifier's own) into a sandbox
    specification.

    An allowlist network policy is refused: neither backend can limit the network to some hosts.
    """
    env = env or task.config.environment
    if env.network is NetworkMode.ALLOWLIST:
        raise TaskFormatError(task.path / CONFIG_FILE, "environment.network_mode", ALLOWLIST_REFUSAL)
    environment_dir = task.path / ENVIRONMENT_DIR
    return SandboxSpec(
        workspace=workspace_dir(task),
        environment_dir=environment_dir if environment_dir.is_dir() else None,
        docker_image=env.docker_image,
        allow_network=env.network is NetworkMode.PUBLIC,
        cpus=env.cpus,
        memory_mb=env.memory_mb,
    )


# Dockerfile instructions that change the image's contents, which the local sandbox cannot reproduce.
BUILD_STEPS = re.compile(r"^\s*(RUN|COPY|ADD)\s", re.IGNORECASE | re.MULTILINE)
USE_DOCKER = "use --sandbox docker (sandbox=docker in a run)"


ALLOWLIST_REFUSAL = (
    "'allowlist' cannot be enforced by the local or docker sandbox; expected 'public' or 'no-network'"
)


def network_refusal(task: Task) -> str | None:
    """Why no backend can give ``task`` its network policy (an allowlist), or None."""
    if task.config.environment.network is NetworkMode.ALLOWLIST:
        return f"environment.network_mode: {ALLOWLIST_REFUSAL}"
    return None


def local_refusal(task: Task) -> str | None:
    """Why the local sandbox cannot give ``task`` its environment, or None when it can.

    The local sandbox starts from environment/workspace/ on the host's tools; a task that ships no
    workspace and whose environment is a prebuilt image, or a Dockerfile that installs or copies
    things, needs Docker.
    """
    if workspace_dir(task) is not None:
        return None
    image = task.config.environment.docker_image
    if image:
        return (
            f"needs its Docker image {image} (environment.docker_image) and ships no workspace/: {USE_DOCKER}"
        )
    dockerfile = task.path / ENVIRONMENT_DIR / "Dockerfile"
    if dockerfile.is_file() and BUILD_STEPS.search(dockerfile.read_text(encoding="utf-8", errors="replace")):
        return f"needs its Docker environment ({dockerfile} has RUN/COPY steps, no workspace/): {USE_DOCKER}"
    return None


def _absolute(path: str) -> str:
    return path if path.startswith("/") else f"{APP_DIR}/{path}"


def output_text(result: ExecResult) -> str:
    """A command's output as the agent reads it: cut output ends with a marker saying what was cut."""
    if not result.truncated:
        return result.stdout
    kept = len(result.stdout.encode())
    total = f"more than {result.output_bytes}" if result.output_killed else str(result.output_bytes)
    reason = "; the command was killed for writing too much" if result.output_killed else ""
    return f"{result.stdout}\n[output truncated: {kept} of {total} bytes kept{reason}]"


SandboxOpener = Callable[[SandboxSpec], AbstractContextManager[Sandbox]]
APP_ARCHIVE = "/tmp/.res-repro-app.tar"  # /app on its way from the agent's sandbox to the verifier's
ARTIFACT_CAP_BYTES = 64 * 1024
REFERENCE_OUTPUT_CHARS = 2000  # of the reference solution's output its record keeps (the end)


class TerminalEnvironment:
    """Terminal tools over a started sandbox. Grading runs the task's verifier in the same sandbox, or,
    when the task asks for a separate verifier, in a fresh sandbox (from ``open_sandbox``) that receives
    the agent's /app; the task's ``artifacts`` are then read from the agent's sandbox into the grade."""

    def __init__(self, task: Task, sandbox: Sandbox, open_sandbox: SandboxOpener | None = None) -> None:
        self.task = task
        self.sandbox = sandbox
        self.open_sandbox = open_sandbox

    @property
    def tools(self) -> list[ToolSpec]:
        """run_command, read_file and write_file."""
        return list(TERMINAL_TOOLS)

    def call(self, call: ToolCall) -> ToolResponse:
        """Answer a terminal tool call; sandbox path errors come back as 4xx responses."""
        handler = getattr(self, f"_tool_{call.tool}", None)
        if handler is None:
            return error(404, f"unknown tool {call.tool!r}; available: run_command, read_file, write_file")
        spec = next(s for s in TERMINAL_TOOLS if s.name == call.tool)
        problem = spec.argument_error(call.arguments)
        if problem:
            return error(400, f"invalid arguments: {problem}")
        try:
            return handler(**call.arguments)
        except FileNotFoundError as exc:
            return error(404, str(exc))
        except (IsADirectoryError, SandboxError) as exc:
            return error(403, str(exc))
        except OSError as exc:  # the agent filled the sandbox's disk: its problem, not the harness's
            if exc.errno in NO_SPACE:
                return error(507, f"no space left in the sandbox: {exc.strerror or exc}")
            raise

    def _tool_run_command(self, command: str, timeout_sec: float = COMMAND_TIMEOUT_S) -> ToolResponse:
        result = self.sandbox.shell().run(command, timeout=timeout_sec)
        body: dict[str, Any] = {"exit_code": result.exit_code, "output": output_text(result)}
        if result.timed_out:
            body["timed_out"] = True
        if result.truncated:
            body["truncated"] = True
        if result.output_killed:
            body["output_killed"] = True
        return ok(body)

    def _tool_read_file(self, path: str) -> ToolResponse:
        data = self.sandbox.read_file(_absolute(path), limit=READ_CAP_BYTES + 1)
        body: dict[str, Any] = {"content": data[:READ_CAP_BYTES].decode("utf-8", "replace")}
        if len(data) > READ_CAP_BYTES:
            body["truncated"] = True
        return ok(body)

    def _tool_write_file(self, path: str, content: str) -> ToolResponse:
        self.sandbox.write_file(_absolute(path), content)
        return ok({"written": len(content.encode())})

    def _verify(self) -> Grade:
        """The verifier's grade, from this sandbox or (``environment_mode = "separate"``) a fresh one."""
        verifier = self.task.config.verifier
        if verifier.mode is not VerifierMode.SEPARATE or self.open_sandbox is None:
            return run_verifier(self.sandbox, self.task)
        self.sandbox.exec(f"tar -C {APP_DIR} -cf {APP_ARCHIVE} .", timeout=COMMAND_TIMEOUT_S)
        archive = self.sandbox.read_file(APP_ARCHIVE)
        with self.open_sandbox(sandbox_spec_for(self.task, verifier.environment)) as fresh:
            fresh.write_file(APP_ARCHIVE, archive)
            fresh.exec(
                f"tar -C {APP_DIR} -xf {APP_ARCHIVE} && rm -f {APP_ARCHIVE}", timeout=COMMAND_TIMEOUT_S
            )
            return run_verifier(fresh, self.task)

    def _artifacts(self) -> dict[str, str]:
        """Each artifact path the task names, read from the agent's sandbox (cut at 64 KiB), or why not."""
        found: dict[str, str] = {}
        for path in self.task.config.artifact_paths():
            try:
                data = self.sandbox.read_file(_absolute(path), limit=ARTIFACT_CAP_BYTES)
            except (OSError, SandboxError) as exc:
                found[path] = f"[not collected: {type(exc).__name__}: {exc}]"
                continue
            found[path] = data[:ARTIFACT_CAP_BYTES].decode("utf-8", "replace")
        return found

    def run_reference(self) -> AgentOutcome:
        """Copy solution/ to /solution and run solve.sh from /app."""
        self.sandbox.put_dir(self.task.path / Path(SOLUTION_SCRIPT).parent, SOLUTION_DIR)
        result = self.sandbox.exec(
            f"bash {SOLUTION_DIR}/solve.sh",
            timeout=self.task.config.solution_timeout_sec,
            cwd=APP_DIR,
            env=self.task.config.solution.env,
        )
        stop = StopReason.TIME_LIMIT if result.timed_out else StopReason.ANSWERED
        output = (result.stdout + result.stderr)[-REFERENCE_OUTPUT_CHARS:]
        message = {"role": "tool", "name": "solve.sh", "exit_code": result.exit_code, "content": output}
        return AgentOutcome(stop_reason=stop, turns=1, tool_calls=1, messages=[message])

    def grade(self, answer: str | None) -> Grade:
        """Run the task's verifier; the final answer plays no part in a Harbor grade.

        When the agent has filled the sandbox's disk so that the verifier cannot even be copied in, the
        attempt fails (the agent's doing, not the harness's).
        """
        self.sandbox.end_agent_processes()  # nothing the agent left running writes while tests run
        try:
            grade = self._verify()
            artifacts = self._artifacts()
            return replace(grade, evidence={**grade.evidence, "artifacts": artifacts}) if artifacts else grade
        except OSError as exc:
            if exc.errno not in NO_SPACE:
                raise
            reason = f"the verifier could not run: no space left in the sandbox ({exc.strerror or exc})"
            return Grade(score=0.0, passed=False, evidence={"error": reason})
