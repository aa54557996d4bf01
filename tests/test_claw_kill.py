"""A harness killed with SIGKILL leaves no Claw-Eval-Live mock service behind: every service dies with it
and its port is free again (the services carry a parent-death signal)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fault_helpers import port_is_free

FIXTURE = Path(__file__).parent / "fixtures" / "claw_eval_live" / "checkout"

# Opens one task's environment, prints its services' process ids and ports, then waits to be killed.
HOLD_SERVICES = """
import sys, time
from pathlib import Path
from res_repro.env.formats import load_path, open_environment
task = load_path(Path(sys.argv[1]) / "tasks")[0]
with open_environment(task, backend="local") as env:
    print(" ".join(str(r.process.pid) for r in env.services._running), flush=True)
    print(" ".join(str(port) for port in env.services.ports.values()), flush=True)
    time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie waiting for its reaper is gone already
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.timeout(60)
def test_no_service_outlives_a_sigkill_of_the_harness(tmp_path: Path) -> None:
    checkout = shutil.copytree(FIXTURE, tmp_path / "Claw-Eval-Live")
    harness = subprocess.Popen(
        [sys.executable, "-c", HOLD_SERVICES, str(checkout)], stdout=subprocess.PIPE, text=True
    )
    try:
        pids = [int(pid) for pid in harness.stdout.readline().split()]
        ports = [int(port) for port in harness.stdout.readline().split()]
        assert pids and all(_alive(pid) for pid in pids)
        assert not any(port_is_free(port) for port in ports)
        harness.send_signal(signal.SIGKILL)
        harness.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in pids if _alive(pid)] == []
        # a listener a service's own child held closes with that child, a moment after the service
        while not all(port_is_free(port) for port in ports) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [port for port in ports if not port_is_free(port)] == []
    finally:
        harness.kill()
        harness.wait()
