"""Commands in a Docker container with one engine round trip each: a persistent runner shell.

Starting a ``docker exec`` costs three API round trips (create, start, inspect). Instead, a long-lived
``sh`` per sandbox (the runner, itself one attached exec) reads one line per command from its stdin and
runs the command as a fresh process in its working folder, with its variables (the marker by which a
timeout finds its orphans among them) and stdin from /dev/null. The command's stdout and stderr go
through one ``cat`` each, so that it is over only once every process holding its output has let go (as
an exec's stream ended then). The runner then ends both streams with the :class:`ShellFraming` frame
and the exit status, so each stream's bytes before its frame belong to the command. It runs one
command at a time, so at a timeout everything it started is the command's.
"""

from __future__ import annotations

import os
import secrets
import select
import shlex
import struct
import time
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from res_repro.sandbox.base import DRAIN_GRACE_S, ShellFraming

if TYPE_CHECKING:
    import docker

_POLL_IN = select.POLLIN | select.POLLHUP | select.POLLERR
_FRAME_HEADER = struct.Struct(">BxxxL")
STDOUT, STDERR = 1, 2
STATUS = '"$s"'  # the runner's variable holding the command's exit status
CHDIR_FAILED = 126  # the status of a command whose working folder does not exist, as ``docker exec``
# Runs as ``sh -c RUNNER``: reports its process id, then reads and runs commands with fds 3 and 5 open
# on its stdout and stderr.
RUNNER = "echo $$; exec sh 3>&1 5>&2"
# Around a command's body: fd 4 carries its exit status out of the command substitution, 6 is its stderr
# pipe; the shell that waits for it writes to /dev/null, so that its report of a command killed by a
# signal is not taken for the command's output.
COMMAND_OPEN = "s=$( { { { ("
COMMAND_CLOSE = (
    ") </dev/null 2>&6 3>&- 4>&- 5>&- 6>&-; echo $? >&4; } 2>/dev/null | cat >&3; } 6>&1 | cat >&5; } 4>&1 )"
)


class ExecStream:
    """The socket of an attached exec: Docker's multiplexed frames in, stdin bytes out."""

    def __init__(self, api: docker.APIClient, exec_id: str) -> None:
        self.exec_id = exec_id
        self._io = api.exec_start(exec_id, socket=True)
        self._sock = getattr(self._io, "_sock", self._io)
        self._poller = select.poll()
        self._poller.register(self._sock.fileno(), _POLL_IN)
        self._buffer = bytearray()

    def send(self, data: bytes) -> None:
        """Write to the exec's stdin."""
        self._sock.sendall(data)

    def read(self, timeout: float) -> list[tuple[int, bytes]] | None:
        """Frames (stream number, bytes) that arrive within ``timeout`` seconds; None at end of stream."""
        pending = getattr(self._sock, "pending", None)
        if not (pending and pending()) and not self._poller.poll(max(timeout, 0) * 1000):
            return []
        data = self._sock.recv(65536)
        if not data:
            return None
        self._buffer += data
        frames = []
        while len(self._buffer) >= _FRAME_HEADER.size:
            kind, size = _FRAME_HEADER.unpack_from(self._buffer)
            end = _FRAME_HEADER.size + size
            if len(self._buffer) < end:
                break
            frames.append((kind, bytes(self._buffer[_FRAME_HEADER.size : end])))
            del self._buffer[:end]
        return frames

    def close(self) -> None:
        """Close the connection."""
        for handle in (self._io, self._sock):
            with suppress(OSError):
                handle.close()


def command_body(argv: list[str], cwd: str, env: Mapping[str, str]) -> str:
    """The shell text that enters ``cwd``, exports ``env`` and becomes ``argv`` (every word quoted)."""
    exports = "".join(f"export {shlex.quote(f'{name}={value}')} && " for name, value in env.items())
    command = " ".join(shlex.quote(word) for word in argv)
    return f"cd -- {shlex.quote(cwd)} || exit {CHDIR_FAILED}; unset OLDPWD; {exports}exec {command}"


def runner_line(body: str, framing: ShellFraming) -> bytes:
    """The runner's input for one command: the command, then the end frame on both streams."""
    ends = f"{framing.end_frame(STATUS, STDOUT)}; {framing.end_frame(STATUS, STDERR)}"
    return f"{COMMAND_OPEN}{body}{COMMAND_CLOSE}; {ends}\n".encode()


