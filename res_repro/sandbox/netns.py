"""Outbound network for a local sandbox without the host's loopback: slirp4netns behind bwrap.

A sandbox that may use the network still gets a network namespace of its own (bwrap ``--unshare-all``),
so the host's ``127.0.0.1`` and its abstract unix sockets (a simulated model endpoint, other episodes'
services, a Ray head) are out of reach, as in a Docker container. slirp4netns gives that namespace a
``tap0`` interface with user-mode NAT to the outside (``10.0.2.0/24``, its DNS at ``10.0.2.3``), and
``--disable-host-loopback`` keeps its gateway from leading back to the host's loopback.

bwrap reports the sandbox's first process on ``--info-fd`` and holds the command on ``--block-fd``
until slirp4netns says the interface is up; slirp4netns ends when the harness closes its exit pipe.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass

from res_repro.sandbox.base import SandboxError

ATTACH_TIMEOUT_S = 10.0  # for bwrap to report its child and slirp4netns to bring the interface up
SLIRP_DNS = "10.0.2.3"
CHILD_PID = re.compile(rb'"child-pid"\s*:\s*(\d+)')


@dataclass
class Network:
    """A running slirp4netns for one sandbox process, ended by closing ``exit_write``."""

    process: subprocess.Popen[bytes]
    exit_write: int

    def stop(self) -> None:
        """End slirp4netns (it exits once its exit pipe closes) and reap it."""
        with suppress(OSError):  # closed before
            os.close(self.exit_write)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _read_until(fd: int, done: Callable[[bytes], bool], deadline: float) -> bytes:
    """What ``fd`` gives until ``done`` holds for it, it closes, or the deadline passes."""
    data = b""
    while not done(data) and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(fd, 4096) if ready else b""
        if not chunk:
            break
        data += chunk
    return data


def attach(slirp4netns: str, info_read: int) -> Network | None:
    """Bring up the network of the sandbox whose bwrap reports on ``info_read`` (closed here), or None
    when bwrap ended before starting it (its own failure, which the caller reports)."""
    deadline = time.monotonic() + ATTACH_TIMEOUT_S
    try:
        # read to its end (bwrap closes it): closing it early would end bwrap with SIGPIPE mid-report
        match = CHILD_PID.search(_read_until(info_read, lambda data: False, deadline))
    finally:
        os.close(info_read)
    if match is None:
        return None
    pid = int(match.group(1))
    ready_read, ready_write = os.pipe()
    exit_read, exit_write = os.pipe()
    command = [
        slirp4netns,
        "--configure",
        "--mtu=65520",
        "--disable-host-loopback",
        f"--ready-fd={ready_write}",
        f"--exit-fd={exit_read}",
    ]
    if os.path.realpath(f"/proc/{pid}/ns/user") != os.path.realpath("/proc/self/ns/user"):
        command.append(f"--userns-path=/proc/{pid}/ns/user")
    try:
        process = subprocess.Popen(
            [*command, str(pid), "tap0"],
            pass_fds=(ready_write, exit_read),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    finally:
        os.close(ready_write)
        os.close(exit_read)
    try:
        ready = _read_until(ready_read, lambda data: b"1" in data, deadline)
    finally:
        os.close(ready_read)
    network = Network(process, exit_write)
    if b"1" not in ready:
        network.stop()
        error = process.stderr.read().decode(errors="replace").strip() if process.stderr else ""
        raise SandboxError(f"slirp4netns did not bring the sandbox's network up: {error[:300]}")
    return network
