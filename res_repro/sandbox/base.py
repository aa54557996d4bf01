"""The sandbox protocol: a small interface that every isolation backend implements.

A sandbox is one isolated machine-like place for one episode. It exposes the Harbor paths
(``/app`` as the working directory, ``/tests``, ``/solution``, ``/logs``), runs commands with a timeout
and an output cap, moves files in and out, offers a persistent shell, and on close (or at a command's
timeout) kills every process it started, children included.
"""

from __future__ import annotations

import abc
import posixpath
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

APP_DIR = "/app"
TESTS_DIR = "/tests"
SOLUTION_DIR = "/solution"
LOGS_DIR = "/logs"
VERIFIER_LOGS_DIR = "/logs/verifier"
AGENT_LOGS_DIR = "/logs/agent"
TMP_DIR = "/tmp"
SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"  # the usual search path
# The only sandbox folders that files may be moved into or out of.
TRANSFER_ROOTS = (APP_DIR, TESTS_DIR, SOLUTION_DIR, LOGS_DIR, TMP_DIR)

MAX_SYMLINKS = 40  # links followed while resolving a host path inside a sandbox
DRAIN_GRACE_S = 2.0  # how long to collect output once the process tree has been killed
LAST_STATUS = '"$?"'  # the shell word for the exit status of the last command


class SandboxError(RuntimeError):
    """The sandbox itself failed (could not start, died, refused a path): an infrastructure failure."""


@dataclass(frozen=True)
class ExecResult:
    """What one command produced. Output beyond the cap is dropped and ``truncated`` is set."""

    exit_code: int
    stdout: str
    stderr: str = ""
    timed_out: bool = False
    truncated: bool = False
    seconds: float = 0.0
    output_bytes: int = 0  # everything the command wrote, kept or dropped
    output_killed: bool = False  # killed for writing more than the output kill limit

    @property
    def ok(self) -> bool:
        """True when the command finished in time with exit status 0."""
        return self.exit_code == 0 and not self.timed_out


@dataclass(frozen=True)
class SandboxLimits:
    """Limits every sandbox enforces whatever the task asks for (set from ``conf/sandbox``).

    ``pids``: processes and threads alive at once; ``workspace_mb``: what the sandbox's writable
    folders may hold; ``output_cap_bytes``: output kept per stream of a command (the rest is read and
    dropped); ``output_kill_bytes``: a command that writes more than this is killed.
    """

    pids: int
    workspace_mb: int
    output_cap_bytes: int
    output_kill_bytes: int


DEFAULT_LIMITS = SandboxLimits(
    pids=512, workspace_mb=1024, output_cap_bytes=1 << 20, output_kill_bytes=64 << 20
)
"""The limits of a backend given by name alone, which episode ids leave implicit. ``conf/sandbox`` sets
the same values (tests/test_episode_keys.py keeps them equal), so default runs share their episodes."""


@dataclass(frozen=True)
class SandboxSpec:
    """What a sandbox needs to know to start: the task's environment and its resource limits."""

    workspace: Path | None = None  # host folder copied to /app at start (may be None: empty /app)
    environment_dir: Path | None = None  # the task's environment/ folder (Dockerfile lives here)
    docker_image: str | None = None  # prebuilt image; wins over environment/Dockerfile
    allow_network: bool = False
    cpus: float = 1.0
    memory_mb: int = 2048
    max_file_mb: int = 1024  # largest file a command may write
    env: dict[str, str] = field(default_factory=dict)  # extra variables visible inside
    limits: SandboxLimits = DEFAULT_LIMITS
    # (link, target) pairs: paths inside that lead to a transfer folder (a task that works in /workspace)
    aliases: tuple[tuple[str, str], ...] = ()

    def output_cap(self, requested: int | None) -> int:
        """The output cap of one command: the caller's, else the configured one."""
        return self.limits.output_cap_bytes if requested is None else requested


