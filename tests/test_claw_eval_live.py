"""Claw-Eval-Live adapter: loading, services on free ports, dispatch, grading, cleanup.

Every test works on a copy of a small checkout in the benchmark's layout (tests/fixtures/claw_eval_live):
a stand-in ``liveclaw_500`` package, two standard-library mock services (helpdesk, notes), a service
that crashes at start, and two tasks with graders and reference programs.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from fault_helpers import port_is_free

from res_repro.agents.reference import NopAgent, OracleAgent
from res_repro.benchmarks.claw_eval_live import load_claw_eval_live_benchmark
from res_repro.env.errors import TaskFormatError
from res_repro.env.formats.claw_eval_live import (
    CLAW_EVAL_LIVE,
    KIND,
    ClawEvalLiveEnvironment,
    JudgeError,
    ServiceError,
    load_claw_eval_live,
    open_claw_eval_live,
)
from res_repro.env.formats.claw_eval_live.services import reusing_services
from res_repro.env.task import Task
from res_repro.env.tools import ToolCall
from res_repro.evaluation.episode import EpisodeRecord, run_episode

FIXTURE = Path(__file__).parent / "fixtures" / "claw_eval_live" / "checkout"
T01 = "CTB_T01_vpn_ticket_close"
T02 = "CTB_T02_postmortem_share"

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A fresh copy of the test checkout."""
    return Path(shutil.copytree(FIXTURE, tmp_path / "Claw-Eval-Live"))


def by_id(checkout: Path) -> dict[str, Task]:
    return {task.task_id: task for task in load_claw_eval_live(checkout)}


