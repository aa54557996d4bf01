"""Owner labels: every resource a run creates on the host (a scratch folder and its tmpfs mount, a
cgroup, a container and its volumes, a child process) names the process that created it, so that the
next run can tell what a run killed with SIGKILL left behind (see :mod:`.stale`).

A label is ``host/boot/pid/start``: the host name, the kernel's boot id, the owner's process id and its
start time in clock ticks since boot. A pid reused by an unrelated process has another start time, so
it is not mistaken for a live owner; a label from an earlier boot of this host names a dead owner; one
from another host (a remote Docker engine shared by several machines) is never judged.
"""

from __future__ import annotations

import functools
import os
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path

OWNER_VAR = "RES_REPRO_OWNER"  # in the environment of every child process the harness starts
OWNER_FILE = ".res-owner"  # in every scratch folder the harness creates
OWNER_LABEL = "res-repro.owner"  # on every container and volume
SCRATCH_PREFIX = "res-"  # scratch folders are tempfile.gettempdir()/res-*


@functools.cache
def boot_id() -> str:
    """The kernel's identifier of this boot (empty where /proc does not offer one)."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def process_start(pid: int) -> int | None:
    """The start time of process ``pid`` in clock ticks since boot, None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) may hold spaces and parentheses: the fields after it follow the last ')'
    return int(stat.rsplit(")", 1)[1].split()[19])


@dataclass(frozen=True)
class Owner:
    """The process that created a resource, as a label names it."""

    host: str
    boot: str
    pid: int
    start: int

    def label(self) -> str:
        """The label text, ``host/boot/pid/start``."""
        return f"{self.host}/{self.boot}/{self.pid}/{self.start}"

    @classmethod
    def parse(cls, text: str) -> Owner | None:
        """The owner a label names, None for text that is not a label."""
        parts = text.strip().split("/")
        if len(parts) != 4 or not (parts[2].isdigit() and parts[3].isdigit()):
            return None
        return cls(parts[0], parts[1], int(parts[2]), int(parts[3]))

    @classmethod
    def local(cls, pid: int, start: int) -> Owner:
        """An owner on this host in this boot."""
        return cls(socket.gethostname(), boot_id(), pid, start)

    def is_dead(self) -> bool:
        """Whether the owner has certainly exited: on this host, an earlier boot, or no process with
        its pid and start time now. An owner on another host is never dead as far as we know."""
        if self.host != socket.gethostname():
            return False
        if self.boot != boot_id():
            return True
        return process_start(self.pid) != self.start


def current_owner() -> Owner:
    """This process as an owner (looked up again after a fork: the child is its own owner)."""
    return _owner_of(os.getpid())


@functools.cache
def _owner_of(pid: int) -> Owner:
    start = process_start(pid)
    return Owner.local(pid, start if start is not None else 0)


def label_is_stale(text: str) -> bool:
    """Whether ``text`` is an owner label whose owner is dead (anything else is left alone)."""
    owner = Owner.parse(text)
    return owner is not None and owner.is_dead()


def owned_tempdir(kind: str) -> Path:
    """A new private (0700) scratch folder ``res-<kind>-*`` in the system's temporary folder, labelled
    with this process as its owner before anything else is put in it."""
    folder = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{kind}-"))
    (folder / OWNER_FILE).write_text(current_owner().label())
    return folder
