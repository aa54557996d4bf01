"""Which process runs, by an identity a later process reusing its pid does not share; the clock MLflow
keeps."""

from __future__ import annotations

import os
import time
from pathlib import Path


def process_identity(pid: int) -> str | None:
    """``pid`` with its start time (from ``/proc`` on Linux), or None when no such process runs (a
    zombie has ended): a later process that reuses the pid has another identity. Elsewhere the pid."""
    stat = Path(f"/proc/{pid}/stat")
    if Path("/proc/self/stat").is_file():
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        # fields[0] is field 3 of proc(5), the state; fields[19] is field 22, the start time
        return None if fields[0] == "Z" else f"{pid}:{fields[19]}"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return str(pid)


def this_process() -> str:
    """This process's identity (see :func:`process_identity`)."""
    return process_identity(os.getpid()) or str(os.getpid())


def has_ended(identity: str) -> bool:
    """True when the process named by ``identity`` (from :func:`process_identity`) no longer runs."""
    pid = identity.partition(":")[0]
    return pid.isdigit() and process_identity(int(pid)) != identity


def now_ms() -> int:
    """The time as MLflow keeps it, in milliseconds."""
    return int(time.time() * 1000)