def edit_yaml(task_dir: Path, change: Any) -> None:
    """Load task.yaml, let ``change`` edit the dict, write it back."""
    path = task_dir / "task.yaml"
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def service_processes(checkout: Path) -> list[str]:
    """Command lines of live processes that run a mock service script from this checkout."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cwd = os.readlink(proc / "cwd")
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cwd == str(checkout) and "mock_services/" in cmdline:
            found.append(cmdline)
    return found


def episode(task: Task, agent: Any) -> EpisodeRecord:
    return run_episode(task, agent, backend="local", episode_id=f"{task.task_id}-{agent.name}")


def test_loads_tasks_with_attachments_inlined(checkout: Path) -> None:
    tasks = load_claw_eval_live(checkout)
    assert [t.task_id for t in tasks] == [T01, T02]
    first = tasks[0]
    assert (first.kind, first.benchmark, first.path) == (KIND, "claw_eval_live", checkout / "tasks" / T01)
    assert first.instruction.startswith("Close every open VPN ticket")
    assert "\n\n[attached document: runbook.md]\n# VPN runbook" in first.instruction
    assert first.config.checkout == checkout
    assert (first.config.max_turns, first.config.timeout_seconds, first.config.threshold) == (12, 300, 0.75)
    assert first.config.spec.model_extra["expected_actions"][0]["action_key"] == "closed"
    assert [t.task_id for t in load_claw_eval_live(checkout, task_filter="T02")] == [T02]


def test_oracle_episodes_run_in_parallel_on_distinct_ports(
    checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    both_up = threading.Barrier(2, timeout=30)
    ports: list[int] = []

    @contextmanager
    def opener(task: Task, backend: str, seed: int) -> Iterator[ClawEvalLiveEnvironment]:
        with open_claw_eval_live(task, backend, seed) as env:
            ports.extend(env.services.ports.values())
            both_up.wait()  # both tasks' services (each with a helpdesk declared on 9107) run at once
            yield env

    monkeypatch.setattr(CLAW_EVAL_LIVE, "open", opener)
    tasks = by_id(checkout)
    with ThreadPoolExecutor(max_workers=2) as pool:
        records = list(pool.map(lambda tid: episode(tasks[tid], OracleAgent()), [T01, T02]))

    for record in records:
        assert record.error is None, record.error
        assert (record.score, record.passed) == (1.0, True), record.grade
    assert len(ports) == len(set(ports)) == 3
    assert 9107 not in ports
    assert service_processes(checkout) == []
    assert all(port_is_free(port) for port in ports)


def test_nop_episode_fails(checkout: Path) -> None:
    record = episode(by_id(checkout)[T01], NopAgent())
    assert record.grade is not None and record.score < 0.5 and not record.passed
    assert service_processes(checkout) == []


def test_calls_reach_services_and_end_with_them(checkout: Path) -> None:
    task = by_id(checkout)[T01]
    with open_claw_eval_live(task, "local", 0) as env:
        assert [tool.name for tool in env.tools] == [
            "helpdesk_list_tickets",
            "helpdesk_get_ticket",
            "helpdesk_close_ticket",
        ]
        listed = env.call(ToolCall("helpdesk_list_tickets", {"status": "open"}))
        assert listed.status == 200 and len(listed.body["tickets"]) == 3
        assert env.call(ToolCall("helpdesk_get_ticket", {})).status == 400  # schema: ticket_id required
        assert env.call(ToolCall("no_such_tool", {})).status == 404
        port = env.services.ports[9107]
        assert env.dispatches[0]["endpoint_url"] == f"http://127.0.0.1:{port}/helpdesk/tickets"
        assert [entry.status for entry in env.audit] == [200, 400, 404]
    after = env.call(ToolCall("helpdesk_list_tickets", {}))
    assert after.status == 502 and "unreachable" in after.body["error"]


def test_services_stop_when_the_episode_raises(checkout: Path) -> None:
    with (
        pytest.raises(RuntimeError, match="agent crashed"),
        open_claw_eval_live(by_id(checkout)[T02], "local", 0),
    ):
        assert len(service_processes(checkout)) == 2
        raise RuntimeError("agent crashed")
    assert service_processes(checkout) == []


def test_reset_restores_fixtures_and_empties_the_audit(checkout: Path) -> None:
    with open_claw_eval_live(by_id(checkout)[T01], "local", 0) as env:
        env.call(ToolCall("helpdesk_close_ticket", {"ticket_id": "TK-102", "resolution": "toner"}))
        audits, errors = env.services.audits()
        assert errors == {}
        assert audits["helpdesk"]["closed"] == [{"ticket_id": "TK-102", "resolution": "toner"}]
        env.services.reset()
        audits, _ = env.services.audits()
        assert audits["helpdesk"]["closed"] == [] and audits["helpdesk"]["calls"] == []
        ticket = env.call(ToolCall("helpdesk_get_ticket", {"ticket_id": "TK-102"})).body
        assert ticket["status"] == "open"


def test_services_get_a_minimal_environment(checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "canary")
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:1")
    with open_claw_eval_live(by_id(checkout)[T02], "local", 0) as env:
        audits, _ = env.services.audits()
        seen = audits["helpdesk"]["env"]
        assert "OPENAI_API_KEY" not in seen and "HTTP_PROXY" not in seen
        assert "canary" not in json.dumps(audits)
        assert seen["PORT"] == str(env.services.ports[9107])
        assert seen["HELPDESK_FIXTURES"].endswith("fixtures/helpdesk/tickets.json")
        assert audits["notes"]["env"]["PORT"] == str(env.services.ports[9105])


class _StaleServer(ThreadingHTTPServer):
    """Answers every request with 200 and counts them: a leftover server on a declared port."""

    def __init__(self) -> None:
        self.hits = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self) -> None:
                outer.hits += 1
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            do_GET = do_POST = answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)


def test_a_server_left_on_the_declared_port_is_never_used(checkout: Path) -> None:
    stale = _StaleServer()
    threading.Thread(target=stale.serve_forever, daemon=True).start()
    try:
        port = stale.server_address[1]
        path = checkout / "tasks" / T01 / "task.yaml"
        path.write_text(path.read_text().replace("9107", str(port)))
        record = episode(by_id(checkout)[T01], OracleAgent())
    finally:
        stale.shutdown()
        stale.server_close()
    assert (record.score, record.passed) == (1.0, True)
    assert stale.hits == 0


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["prompt"].pop("text"), "prompt.text"),
        (lambda d: d["services"][0].update(port="nine"), "services.0.port"),
        (lambda d: d["tool_endpoints"][0].update(tool_name="ghost"), "tool_endpoints.0.tool_name"),
        (lambda d: d["tool_endpoints"][1].update(url="http://localhost:1234/x"), "tool_endpoints.1.url"),
        (lambda d: d["tools"][2]["input_schema"].update(type=7), "tools.2.input_schema"),
        (lambda d: d["prompt"].update(attachments=["fixtures/docs/gone.md"]), "prompt.attachments.0"),
    ],
)
def test_malformed_task_yaml_names_the_field(checkout: Path, change: Any, field: str) -> None:
    edit_yaml(checkout / "tasks" / T01, change)
    with pytest.raises(TaskFormatError) as caught:
        load_claw_eval_live(checkout)
    assert caught.value.field == field
    assert caught.value.path == checkout / "tasks" / T01 / "task.yaml"
    assert f"field '{field}'" in str(caught.value)


def test_a_crashing_service_fails_clearly_and_leaves_nothing_running(checkout: Path) -> None:
    crash = {
        "name": "crash",
        "command": "python mock_services/crash/server.py",
        "port": 9199,
        "health_check": "http://localhost:9199/crash/health",
    }
    edit_yaml(checkout / "tasks" / T01, lambda d: d["services"].append(crash))
    task = by_id(checkout)[T01]
    with pytest.raises(ServiceError) as caught, open_claw_eval_live(task, "local", 0):
        pass
    message = str(caught.value)
    assert "'crash'" in message and "exited with status 3" in message
    assert "crash service: cannot read fixtures" in message
    assert service_processes(checkout) == []
    record = episode(task, OracleAgent())
    assert record.stop_reason == "sandbox_error" and "ServiceError" in (record.error or "")
    assert service_processes(checkout) == []


class _Judge:
    """Answers every question with a fixed score (or fails) and keeps the questions."""

    def __init__(self, score: float | None) -> None:
        self.score = score
        self.questions: list[dict[str, str]] = []

    def evaluate(self, task_prompt: str, conversation: str, actions_summary: str, rubric: str) -> Any:
        self.questions.append({"task_prompt": task_prompt, "conversation": conversation, "rubric": rubric})
        if self.score is None:
            raise TimeoutError("judge provider timed out")
        return type("Verdict", (), {"score": self.score, "reasoning": "fixed"})()


@pytest.mark.parametrize(("score", "expected"), [(1.0, 1.0), (0.0, 0.7)])
def test_graders_ask_the_configured_judge(checkout: Path, score: float, expected: float) -> None:
    judge = _Judge(score)
    with open_claw_eval_live(by_id(checkout)[T02], "local", 0, judge=judge) as env:
        grade = env.grade(env.run_reference().answer)
    assert grade.score == expected and grade.evidence["judge"] is True
    assert judge.questions[0]["rubric"].startswith("Does the answer state")
    assert "expired TLS certificate" in judge.questions[0]["conversation"]


def test_a_failing_judge_is_an_infrastructure_error(checkout: Path) -> None:
    with (
        open_claw_eval_live(by_id(checkout)[T02], "local", 0, judge=_Judge(None)) as env,
        pytest.raises(JudgeError, match="judge provider timed out"),
    ):
        env.grade("anything")


def test_a_grader_that_raises_scores_zero_with_its_traceback(checkout: Path) -> None:
    grader = checkout / "tasks" / T01 / "grader.py"
    grader.write_text(grader.read_text().replace("closed = self", "closed = 1 / 0 or self"))
    with open_claw_eval_live(by_id(checkout)[T01], "local", 0) as env:
        grade = env.grade("done")
    assert (grade.score, grade.passed) == (0.0, False)
    assert "ZeroDivisionError" in grade.evidence["grader_error"]


def test_without_solution_there_is_no_reference(checkout: Path) -> None:
    shutil.rmtree(checkout / "tasks" / T01 / "solution")
    with open_claw_eval_live(by_id(checkout)[T01], "local", 0) as env:
        outcome = env.run_reference()
    assert outcome.answer is None and "no reference" in outcome.messages[0]["content"]


def test_registry_loader_reads_checkout_filter_and_threshold(
    checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAW_EVAL_LIVE_DIR", raising=False)
    with pytest.raises(
        ValueError, match=r"--checkout DIR .* benchmark\.checkout=DIR .* CLAW_EVAL_LIVE_DIR=DIR"
    ):
        load_claw_eval_live_benchmark({}, tmp_path)
    monkeypatch.setenv("CLAW_EVAL_LIVE_DIR", str(checkout))
    assert len(load_claw_eval_live_benchmark({}, tmp_path)) == 2
    with pytest.raises(ValueError, match=r"benchmark\.checkout="):
        load_claw_eval_live_benchmark({"checkout": str(tmp_path / "absent")}, tmp_path)
    params = {"checkout": str(checkout), "task_filter": "T02", "threshold": 0.5}
    [task] = load_claw_eval_live_benchmark(params, tmp_path)
    assert (task.task_id, task.config.threshold) == (T02, 0.5)


# -- services kept between episodes --------------------------------------------------------------------


def _close_and_look(env: ClawEvalLiveEnvironment) -> tuple[str, list[Any], int]:
    """Read TK-102's status and the helpdesk's audited closures, then close TK-102 (the episode's
    write); return what was read and the helpdesk's episode port."""
    status = env.call(ToolCall("helpdesk_get_ticket", {"ticket_id": "TK-102"})).body["status"]
    audits, _ = env.services.audits()
    env.call(ToolCall("helpdesk_close_ticket", {"ticket_id": "TK-102", "resolution": "toner"}))
    return status, audits["helpdesk"]["closed"], env.services.ports[9107]


