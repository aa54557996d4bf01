"""Sandbox faults on both backends: a fork bomb, a full disk, processes that ignore SIGTERM, and
gigabytes of output. Each must end with a classified result, leave nothing running (no host process
below this test, no container, no cgroup), and leave the next command or a fresh sandbox working.

Docker cases are marked ``docker`` (busybox image); without an engine they skip, under CI=true fail.
"""

from __future__ import annotations

import os
import resource
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fault_helpers import (
    DEADLINE_S,
    container_exists,
    sleep_marker,
    wait_for_no_descendants,
    wait_until_gone,
    wait_until_present,
    wait_until_removed,
)

from res_repro.sandbox import Sandbox, SandboxBackend, SandboxLimits, SandboxSpec, make_sandbox

pytestmark = pytest.mark.timeout(60)

LIMITS = SandboxLimits(pids=64, workspace_mb=16, output_cap_bytes=64 << 10, output_kill_bytes=4 << 20)
T = 10.0
MakeSandbox = Callable[[], Sandbox]


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def make(request: pytest.FixtureRequest) -> Iterator[MakeSandbox]:
    """A factory of started sandboxes with small limits; at teardown every one is closed and checked
    to have left no process, container or cgroup behind."""
    backend = request.param
    image = request.getfixturevalue("docker_image") if backend == "docker" else None
    created: list[Sandbox] = []
    leftovers: list[list[tuple[str, str]]] = []

    def factory() -> Sandbox:
        sandbox = make_sandbox(SandboxBackend(backend, LIMITS), SandboxSpec(docker_image=image))
        created.append(sandbox)
        sandbox.start()
        leftovers.append(_resources(sandbox))
        return sandbox

    yield factory
    for sandbox in created:
        sandbox.close()
    assert wait_for_no_descendants() == [], "a sandbox process outlived close()"
    for kind, name in (item for found in leftovers for item in found):
        if kind == "container":
            assert not container_exists(name), f"container {name} outlived close()"
        else:
            assert wait_until_removed([Path(name)]) == [], f"cgroup {name} outlived close()"


def _resources(sandbox: Sandbox) -> list[tuple[str, str]]:
    """What a sandbox holds on the host besides processes: its container or its cgroup."""
    container = getattr(sandbox, "container_id", None)
    if container is not None:
        return [("container", container)]
    cgroup = getattr(sandbox, "cgroup", None)
    return [("cgroup", str(cgroup.path))] if cgroup is not None else []


def process_count(sandbox: Sandbox) -> int:
    """How many processes the sandbox holds now, counted from the host."""
    container = getattr(sandbox, "container_id", None)
    if container is not None:
        return len(sandbox.client.api.top(container)["Processes"])  # type: ignore[attr-defined]
    cgroup = sandbox.cgroup  # type: ignore[attr-defined]
    return len(cgroup.pids()) if cgroup is not None else 0


# The bomb starts from a subshell, so the command's own shell forks once, while processes are free, and
# then spins until the timeout: busybox's sh exits at its first failed fork, and whether the command's
# shell or its first children reach the process limit first is a race that depends on how much CPU the
# container has just used.
BOMB = "bomb() { bomb | bomb & }; (bomb); while :; do :; done"


@pytest.mark.slow
def test_fork_bomb_is_capped_and_killed_at_the_timeout(make: MakeSandbox) -> None:
    sandbox = make()
    if hasattr(sandbox, "cgroup") and os.geteuid() == 0:  # as root, RLIMIT_NPROC would not bind
        assert sandbox.cgroup is not None, "no writable pids cgroup: the local sandbox has no process limit"
    result = sandbox.exec(BOMB, 3.0)
    assert result.timed_out and result.exit_code != 0
    assert result.seconds < 3.0 + DEADLINE_S
    assert process_count(sandbox) <= LIMITS.pids
    if getattr(sandbox, "cgroup", None) is not None:  # the kernel's own record of the high-water mark
        peak = sandbox.cgroup.path / "pids.peak"  # type: ignore[attr-defined]
        if peak.exists():
            assert int(peak.read_text()) <= LIMITS.pids
    assert sandbox.exec("echo alive", T).stdout == "alive\n"
    in_shell = sandbox.shell().run(BOMB, 2.0)  # busybox's sh gives up at the first failed fork
    assert (in_shell.timed_out or in_shell.exit_code != 0) and in_shell.seconds < 2.0 + DEADLINE_S
    assert process_count(sandbox) <= LIMITS.pids
    assert make().exec("echo fresh", T).stdout == "fresh\n"


