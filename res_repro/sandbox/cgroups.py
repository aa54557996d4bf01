"""Per-sandbox process-count and memory limits for the local backend, through the kernel's ``pids``
and ``memory`` cgroups.

A sandbox gets its own cgroup (``res-repro/sandbox-<owner pid>.<owner start>-<id>``, see
:mod:`.stale`) under a writable ``pids`` hierarchy: cgroup v1's
``pids`` controller, or cgroup v2 where the ``pids`` controller is (or can be) enabled for children of
this process's cgroup. Every process of the sandbox joins it before it executes anything, so a fork
bomb stops at ``pids.max`` and :meth:`PidsCgroup.kill` can find every process that is left.

Where a ``memory`` hierarchy is writable too (cgroup v1's ``memory`` controller, or the same v2 cgroup
with ``memory`` enabled), the sandbox also joins a memory cgroup whose limit covers everything its
processes hold together: their pages, shared memory (System V segments, memfds, ``/dev/shm`` and the
workspace tmpfs are all shmem) and the kernel memory charged to them (inodes, page tables); past it the
kernel reclaims and then OOM-kills inside the sandbox only.

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


def _enable_v2(base: Path, controller: str = "pids") -> bool:
    """Make sure ``base``'s children get ``controller`` (cgroup v2)."""
    control = base / "cgroup.subtree_control"
    try:
        if controller in control.read_text().split():
            return True
        control.write_text(f"+{controller}")
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
            if not _enable_v2(own):
                continue
            base = own / GROUP_PARENT
            with suppress(OSError):
                base.mkdir(exist_ok=True)
            if not _enable_v2(base):
                continue
        else:
            continue
        with suppress(OSError):
            base.mkdir(exist_ok=True)
        if base.is_dir() and _writable_child(base, "pids.max", "max"):
            return base
    return None


@functools.cache
def memory_hierarchy() -> Path | None:
    """The folder under which sandbox memory cgroups are created (cgroup v1's ``memory`` controller), the
    pids hierarchy itself when it is cgroup v2 with ``memory`` enabled there, or None."""
    pids = pids_hierarchy()
    for mount, kind, options in _mounts():
        if kind == "cgroup" and "memory" in options:
            base = Path(mount) / GROUP_PARENT
            with suppress(OSError):
                base.mkdir(exist_ok=True)
            usable = base.is_dir() and _writable_child(base, "memory.limit_in_bytes", "-1")
            if usable:
                return base
        elif (
            kind == "cgroup2"
            and pids is not None
            and str(pids).startswith(mount)
            and _enable_v2(pids.parent, "memory")
            and _enable_v2(pids, "memory")
        ):
            return pids
    return None


def _writable_child(base: Path, limit_file: str, value: str) -> bool:
    """Whether a child cgroup of ``base`` can be made and ``value`` written to its ``limit_file``."""
    probe = base / f"probe-{secrets.token_hex(4)}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        (probe / limit_file).write_text(value)
        return True
    except OSError:
        return False
    finally:
        with suppress(OSError):
            probe.rmdir()


class PidsCgroup:
    """One sandbox's cgroup: a cap on its processes, and a list of them for killing; with ``memory``,
    the folder of its memory cgroup too (the same folder on cgroup v2)."""

    def __init__(self, path: Path, memory: Path | None = None) -> None:
        self.path = path
        self.memory = memory

    @property
    def procs_file(self) -> str:
        """The files a process writes its pid to in order to join the cgroups, separated by spaces."""
        files = [self.path / "cgroup.procs"]
        if self.memory is not None and self.memory != self.path:
            files.append(self.memory / "cgroup.procs")
        return " ".join(str(f) for f in files)

    def set_memory(self, limit_bytes: int) -> None:
        """Cap what the sandbox's processes hold together at ``limit_bytes``."""
        if self.memory is None:
            return
        v2 = (self.memory / "memory.max").exists()
        (self.memory / ("memory.max" if v2 else "memory.limit_in_bytes")).write_text(str(limit_bytes))

    def set_limit(self, limit: int) -> None:
        """Allow ``limit`` processes from now on (those already in the cgroup stay)."""
        (self.path / "pids.max").write_text(str(limit))

    def pids(self) -> list[int]:
        """The processes in the cgroup now."""
        try:
            return [int(pid) for pid in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def memory_usage(self) -> int | None:
        """What the sandbox's processes hold now, in bytes (None without a memory cgroup)."""
        if self.memory is None:
            return None
        for name in ("memory.current", "memory.usage_in_bytes"):
            with suppress(OSError, ValueError):
                return int((self.memory / name).read_text())
        return None

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
        """Kill what is left and delete the cgroups (each can only go once it is empty)."""
        self.kill()
        folders = [self.path] + (
            [self.memory] if self.memory is not None and self.memory != self.path else []
        )
        for folder in folders:
            for _ in range(KILL_ROUNDS):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
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


def pids_cgroup(limit: int, memory_bytes: int | None = None) -> PidsCgroup | None:
    """A new cgroup allowing ``limit`` processes (and, where a memory hierarchy is writable, holding at
    most ``memory_bytes`` together), or None when this host offers no writable pids cgroup."""
    base = pids_hierarchy()
    if base is None:
        return None
    owner = current_owner()
    name = f"sandbox-{owner.pid}.{owner.start}-{secrets.token_hex(8)}"
    path = base / name
    path.mkdir()
    memory_base = memory_hierarchy() if memory_bytes is not None else None
    memory = None if memory_base is None else path if memory_base == base else memory_base / name
    cgroup = PidsCgroup(path, memory)
    try:
        cgroup.set_limit(limit)
        if memory is not None and memory_bytes is not None:
            memory.mkdir(exist_ok=True)
            cgroup.set_memory(memory_bytes)
    except OSError:
        cgroup.remove()
        raise
    return cgroup