def sandbox_path(path: str) -> str:
    """Normalise an absolute sandbox path, refusing any that leaves the :data:`TRANSFER_ROOTS`.

    ``..`` components are resolved lexically first, so ``/app/../etc/passwd`` is refused.
    """
    if not path.startswith("/"):
        raise SandboxError(f"sandbox path must be absolute: {path!r}")
    normal = "/" + posixpath.normpath(path).lstrip("/")
    if not any(normal == root or normal.startswith(root + "/") for root in TRANSFER_ROOTS):
        roots = ", ".join(TRANSFER_ROOTS)
        raise SandboxError(f"sandbox path {path!r} is outside the transfer folders ({roots})")
    return normal


class CappedBuffer:
    """Collects bytes up to ``cap``; what arrives beyond it is dropped and ``truncated`` is set.

    ``total`` counts every byte offered, kept or not, so a reader can stop a command that writes
    without end.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.truncated = False
        self.total = 0

    def add(self, chunk: bytes) -> None:
        """Keep as much of ``chunk`` as the cap allows."""
        self.total += len(chunk)
        room = self.cap - len(self.data)
        if len(chunk) > room:
            self.truncated = True
            chunk = chunk[: max(room, 0)]
        self.data += chunk

    def text(self) -> str:
        """The kept bytes decoded as UTF-8 (undecodable bytes replaced)."""
        return self.data.decode("utf-8", "replace")


class ShellFraming:
    """The end-of-command framing shared by persistent shells.

    Each command is sourced from a file with stdin from /dev/null and stderr joined to stdout, then the
    shell prints a newline, a per-session nonce and the exit status on a line of its own. :meth:`feed`
    takes the shell's output as it arrives and returns the exit status once that frame line is seen;
    output that arrives after the frame is kept for the next command.
    """

    def __init__(self, nonce: str) -> None:
        self.nonce = nonce
        self.output = CappedBuffer(DEFAULT_LIMITS.output_cap_bytes)
        self.kill_after = DEFAULT_LIMITS.output_kill_bytes
        self._pending = bytearray()
        self._end = re.compile(b"\\n" + re.escape(nonce.encode()) + b" (-?[0-9]+)\\n")
        self._keep = len(nonce) + 16  # enough unscanned tail to hold a frame line split across reads

    def command_line(self, script: str) -> bytes:
        """The line that makes the shell source the file ``script`` and then print the end frame."""
        return f"command . {script} </dev/null 2>&1; {self.end_frame(LAST_STATUS)}\n".encode()

    def end_frame(self, status: str, stream: int = 1) -> str:
        """The shell command that prints the end frame with the exit status ``status`` (a shell word such
        as ``"$?"``) on file descriptor ``stream``."""
        return f"printf '\\n%s %d\\n' {self.nonce} {status} >&{stream}"

    def begin(self, cap: int, kill_after: int) -> None:
        """Start collecting a new command's output: keep ``cap`` bytes, flag it past ``kill_after``."""
        self.output = CappedBuffer(cap)
        self.kill_after = kill_after

    @property
    def received(self) -> int:
        """Bytes of the current command's output that have arrived so far, kept or not."""
        return self.output.total + len(self._pending)

    @property
    def over_limit(self) -> bool:
        """True once the command has written more than its kill limit (it must then be killed)."""
        return self.received > self.kill_after

    def feed(self, chunk: bytes) -> int | None:
        """Consume shell output; return the command's exit status when its frame has arrived."""
        self._pending += chunk
        match = self._end.search(self._pending)
        if match:
            status = int(match.group(1))
            self.output.add(bytes(self._pending[: match.start()]))
            del self._pending[: match.end()]
            return status
        flush = len(self._pending) - self._keep
        if flush > 0:
            self.output.add(bytes(self._pending[:flush]))
            del self._pending[:flush]
        return None

    def finish(self) -> None:
        """Move the unscanned output into the result: the shell ended without a frame."""
        self.output.add(bytes(self._pending))
        self._pending.clear()


