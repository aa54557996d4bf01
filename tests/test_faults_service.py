"""A mock service that dies mid-episode, and a whole evaluation over fault-injecting episodes.

The service's death reaches the agent as an error response (never a hang); the episode ends with the
infrastructure stop reason ``service_error``, which the runner retries a bounded number of times.
The services are always stopped and their ports freed; every episode of the run gets a record.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import pytest
from fault_helpers import ScriptedFaultAgent, Step, port_is_free, wait_for_no_descendants
from task_factory import make_task

from res_repro.env.environment import Environment
from res_repro.env.formats import load_task_dir
from res_repro.env.formats.claw_eval_live import load_claw_eval_live
from res_repro.env.tools import ToolCall
from res_repro.evaluation.episode import run_episode
from res_repro.evaluation.runner import EpisodeRequest, evaluate
from res_repro.evaluation.store import EpisodeStore
from res_repro.sandbox import SandboxBackend, SandboxLimits

pytestmark = pytest.mark.timeout(90)

FIXTURE = Path(__file__).parent / "fixtures" / "claw_eval_live" / "checkout"
T01 = "CTB_T01_vpn_ticket_close"
LIMITS = SandboxLimits(pids=64, workspace_mb=16, output_cap_bytes=64 << 10, output_kill_bytes=4 << 20)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A fresh copy of the test checkout."""
    return Path(shutil.copytree(FIXTURE, tmp_path / "Claw-Eval-Live"))


def service_pids(checkout: Path) -> list[int]:
    """Live processes running a mock service script from ``checkout``."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if (
                os.readlink(proc / "cwd") == str(checkout)
                and b"mock_services/" in (proc / "cmdline").read_bytes()
            ):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


class ServiceKiller:
    """Steps for a Claw-Eval-Live script: note the episode's ports, kill its services, time a call."""

    def __init__(self, checkout: Path) -> None:
        self.checkout = checkout
        self.ports: list[int] = []
        self.killed = 0
        self.call_seconds: list[float] = []

    def kill(self, environment: Environment) -> None:
        """SIGKILL every service of the episode, as a crash would."""
        self.ports += environment.services.ports.values()  # type: ignore[attr-defined]
        for pid in service_pids(self.checkout):
            os.kill(pid, signal.SIGKILL)
            self.killed += 1

    def timed_call(self, environment: Environment) -> None:
        """Call a tool of the dead service and keep how long the answer took."""
        started = time.perf_counter()
        response = environment.call(ToolCall("helpdesk_list_tickets", {}))
        self.call_seconds.append(time.perf_counter() - started)
        assert response.status == 502 and "unreachable" in response.text()

    def script(self) -> list[Step | ToolCall]:
        """List tickets, kill the service, then call it again (twice: once timed)."""
        return [
            ToolCall("helpdesk_list_tickets", {}),
            self.kill,
            self.timed_call,
            ToolCall("helpdesk_list_tickets", {}),
        ]


def test_a_service_dying_mid_episode_is_a_service_error(checkout: Path) -> None:
    [task] = load_claw_eval_live(checkout, task_filter="T01")
    killer = ServiceKiller(checkout)
    agent = ScriptedFaultAgent({T01: killer.script()})
    record = run_episode(task, agent, backend="local", episode_id="service-dies")
    assert killer.killed == 1
    assert record.stop_reason == "service_error" and record.infrastructure_failure
    assert record.grade is None and "failed during the episode: exit status -9" in (record.error or "")
    assert [m["status"] for m in record.messages] == [200, 502]
    assert killer.call_seconds[0] < 5, "a call to a dead service must fail fast, not hang"
    assert service_pids(checkout) == []
    assert killer.ports and all(port_is_free(port) for port in killer.ports)
    assert wait_for_no_descendants() == []


def _run_command(command: str, timeout: float = 3.0) -> ToolCall:
    return ToolCall("run_command", {"command": command, "timeout_sec": timeout})


WRITE_DONE = ToolCall("write_file", {"path": "/app/out.txt", "content": "done"})
HARBOR_FAULTS: dict[str, list[Step | ToolCall]] = {
    "fork-bomb": [_run_command("bomb() { bomb | bomb & }; bomb; while :; do :; done"), WRITE_DONE],
    "disk-full": [_run_command("dd if=/dev/zero of=/app/big bs=1M count=64"), WRITE_DONE],
    "sigterm-daemon": [
        _run_command(
            "trap '' TERM; setsid nohup sh -c \"trap '' TERM; while :; do sleep 1; done\" & sleep 60", 1.5
        ),
        WRITE_DONE,
    ],
    "output-flood": [_run_command("head -c 3000000000 /dev/zero", 30), WRITE_DONE],
}


@pytest.mark.slow
def test_an_evaluation_over_fault_tasks_finishes_with_every_record(checkout: Path, tmp_path: Path) -> None:
    tasks = [
        load_task_dir(make_task(tmp_path / "harbor", name), benchmark="faults") for name in HARBOR_FAULTS
    ]
    [claw] = load_claw_eval_live(checkout, task_filter="T01")
    killer = ServiceKiller(checkout)
    agent = ScriptedFaultAgent({**{t.task_id: HARBOR_FAULTS[t.task_id] for t in tasks}, T01: killer.script()})
    store = EpisodeStore(tmp_path / "episodes")
    requests = [EpisodeRequest(task, "faults") for task in [*tasks, claw]]

    records = evaluate(
        requests,
        agents={"faults": agent},
        backend=SandboxBackend("local", LIMITS),
        store=store,
        workers=2,
        max_infra_retries=1,
        show_progress=False,
    )

    assert [r.task_id for r in records] == [t.task_id for t in tasks] + [T01]
    assert len(list(store.root.rglob("*.json"))) == len(requests)  # no record lost
    by_task = {r.task_id: r for r in records}
    for task in tasks:
        record = by_task[task.task_id]
        assert record.stop_reason == "answered" and record.grade is not None, (task.task_id, record.error)
        assert record.sandbox == "local"
    assert by_task["fork-bomb"].messages[0]["content"].count("timed_out") == 1
    assert by_task["output-flood"].messages[0]["content"].count("output truncated") == 1
    assert by_task["disk-full"].messages[1]["status"] == 507  # the agent's write hit the full disk
    assert by_task["sigterm-daemon"].passed and by_task["output-flood"].passed
    assert by_task[T01].stop_reason == "service_error" and by_task[T01].grade is None
    assert agent.runs == {**{t.task_id: 1 for t in tasks}, T01: 2}  # one bounded retry, then recorded
    assert killer.killed == 2 and service_pids(checkout) == []
    assert all(port_is_free(port) for port in killer.ports)
    assert wait_for_no_descendants() == []
