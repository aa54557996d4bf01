"""Escape attempts that need no host setup, as a table run on every backend: each is one command that
prints ESCAPED only where the attempt worked. The attempts that do need setup (a planted root-only file,
a listening host port, a host process to signal) are tests of their own in
``tests/test_sandbox_contract.py``; ``tests/fault_suite.py`` lists them all.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from res_repro.sandbox import Sandbox, SandboxSpec, make_sandbox

T = 20.0
CHECKOUT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Escape:
    """One attempt: a name and the shell command that tries it."""

    name: str
    command: str


ESCAPES = [
    Escape(
        "mount a file system or remount the root read-write",
        "mkdir -p /tmp/m; mount -t tmpfs none /tmp/m 2>/dev/null && echo ESCAPED; "
        "mount -o remount,rw / 2>/dev/null && touch /res-probe 2>/dev/null && echo ESCAPED",
    ),
    Escape(
        "create a device node to read the host's disk or memory",
        "mknod /tmp/d b 8 0 2>/dev/null && head -c 1 /tmp/d 2>/dev/null | grep -q . && echo ESCAPED; "
        "mknod /tmp/m c 1 1 2>/dev/null && head -c 1 /tmp/m 2>/dev/null | grep -q . && echo ESCAPED",
    ),
    Escape(
        "change a kernel setting through /proc/sys",
        "echo 1 > /proc/sys/kernel/sysrq 2>/dev/null && echo ESCAPED; "
        "echo 3 > /proc/sys/vm/drop_caches 2>/dev/null && echo ESCAPED",
    ),
    Escape("write to /sys", "echo 1 > /sys/kernel/mm/ksm/run 2>/dev/null && echo ESCAPED"),
    Escape(
        "reach the host's files through /proc/1/root",
        f"ls /proc/1/root{CHECKOUT}/res_repro >/dev/null 2>&1 && echo ESCAPED; "
        "cat /proc/1/root/proc/1/environ 2>/dev/null | tr '\\0' '\\n' | grep -q '^PATH=' "
        "&& ls /proc/1/root/work >/dev/null 2>&1 && echo ESCAPED",
    ),
    Escape("rename the host", "hostname res-escaped 2>/dev/null; echo $(hostname) >/dev/null"),
]


@pytest.fixture(scope="module", params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """One sandbox of each backend, shared by the attempts (each leaves it as it found it or worse)."""
    image = request.getfixturevalue("docker_image") if request.param == "docker" else None
    box = make_sandbox(request.param, SandboxSpec(docker_image=image))
    box.start()
    yield box
    box.close()


@pytest.mark.parametrize("escape", ESCAPES, ids=[e.name for e in ESCAPES])
def test_an_escape_attempt_is_blocked(sandbox: Sandbox, escape: Escape) -> None:
    host_name = socket.gethostname()
    result = sandbox.exec(escape.command, T)
    assert not result.timed_out
    assert "ESCAPED" not in result.stdout, f"{escape.name}: the attempt worked"
    assert socket.gethostname() == host_name, "the host was renamed from inside the sandbox"
