"""Removing what a killed run left behind: every resource whose owner label (see :mod:`.owner`) names a
process that has exited.

A run killed with SIGKILL cannot close its sandboxes: its child processes (task code, services), its
scratch folders with their tmpfs mounts, its cgroups, and its containers with their volumes stay. The
next run (and ``res-repro clean-stale``) calls :func:`sweep_stale` before it starts: it finds them by
their labels, leaves alone whatever a live process owns or no label names, and removes the rest.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import tempfile
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from res_repro.sandbox.base import SandboxError
from res_repro.sandbox.cgroups import PidsCgroup, memory_hierarchy, pids_hierarchy
from res_repro.sandbox.local import unmount_workspace
from res_repro.sandbox.owner import OWNER_FILE, OWNER_LABEL, OWNER_VAR, SCRATCH_PREFIX, Owner, label_is_stale

LOCAL_KINDS = ("processes", "mounts", "folders", "cgroups")
CGROUP_NAME = re.compile(r"^sandbox-(?P<pid>\d+)\.(?P<start>\d+)-[0-9a-f]+$")
_OWNER_ENTRY = f"{OWNER_VAR}=".encode()


def _ancestors() -> set[int]:
    """This process and the processes above it (never swept, whatever their environment says)."""
    found, pid = set(), os.getpid()
    while pid > 0 and pid not in found:
        found.add(pid)
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            break
    return found


def _process_label(pid: str) -> str | None:
    """The owner label in process ``pid``'s environment, None when it has none (or cannot be read)."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    for entry in environ.split(b"\0"):
        if entry.startswith(_OWNER_ENTRY):
            return entry[len(_OWNER_ENTRY) :].decode(errors="replace")
    return None


def stale_processes() -> list[int]:
    """Processes whose environment names a dead owner."""
    spared = _ancestors()
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in spared:
            label = _process_label(name)
            if label is not None and label_is_stale(label):
                found.append(int(name))
    return found


def kill_processes(pids: list[int]) -> int:
    """SIGKILL each process (and the process group it leads); return how many were still there."""
    killed = 0
    for pid in pids:
        with suppress(ProcessLookupError, PermissionError):
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
            os.kill(pid, signal.SIGKILL)
            killed += 1
    return killed


def stale_folders(top: Path | None = None) -> list[Path]:
    """Scratch folders (``res-*`` in ``top``, default the system's temporary folder) whose owner file
    names a dead owner; a folder without one is not ours to judge."""
    folders = []
    for folder in Path(top or tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*"):
        with suppress(OSError):
            if not folder.is_symlink() and label_is_stale((folder / OWNER_FILE).read_text()):
                folders.append(folder)
    return folders


def _unescape(field: str) -> str:
    """A mount point as /proc/self/mountinfo writes it (space, tab, newline and backslash in octal)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), field)


def mounts_below(folder: Path) -> list[Path]:
    """Mount points at or below ``folder``, deepest first."""
    inside = []
    prefix = str(folder).rstrip("/") + "/"
    with open("/proc/self/mountinfo", encoding="utf-8") as handle:
        for line in handle:
            point = _unescape(line.split()[4])
            if point == str(folder) or point.startswith(prefix):
                inside.append(Path(point))
    return sorted(inside, key=lambda p: len(p.parts), reverse=True)


def remove_folder(folder: Path) -> int:
    """Unmount whatever is mounted below ``folder``, then delete it; return how many mounts it had."""
    mounts = mounts_below(folder)
    for point in mounts:
        unmount_workspace(point)
    shutil.rmtree(folder, ignore_errors=True)
    return len(mounts)


def stale_cgroups() -> list[PidsCgroup]:
    """Sandbox cgroups named after a dead owner (cgroups live in this boot only)."""
    base = pids_hierarchy()
    if base is None:
        return []
    found = []
    for path in base.iterdir():
        match = CGROUP_NAME.match(path.name)
        if match and path.is_dir() and Owner.local(int(match["pid"]), int(match["start"])).is_dead():
            memory = memory_hierarchy()
            found.append(PidsCgroup(path, memory / path.name if memory is not None else None))
    return found


def _stale_items(items: list[Any], labels: Callable[[Any], dict[str, str] | None]) -> list[Any]:
    """The containers or volumes among ``items`` whose owner label (read by ``labels``) names a dead
    owner."""
    return [item for item in items if label_is_stale((labels(item) or {}).get(OWNER_LABEL, ""))]


def sweep_docker(client: Any) -> dict[str, int]:
    """Remove the containers (with their volumes) and the volumes a dead owner labelled."""
    import docker.errors

    only_ours = {"label": OWNER_LABEL}
    containers = _stale_items(client.containers.list(all=True, filters=only_ours), lambda c: c.labels)
    volumes = _stale_items(client.volumes.list(filters=only_ours), lambda v: v.attrs.get("Labels"))
    for container in containers:
        with suppress(docker.errors.NotFound, docker.errors.APIError):
            container.remove(force=True, v=True)
    removed = 0
    for volume in volumes:
        try:
            volume.remove(force=True)
        except docker.errors.NotFound:
            pass  # went with its container
        except docker.errors.APIError:
            continue  # still in use
        removed += 1
    return {"containers": len(containers), "volumes": removed}


def sweep_stale(*, docker: bool, scratch: Path | None = None) -> dict[str, int]:
    """Remove every resource of a dead owner, the Docker ones too when ``docker`` (a SandboxError when
    the engine cannot be reached); return how many of each kind went (:data:`LOCAL_KINDS`, then
    ``containers`` and ``volumes`` when ``docker``). ``scratch``: the
    folder holding scratch folders (default: the system's temporary folder)."""
    counts = dict.fromkeys(LOCAL_KINDS, 0)
    counts["processes"] = kill_processes(stale_processes())
    for folder in stale_folders(scratch):
        counts["mounts"] += remove_folder(folder)
        counts["folders"] += 1
    for cgroup in stale_cgroups():
        cgroup.remove()
        counts["cgroups"] += 1
    if docker:
        from res_repro.sandbox.docker import connect

        client = connect()
        try:
            counts.update(sweep_docker(client))
        finally:
            client.close()
    return counts


def sweep_lines(counts: dict[str, int], *, every_kind: bool = False) -> list[str]:
    """One line per kind of resource removed (every kind, zeros included, when ``every_kind``)."""
    return [
        f"removed {count} stale {kind} left by killed runs"
        for kind, count in counts.items()
        if count or every_kind
    ]


def clean_stale(*, docker: bool, every_kind: bool = False) -> list[str]:
    """Sweep (see :func:`sweep_stale`) and say what went, one line per kind (see :func:`sweep_lines`); an
    unreachable Docker engine is one more line, not an error."""
    try:
        return sweep_lines(sweep_stale(docker=docker), every_kind=every_kind)
    except SandboxError as exc:
        lines = sweep_lines(sweep_stale(docker=False), every_kind=every_kind)
        return [*lines, f"stale containers and volumes not looked for: {exc}"]