class ShellSession(abc.ABC):
    """A long-lived shell inside a sandbox: the working directory and exported variables persist."""

    @abc.abstractmethod
    def run(self, command: str, timeout: float, output_cap: int | None = None) -> ExecResult:
        """Run ``command`` in the shell; stdout and stderr arrive merged in ``stdout``.

        At the timeout, or once the output passes the sandbox's kill limit, every process the command
        started is killed and the shell is restarted (its working directory and variables reset); the
        result then has ``timed_out`` or ``output_killed`` set. ``output_cap`` defaults to the
        sandbox's configured cap.
        """

    @abc.abstractmethod
    def close(self) -> None:
        """End the shell and everything it started."""


class FramedShell(ShellSession):
    """A shell driven by the :class:`ShellFraming` protocol; backends supply sending and waiting."""

    _framing: ShellFraming
    _limits: SandboxLimits

    @abc.abstractmethod
    def _send(self, command: str) -> Any:
        """Hand ``command`` to the shell (starting it if needed); return what :meth:`_wait` waits on."""

    @abc.abstractmethod
    def _wait(self, handle: Any, deadline: float) -> tuple[int, bool]:
        """Feed output to the framing until the command's frame or ``deadline``; (exit code, timed out).

        When the framing is :attr:`~ShellFraming.over_limit` the shell's tree is killed at once.
        """

    def run(self, command: str, timeout: float, output_cap: int | None = None) -> ExecResult:
        """Run ``command`` in the persistent shell; see :meth:`ShellSession.run`."""
        started = time.perf_counter()
        handle = self._send(command)
        cap = self._limits.output_cap_bytes if output_cap is None else output_cap
        self._framing.begin(cap, self._limits.output_kill_bytes)
        code, timed_out = self._wait(handle, started + timeout)
        output = self._framing.output
        return ExecResult(
            exit_code=code,
            stdout=output.text(),
            timed_out=timed_out,
            truncated=output.truncated,
            seconds=time.perf_counter() - started,
            output_bytes=output.total,
            output_killed=not timed_out and self._framing.over_limit,
        )


class Sandbox(abc.ABC):
    """One isolated environment for one episode. Use it as a context manager."""

    @abc.abstractmethod
    def start(self) -> None:
        """Create the isolated environment (idempotent)."""

    @abc.abstractmethod
    def exec(
        self,
        command: str | list[str],
        timeout: float,
        *,
        cwd: str = APP_DIR,
        env: dict[str, str] | None = None,
        output_cap: int | None = None,
    ) -> ExecResult:
        """Run one command as a fresh process; a string goes to ``bash -c`` (``sh -c`` under Docker).

        At the timeout the command and all its children are killed and ``timed_out`` is set; once its
        output passes the sandbox's kill limit they are killed and ``output_killed`` is set. Each stream
        keeps ``output_cap`` bytes (default: the sandbox's configured cap).
        """

    @abc.abstractmethod
    def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None:
        """Create or replace a file at an absolute sandbox path, creating parent folders."""

    @abc.abstractmethod
    def read_file(self, path: str, limit: int | None = None) -> bytes:
        """Return a file's bytes (its first ``limit`` bytes when given: the harness never holds more of a
        file than it uses); ``FileNotFoundError`` when it does not exist."""

    @abc.abstractmethod
    def put_dir(self, host_dir: Path, path: str) -> None:
        """Copy a host folder's contents into the sandbox folder ``path`` (created if missing)."""

    @abc.abstractmethod
    def shell(self) -> ShellSession:
        """Return the sandbox's persistent shell, starting it on first use."""

    @abc.abstractmethod
    def close(self) -> None:
        """Kill every process, release every resource (idempotent)."""

    def end_agent_processes(self) -> None:
        """Before a verifier runs: end what the agent's shell left running where the verifier's commands
        could not reach it anyway, so that none of it writes where the verifier reads. The default does
        nothing: where ``exec`` shares the shell's processes and network (Docker's), a server the agent
        left running is part of what a task's tests may check."""
        return

    @contextmanager
    def closed_on_failure(self, what: str) -> Iterator[None]:
        """Close this sandbox when the block fails; an OSError becomes a SandboxError saying ``what``
        could not be done (``cannot ...``) and why."""
        try:
            yield
        except OSError as exc:
            self.close()
            raise SandboxError(f"{what}: {exc}") from exc
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
