"""Per-sandbox process-count limits for the local backend, through the kernel's ``pids`` cgroup.

A sandbox gets its own cgroup (``res-repro/sandbox-<owner pid>.<owner start>-<id>``, see
:mod:`.stale`) under a writable ``pids`` hierarchy: cgroup v1's
``pids`` controller, or cgroup v2 where the ``pids`` controller is (or can be) enabled for children of
this process's cgroup. Every process of the sandbox joins it before it executes anything, so a fork
bomb stops at ``pids.max`` and :meth:`PidsCgroup.kill` can find every process that is left.

Creating cgroups needs root (or a delegated subtree). Where none is writable, :func:`pids_cgroup`
returns None and the backend falls back to ``RLIMIT_NPROC``, which the kernel enforces only for
sandboxes whose processes do not run as the host's root.
"""

from __future__ import annotations

import functools
import os
import secrets
import select
import signal
import time
from contextlib import suppress
from pathlib import Path

from res_repro.sandbox.owner import current_owner

GROUP_PARENT = "res-repro"
KILL_ROUNDS = 50
KILL_PAUSE_S = 0.02  # the longest wait for killed processes to exit, per round


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, filesystem type, options) of every cgroup filesystem."""
    found = []
    with open("/proc/self/mountinfo", encoding="utf-8") as handle:
        for line in handle:
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
                found.append((fields[4], tail[0], set(tail[2].split(",")) | set(fields[5].split(","))))
    return found


def _own_v2_path() -> str:
    """This process's cgroup v2 path (``/`` when the unified hierarchy does not list it)."""
    with open("/proc/self/cgroup", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("0::"):
                return line[3:].strip() or "/"
    return "/"


def _usable(base: Path) -> bool:
    """Whether a child cgroup with a pids limit can be created under ``base``."""
    probe = base / f"probe-{secrets.token_hex(4)}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        (probe / "pids.max").write_text("max")
        return True
    except OSError:
        return False
    finally:
        with suppress(OSError):
            probe.rmdir()


def _enable_v2_pids(base: Path) -> bool:
    """Make sure ``base``'s children get the pids controller (cgroup v2)."""
    control = base / "cgroup.subtree_control"
    try:
        if "pids" in control.read_text().split():
            return True
        control.write_text("+pids")
        return True
    except OSError:
        return False


@functools.cache
def pids_hierarchy() -> Path | None:
    """The folder under which sandbox cgroups are created, or None when no pids cgroup is writable."""
    for mount, kind, options in _mounts():
        if kind == "cgroup" and "pids" in options:
            base = Path(mount) / GROUP_PARENT
        elif kind == "cgroup2":
            own = Path(mount) / _own_v2_path().lstrip("/")
            if not _enable_v2_pids(own):
                continue
            base = own / GROUP_PARENT
            with suppress(OSError):
                base.mkdir(exist_ok=True)
            if not _enable_v2_pids(base):
                continue
        else:
            continue
        with suppress(OSError):
            base.mkdir(exist_ok=True)
        if base.is_dir() and _usable(base):
            return base
    return None


class PidsCgroup:
    """One sandbox's cgroup: a cap on its processes, and a list of them for killing."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def procs_file(self) -> str:
        """The file a process writes its pid to in order to join the cgroup."""
        return str(self.path / "cgroup.procs")

    def set_limit(self, limit: int) -> None:
        """Allow ``limit`` processes from now on (those already in the cgroup stay)."""
        (self.path / "pids.max").write_text(str(limit))

    def pids(self) -> list[int]:
        """The processes in the cgroup now."""
        try:
            return [int(pid) for pid in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill(self) -> list[int]:
        """SIGKILL every process in the cgroup until none is left (bounded); return any survivors.

        Each round waits for the killed processes to exit (their pidfds turn readable once they are
        zombies, which are out of the cgroup) rather than sleeping a fixed pause.
        """
        for _ in range(KILL_ROUNDS):
            pids = self.pids()
            if not pids:
                return []
            _kill_and_wait(pids, KILL_PAUSE_S)
        return self.pids()

    def remove(self) -> None:
        """Kill what is left and delete the cgroup (it can only go once it is empty)."""
        self.kill()
        for _ in range(KILL_ROUNDS):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(KILL_PAUSE_S)


def _kill_and_wait(pids: list[int], timeout: float) -> None:
    """SIGKILL ``pids`` and wait up to ``timeout`` seconds for all of them to exit (a fixed pause where
    the kernel has no pidfds)."""
    fds: list[int] = []
    try:
        for pid in pids:
            try:
                fd = os.pidfd_open(pid)
            except ProcessLookupError:
                continue
            except OSError:  # no pidfds here: signal by pid and pause
                with suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
                continue
            fds.append(fd)
            with suppress(ProcessLookupError, PermissionError):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
        if len(fds) < len(pids):
            time.sleep(timeout)
        _wait_readable(fds, time.monotonic() + timeout)
    finally:
        for fd in fds:
            os.close(fd)


def _wait_readable(fds: list[int], deadline: float) -> None:
    """Wait until every fd in ``fds`` is readable (a pidfd: its process has exited) or ``deadline``."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    waiting = set(fds)
    while waiting:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        for fd, _ in poller.poll(remaining * 1000):
            poller.unregister(fd)
            waiting.discard(fd)


def pids_cgroup(limit: int) -> PidsCgroup | None:
    """A new cgroup allowing ``limit`` processes, or None when this host offers no writable one."""
    base = pids_hierarchy()
    if base is None:
        return None
    owner = current_owner()
    path = base / f"sandbox-{owner.pid}.{owner.start}-{secrets.token_hex(8)}"
    path.mkdir()
    cgroup = PidsCgroup(path)
    try:
        cgroup.set_limit(limit)
    except OSError:
        path.rmdir()
        raise
    return cgroup
