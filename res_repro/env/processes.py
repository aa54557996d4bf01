"""Child processes that run code the harness does not trust (task code, mock services): a minimal
environment, death with the harness, and one registry so that SIGTERM and Ctrl-C kill them all at once.

A process started with :func:`track` is SIGKILLed, with its process group, by :func:`stop_children`;
after that call :func:`stopping` is true, and code waiting on such a child raises :class:`Stopped`
instead of reporting the killed child as a failure of the task.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from res_repro.sandbox.owner import OWNER_VAR, current_owner

PASSED_THROUGH = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
OUTPUT_TAIL = 2000

_LIVE: set[subprocess.Popen[Any]] = set()
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()


class Stopped(BaseException):
    """The harness is shutting down (SIGTERM, Ctrl-C): a child was killed for that, not by its task."""


def minimal_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The harness's PATH, HOME and locale only, plus ``extra``: no API keys, no proxies; and the owner
    label (:data:`~res_repro.sandbox.owner.OWNER_VAR`) by which a later run finds the child if this one
    is killed before it can stop it."""
    env = {key: os.environ[key] for key in PASSED_THROUGH if key in os.environ}
    env[OWNER_VAR] = current_owner().label()
    env.update(extra or {})
    return env


def dies_with_parent(argv: list[str]) -> list[str]:
    """``argv`` run so that the kernel kills it when the harness dies, even by SIGKILL (util-linux's
    ``setpriv --pdeathsig``, which survives the exec); unchanged where setpriv is missing."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", "--", *argv] if setpriv else argv


def start_runner(runner: Path, cwd: Path, log: IO[bytes]) -> subprocess.Popen[str]:
    """Start the standard-library script ``runner`` (a task-code or grader runner speaking JSON lines on
    stdin and stdout) in isolated mode, in ``cwd``, with :func:`minimal_env`, in its own process group,
    dying with the harness; its stderr goes to ``log``."""
    return subprocess.Popen(
        dies_with_parent([sys.executable, "-I", "-B", str(runner)]),
        cwd=cwd,
        env=minimal_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        encoding="utf-8",
        start_new_session=True,
    )


def output_tail(log: IO[bytes]) -> str:
    """The last characters a process wrote to ``log``."""
    log.seek(0)
    text = log.read().decode("utf-8", errors="replace").strip()
    return text[-OUTPUT_TAIL:] or "(no output)"


def signal_group(pid: int, signum: int) -> None:
    """Send ``signum`` to the process group led by ``pid``, if it still exists."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signum)


def stopping() -> bool:
    """Whether :func:`stop_children` has been called: the harness is on its way out."""
    return _STOPPING.is_set()


@contextlib.contextmanager
def track(process: subprocess.Popen[Any]) -> Iterator[subprocess.Popen[Any]]:
    """Register ``process`` (the leader of its own process group) for :func:`stop_children` while the
    block runs; a process started after the harness began stopping is killed at once."""
    with _LIVE_LOCK:
        _LIVE.add(process)
    if stopping():
        signal_group(process.pid, signal.SIGKILL)
    try:
        yield process
    finally:
        with _LIVE_LOCK:
            _LIVE.discard(process)


def stop_children() -> None:
    """SIGKILL every tracked child's process group; from now on :func:`stopping` is true."""
    _STOPPING.set()
    with _LIVE_LOCK:
        live = list(_LIVE)
    for process in live:
        signal_group(process.pid, signal.SIGKILL)