def test_kept_services_start_each_episode_from_the_fixtures(checkout: Path) -> None:
    task = by_id(checkout)[T01]
    with reusing_services(idle_limit=2):
        seen = []
        for _ in range(3):
            with open_claw_eval_live(task, "local", 0) as env:
                seen.append(_close_and_look(env))
                closed, _ = env.services.audits()
                assert closed["helpdesk"]["closed"] == [{"ticket_id": "TK-102", "resolution": "toner"}]
        assert len(service_processes(checkout)) == 1  # one helpdesk served all three episodes
    assert [(status, closed) for status, closed, _ in seen] == [("open", [])] * 3
    assert len({port for _, _, port in seen}) == 1
    assert service_processes(checkout) == []


def test_services_without_a_reset_endpoint_or_after_a_crash_are_not_kept(checkout: Path) -> None:
    task_dir = checkout / "tasks" / T01
    edit_yaml(task_dir, lambda data: data["services"][0].pop("reset_endpoint"))
    task = by_id(checkout)[T01]
    with reusing_services(idle_limit=2):
        ports = []
        for _ in range(2):
            with open_claw_eval_live(task, "local", 0) as env:
                ports.append(env.services.ports[9107])
            assert service_processes(checkout) == []
        assert ports[0] != ports[1]
        resettable = by_id(checkout)[T02]
        with pytest.raises(RuntimeError), open_claw_eval_live(resettable, "local", 0):
            raise RuntimeError("agent crashed")
        assert service_processes(checkout) == []


