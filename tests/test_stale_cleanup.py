"""Cleanup after kill -9: a harness process creates a sandbox and a service, is killed with SIGKILL, and
the next sweep removes what it left (scratch folder, tmpfs mount, cgroup, container and volumes, the
service process) while everything a live process owns stays.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fault_helpers import DEADLINE_S

from res_repro.env.processes import minimal_env
from res_repro.sandbox import Sandbox, SandboxSpec, make_sandbox
from res_repro.sandbox.owner import OWNER_FILE, Owner, boot_id, current_owner, label_is_stale, process_start
from res_repro.sandbox.stale import mounts_below, sweep_lines, sweep_stale

ROOT = Path(__file__).resolve().parents[1]

# The killed harness: a started sandbox and a service that does not die with it, then it waits.
HARNESS = """
import json, subprocess, sys, time
from res_repro.env.processes import minimal_env
from res_repro.sandbox import SandboxSpec, make_sandbox
backend, image = sys.argv[1], sys.argv[2] or None
sandbox = make_sandbox(backend, SandboxSpec(docker_image=image))
sandbox.start()
sleeper = [sys.executable, "-c", "import time; time.sleep(600)"]
service = subprocess.Popen(sleeper, env=minimal_env(), start_new_session=True)
info = {"service": service.pid}
if backend == "local":
    cgroup = sandbox.cgroup
    info.update(folder=str(sandbox.root.parent), capped=sandbox.workspace_capped,
                cgroup=str(cgroup.path) if cgroup else None)
else:
    info["container"] = sandbox.container_id