def test_full_disk_stays_inside_the_sandbox(make: MakeSandbox) -> None:
    sandbox = make()
    if getattr(sandbox, "workspace_capped", True) is False:
        pytest.skip("the local workspace cap needs root (a tmpfs mount)")
    before = os.statvfs("/").f_bavail
    result = sandbox.exec("dd if=/dev/zero of=/app/big bs=1M count=256", T)
    assert result.exit_code != 0 and "No space left on device" in result.stderr
    assert (before - os.statvfs("/").f_bavail) * os.statvfs("/").f_frsize < 64 << 20  # host disk untouched
    shell = sandbox.shell()
    assert shell.run("echo still runs", T).stdout == "still runs\n"
    with pytest.raises(OSError, match=r"(?i)no space left") as caught:
        sandbox.write_file("/app/more.txt", "x" * (1 << 20))
    assert caught.value.errno == 28
    assert shell.run("rm /app/big && echo freed > /app/after.txt", T).ok
    assert sandbox.read_file("/app/after.txt") == b"freed\n"


def test_shared_memory_is_capped(make: MakeSandbox) -> None:
    sandbox = make()
    if getattr(sandbox, "workspace_capped", True) is False:
        pytest.skip("the local workspace cap needs root (a tmpfs mount)")
    result = sandbox.exec(f"dd if=/dev/zero of=/dev/shm/big bs=1M count={8 * LIMITS.workspace_mb}", T)
    assert result.exit_code != 0 and "No space left on device" in result.stderr
    assert sandbox.shell().run("rm /dev/shm/big && echo freed", T).stdout == "freed\n"


@pytest.mark.slow
def test_sigterm_ignoring_daemons_die_at_timeout_and_close(make: MakeSandbox) -> None:
    sandbox = make()
    sleep, cmdline = sleep_marker()
    stubborn = f"trap '' TERM; while :; do {sleep}; done"
    daemon = f'setsid sh -c "{stubborn}" >/dev/null 2>&1 &'
    result = sandbox.exec(f"trap '' TERM; sh -c '{daemon}'; nohup sh -c \"{stubborn}\" & {sleep}", 1.5)
    assert result.timed_out
    assert wait_until_gone(cmdline) == [], "a daemon survived the command's timeout"
    assert sandbox.shell().run(f"sh -c '{daemon}'; echo started", T).stdout == "started\n"
    assert wait_until_present(cmdline), "the daemon never started"
    sandbox.close()
    assert wait_until_gone(cmdline) == [], "a daemon survived close()"


def test_gigabytes_of_output_are_cut_and_the_command_killed(make: MakeSandbox) -> None:
    sandbox = make()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = sandbox.exec("head -c 3000000000 /dev/zero", 30)
    assert result.output_killed and result.truncated and not result.timed_out
    assert len(result.stdout) == LIMITS.output_cap_bytes and result.seconds < 10
    assert LIMITS.output_kill_bytes < result.output_bytes < 3_000_000_000
    shell = sandbox.shell()
    flood = shell.run("yes", 30)
    assert flood.output_killed and len(flood.stdout) == LIMITS.output_cap_bytes
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) < 64 << 10  # KiB: < 64 MiB
    assert shell.run("echo next", T).stdout == "next\n"


def test_a_sandbox_that_cannot_start_a_command_is_an_infrastructure_error_never_its_result(
    monkeypatch,
) -> None:
    """bwrap failing before the command (a mask over an entry that vanished) is not the command's exit 1."""
    from res_repro.sandbox import SandboxError
    from res_repro.sandbox import local as local_module
    from res_repro.sandbox.base import SandboxSpec

    sandbox = local_module.LocalSandbox(SandboxSpec())
    sandbox.start()
    try:
        assert sandbox.exec("true", 10).exit_code == 0
        masks = local_module.host_secret_masks()
        gone = ["--ro-bind", "/dev/null", "/usr/res-vanished-entry/x"]
        monkeypatch.setattr(local_module, "host_secret_masks", lambda: [*masks, *gone])
        with pytest.raises(SandboxError, match="could not start the command"):
            sandbox.exec("true", 10)
    finally:
        sandbox.close()