def test_a_kept_service_that_died_is_started_again(checkout: Path) -> None:
    task = by_id(checkout)[T01]
    with reusing_services(idle_limit=2):
        with open_claw_eval_live(task, "local", 0) as env:
            first = env.services.ports[9107]
        for pid in [int(p.name) for p in Path("/proc").glob("[0-9]*") if _runs_helpdesk(p, checkout)]:
            os.kill(pid, 9)
        with open_claw_eval_live(task, "local", 0) as env:
            assert env.services.ports[9107] != first
            assert env.call(ToolCall("helpdesk_list_tickets", {"status": "open"})).status == 200
    assert service_processes(checkout) == []


def _runs_helpdesk(proc: Path, checkout: Path) -> bool:
    try:
        cmdline = (proc / "cmdline").read_bytes()
        return os.readlink(proc / "cwd") == str(checkout) and b"mock_services/helpdesk" in cmdline
    except OSError:
        return False


def _check_counting_service_starts(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> list[list[str]]:
    """Check the fixture's tasks with ``workers`` workers; the services of each start, in order."""
    from res_repro.env.formats.claw_eval_live.services import ServiceManager
    from res_repro.evaluation.check import check_tasks
    from res_repro.evaluation.store import EpisodeStore

    starts: list[list[str]] = []
    original = ServiceManager.start

    def counting(self: ServiceManager) -> None:
        starts.append([service.name for service in self.services])
        original(self)

    monkeypatch.setattr(ServiceManager, "start", counting)
    tasks = load_claw_eval_live(checkout)
    store = EpisodeStore(checkout.parent / f"episodes-{workers}")
    verdicts = check_tasks(tasks, backend="local", store=store, workers=workers)
    assert [v.valid for v in verdicts] == [True, True]
    assert service_processes(checkout) == []
    return starts


def test_check_starts_each_tasks_services_once(checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    starts = _check_counting_service_starts(checkout, monkeypatch, workers=1)
    assert sorted(starts) == [["helpdesk"], ["helpdesk", "notes"]]  # nop and oracle shared them


def test_check_with_two_workers_reuses_services(checkout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Both nops run at once; whichever ends first frees its set, so at least one oracle is served from the
    # pool whatever the timing (the other may start its own set while its task's nop still holds one).
    starts = _check_counting_service_starts(checkout, monkeypatch, workers=2)
    assert len(starts) <= 3
    assert {tuple(names) for names in starts} == {("helpdesk",), ("helpdesk", "notes")}