print(json.dumps(info), flush=True)
time.sleep(600)
"""


def gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie waiting for init counts as exited)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def wait_gone(pid: int) -> bool:
    """Poll until ``pid`` has exited; whether it did within the deadline."""
    deadline = time.monotonic() + DEADLINE_S
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return gone(pid)


def killed_harness(backend: str, image: str = "") -> dict[str, object]:
    """Run :data:`HARNESS`, SIGKILL it once its resources exist, and return what it said it made."""
    child = subprocess.Popen(
        [sys.executable, "-c", HARNESS, backend, image], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        info: dict[str, object] = json.loads(child.stdout.readline())
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    return info


@pytest.fixture
def live() -> Iterator[tuple[Sandbox, subprocess.Popen[bytes]]]:
    """A sandbox and a service of this (live) process, which no sweep may touch."""
    sandbox = make_sandbox("local", SandboxSpec())
    sandbox.start()
    sleeper = [sys.executable, "-c", "import time; time.sleep(600)"]
    service = subprocess.Popen(sleeper, env=minimal_env(), start_new_session=True)
    yield sandbox, service
    service.kill()
    service.wait()
    sandbox.close()


def test_a_sweep_removes_what_a_killed_run_left_and_spares_live_owners(
    live: tuple[Sandbox, subprocess.Popen[bytes]],
) -> None:
    info = killed_harness("local")
    folder = Path(str(info["folder"]))
    service = int(str(info["service"]))
    assert folder.is_dir() and not gone(service)  # SIGKILL left them
    if info["capped"]:
        assert mounts_below(folder)
    if info["cgroup"]:
        assert Path(str(info["cgroup"])).is_dir()

    counts = sweep_stale(docker=False)

    assert not folder.exists()
    assert mounts_below(folder) == []
    assert wait_gone(service)
    assert counts["folders"] >= 1 and counts["processes"] >= 1
    if info["capped"]:
        assert counts["mounts"] >= 1
    if info["cgroup"]:
        assert not Path(str(info["cgroup"])).exists() and counts["cgroups"] >= 1
    sandbox, live_service = live
    assert sandbox.exec("echo alive", 10).stdout == "alive\n"
    assert live_service.poll() is None
    assert sweep_stale(docker=False)["folders"] == 0  # nothing left to sweep a second time


@pytest.mark.docker
def test_a_sweep_removes_the_container_and_volumes_of_a_killed_run(docker_image: str) -> None:
    from res_repro.sandbox.docker import connect

    info = killed_harness("docker", docker_image)
    client = connect()
    try:
        container = client.containers.get(str(info["container"]))
        volumes = [m["Name"] for m in container.attrs["Mounts"] if m["Type"] == "volume"]
        assert container.status == "running" and len(volumes) == 2

        counts = sweep_stale(docker=True)

        assert not client.containers.list(all=True, filters={"id": str(info["container"])})
        assert not [v for v in client.volumes.list() if v.name in volumes]
        assert counts["containers"] >= 1
    finally:
        client.close()


@pytest.mark.docker
def test_a_live_containers_owner_keeps_it(docker_image: str) -> None:
    sandbox = make_sandbox("docker", SandboxSpec(docker_image=docker_image))
    sandbox.start()
    try:
        sweep_stale(docker=True)
        assert sandbox.exec("echo alive", 10).stdout == "alive\n"
    finally:
        sandbox.close()


def test_a_reused_pid_is_not_a_live_owner() -> None:
    me = current_owner()
    assert me.pid == os.getpid() and not me.is_dead()
    assert Owner(me.host, me.boot, me.pid, me.start + 1).is_dead()  # same pid, another process
    assert Owner(me.host, "an-earlier-boot", me.pid, me.start).is_dead()
    assert not Owner(f"not-{socket.gethostname()}", me.boot, 1, 0).is_dead()  # another host: not ours
    assert not label_is_stale("not a label") and label_is_stale(Owner.local(me.pid, me.start + 1).label())
    assert Owner.parse(me.label()) == me and me.boot == boot_id()
    assert process_start(me.pid) == me.start


def test_a_folder_without_an_owner_file_is_left_alone(tmp_path: Path) -> None:
    me = current_owner()
    dead = Owner.local(me.pid, me.start + 1).label()
    for name, label in {"res-unlabelled": None, "res-dead": dead, "res-alive": me.label()}.items():
        (tmp_path / name).mkdir()
        if label is not None:
            (tmp_path / name / OWNER_FILE).write_text(label)
    counts = sweep_stale(docker=False, scratch=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res-alive", "res-unlabelled"]
    assert counts["folders"] == 1


def test_sweep_lines_name_each_kind() -> None:
    counts = {"processes": 2, "mounts": 0, "folders": 1}
    assert sweep_lines(counts) == [
        "removed 2 stale processes left by killed runs",
        "removed 1 stale folders left by killed runs",
    ]
    assert len(sweep_lines(counts, every_kind=True)) == 3


def test_clean_stale_prints_one_line_per_kind(capsys: pytest.CaptureFixture[str]) -> None:
    from res_repro.subcommands import SUBCOMMANDS

    assert SUBCOMMANDS["clean-stale"](["--no-docker"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[3] for line in lines] == ["processes", "mounts", "folders", "cgroups"]
    assert all(line.startswith("removed ") and line.endswith(" left by killed runs") for line in lines)


def test_the_checks_and_the_viewer_label_their_scratch_so_a_killed_runs_is_swept(tmp_path) -> None:
    from tool_factory import make_tool_task

    from res_repro.env.formats.tool_api import load_tool_task
    from res_repro.res.checks import _with_parent_reference
    from res_repro.sandbox.owner import OWNER_FILE, Owner, current_owner
    from res_repro.viewer.cache import PARTIAL, write_cached_bundle
    from res_repro.viewer.sources import ViewSource

    task = load_tool_task(make_tool_task(tmp_path / "seed"))
    cross = _with_parent_reference(task, task)
    try:
        assert (cross.parent / OWNER_FILE).read_text() == current_owner().label()
    finally:
        shutil.rmtree(cross.parent, ignore_errors=True)
    views = tmp_path / "views"
    left = views / f"{PARTIAL}killed"
    left.mkdir(parents=True)
    me = current_owner()
    (left / OWNER_FILE).write_text(Owner.local(me.pid, me.start + 1).label())  # a dead run's
    write_cached_bundle(ViewSource(label="run"), tmp_path / "out", views)
    assert not left.exists() and not list(views.glob(f"{PARTIAL}*"))