def boot_ticks() -> int:
    """Now, in the clock ticks since boot that ``/proc/PID/stat`` gives a process's start in (containers
    share the host's kernel clock), less one tick of slack."""
    with open("/proc/uptime", encoding="ascii") as uptime:
        seconds = float(uptime.read().split()[0])
    return max(0, int(seconds * os.sysconf("SC_CLK_TCK")) - 1)


@dataclass
class RunnerResult:
    """What one command produced through the runner; ``status`` is None when no frame came."""

    status: int | None
    stdout: ShellFraming
    stderr: ShellFraming
    timed_out: bool
    flooded: bool


class CommandRunner:
    """One runner shell in a container; runs one command at a time (see the module docstring).

    ``attach`` starts an exec with stdin (argv, marker) and returns its stream; ``kill_tree`` (marker,
    runner pid) kills every process the runner started and every orphan carrying the marker.
    """

    def __init__(
        self,
        attach: Callable[[list[str], str], ExecStream],
        kill_tree: Callable[[str, str, int], None],
        marker_var: str,
    ) -> None:
        """Start the runner through ``attach``; commands carry ``marker_var`` set to their marker."""
        self._kill_tree = kill_tree
        self._marker_var = marker_var
        self.marker = secrets.token_hex(8)
        self.nonce = f"__res_done_{secrets.token_hex(12)}"
        self.framings = {STDOUT: ShellFraming(self.nonce), STDERR: ShellFraming(self.nonce)}
        self.stream = attach(["sh", "-c", RUNNER], self.marker)
        self.pid = self._read_pid()
        self.alive = True

    def _read_pid(self) -> str:
        """The runner's first line: its process id in the container."""
        line = b""
        deadline = time.perf_counter() + 30.0
        while not line.endswith(b"\n"):
            frames = self.stream.read(deadline - time.perf_counter())
            if frames is None or time.perf_counter() > deadline:
                raise OSError("the command runner did not start")
            line += b"".join(data for kind, data in frames if kind == STDOUT)
        return line.decode().strip()

    def run(
        self, argv: list[str], *, cwd: str, env: Mapping[str, str], cap: int, kill_after: int, deadline: float
    ) -> RunnerResult:
        """Run ``argv``; kill its tree at ``deadline`` or once both streams pass ``kill_after`` bytes.

        When the runner ends or answers no frame within the drain grace after a kill, :attr:`alive` is
        cleared and the runner must not be used again.
        """
        marker = secrets.token_hex(8)
        for framing in self.framings.values():
            framing.begin(cap, kill_after)
        body = command_body(argv, cwd, {**env, self._marker_var: marker})
        since = boot_ticks()
        self.stream.send(runner_line(body, self.framings[STDOUT]))
        status: dict[int, int | None] = {STDOUT: None, STDERR: None}
        timed_out = flooded = False
        while None in status.values():
            if time.perf_counter() >= deadline:
                if timed_out or flooded:  # killed, yet no frame: the runner itself is stuck
                    self.alive = False
                    break
                self._kill_tree(marker, self.pid, since)
                timed_out, deadline = True, time.perf_counter() + DRAIN_GRACE_S
                continue
            frames = self.stream.read(deadline - time.perf_counter())
            if frames is None:  # the runner ended (the container is gone)
                self.alive = False
                for framing in self.framings.values():
                    framing.finish()
                break
            for kind, data in frames:
                if kind in status and status[kind] is None:
                    status[kind] = self.framings[kind].feed(data)
            received = sum(framing.received for framing in self.framings.values())
            if not (timed_out or flooded) and received > kill_after:
                self._kill_tree(marker, self.pid, since)
                flooded, deadline = True, time.perf_counter() + DRAIN_GRACE_S
        return RunnerResult(status[STDOUT], self.framings[STDOUT], self.framings[STDERR], timed_out, flooded)

    def ended(self) -> bool:
        """Whether the runner has exited since its last command (something in the container killed it);
        output left between commands is dropped."""
        return self.stream.read(0) is None

    def close(self) -> None:
        """Drop the connection (the runner's processes go with the container)."""
        self.alive = False
        self.stream.close()
