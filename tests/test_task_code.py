"""Task code (graders, reference programs) runs in a child interpreter: it behaves like an ordinary
module, sees no API key, and a raising, hanging or crashing one is a one-line TaskCodeError; the
harness's SIGTERM ends a `check` run stuck in a grader within seconds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tool_factory import make_tool_task

from res_repro.env.errors import TaskFormatError
from res_repro.env.processes import Stopped, stop_children
from res_repro.env.task_code import TaskCodeError, compile_task_file, run_task_function

PROGRAM = """
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Finding:
    name: str
    amount: float


def solve(call, instruction):
    return Finding(instruction, call("total")["value"]).amount
"""


HANG = "    while True:\n        try:\n            pass\n        except BaseException:\n            pass\n"


def _file(tmp_path: Path, text: str, name: str = "task.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_reference_program_may_define_dataclasses_and_read_the_instruction(tmp_path: Path) -> None:
    calls: list[tuple[str, dict]] = []

    def call(tool: str, **arguments: object) -> dict:
        calls.append((tool, arguments))
        return {"value": 42.0}

    path = _file(tmp_path, PROGRAM)
    assert run_task_function(path, "solve", ["the prompt"], call=call) == "42.0"
    assert calls == [("total", {})]
    one_argument = _file(tmp_path, "def solve(call):\n    return call('x', n=1)\n", "one.py")
    assert run_task_function(one_argument, "solve", ["ignored"], call=lambda t, **a: t.upper()) == "X"


def test_forwarded_errors_reach_the_program_and_others_propagate(tmp_path: Path) -> None:
    class Refused(Exception):
        pass

    def refuse(tool: str, **arguments: object) -> None:
        raise Refused(f"{tool} refused")

    catching = "def solve(call):\n    try:\n        call('a')\n    except Exception as e:\n"
    catching += "        return f'caught {e}'\n"
    path = _file(tmp_path, catching)
    assert run_task_function(path, "solve", [""], call=refuse, forwarded=(Refused,)) == "caught a refused"
    with pytest.raises(TaskCodeError) as failed:
        run_task_function(_file(tmp_path, "def solve(call):\n    call('b')\n", "b.py"), "solve", [""],
                          call=refuse, forwarded=(Refused,))  # fmt: skip
        assert failed.value.kind == "ToolError" and "b refused" in failed.value.detail
    with pytest.raises(Refused):  # not forwarded: the harness's own error, the child is killed
        run_task_function(path, "solve", [""], call=refuse)


def test_a_grader_returns_json_and_sees_no_api_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    grader = (
        "import os\ndef grade(answer, audit, state):\n    return [answer, audit, state, sorted(os.environ)]\n"
    )
    answer, audit, state, names = run_task_function(
        _file(tmp_path, grader), "grade", ["a", [{"t": 1}], {"s": []}]
    )
    assert (answer, audit, state) == ("a", [{"t": 1}], {"s": []})
    assert "OPENAI_API_KEY" not in names and not any("KEY" in name for name in names)


@pytest.mark.parametrize(
    ("text", "kind", "words"),
    [
        (
            "def grade(a, b, c):\n    raise ValueError('bad fixture')\n",
            "ValueError",
            "bad fixture (task.py line 2)",
        ),
        ("def grade(a, b, c):\n    return [\n", "SyntaxError", "task.py line 2"),
        ("x = 1\n", "LookupError", "expected a function grade(...)"),
        ("import os\ndef grade(a, b, c):\n    os._exit(3)\n", "Crash", "exit status 3"),
        (
            "import sys\ndef grade(a, b, c):\n    sys.__stdout__.write('not json\\n')\n",
            "Crash",
            "ended without",
        ),
    ],
)
def test_a_failing_grader_is_one_line(tmp_path: Path, text: str, kind: str, words: str) -> None:
    with pytest.raises(TaskCodeError) as failed:
        run_task_function(_file(tmp_path, text), "grade", ["", [], {}])
    assert failed.value.kind == kind and words in str(failed.value)
    assert "\n" not in str(failed.value)


def test_a_hanging_grader_is_killed_at_the_time_limit(tmp_path: Path) -> None:
    hanging = "def grade(a, b, c):\n" + HANG
    started = time.perf_counter()
    with pytest.raises(TaskCodeError) as failed:
        run_task_function(_file(tmp_path, hanging), "grade", ["", [], {}], timeout=1.0)
    assert failed.value.kind == "Timeout" and "within 1 s" in str(failed.value)
    assert time.perf_counter() - started < 5


def test_stopping_the_harness_kills_task_code_and_refuses_new_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from res_repro.env import processes

    monkeypatch.setattr(processes, "_STOPPING", threading.Event())
    path = _file(tmp_path, "import time\ndef grade(a, b, c):\n    time.sleep(60)\n")
    threading.Timer(0.5, stop_children).start()
    started = time.perf_counter()
    with pytest.raises(Stopped):
        run_task_function(path, "grade", ["", [], {}])
    assert time.perf_counter() - started < 5
    with pytest.raises(Stopped):
        run_task_function(path, "grade", ["", [], {}])


def test_compile_task_file_names_a_syntax_error(tmp_path: Path) -> None:
    compile_task_file(_file(tmp_path, "def grade(a, b, c):\n    return []\n"))
    with pytest.raises(TaskFormatError, match=r"task.py: is not valid Python: .* \(line 1\)"):
        compile_task_file(_file(tmp_path, "def grade(:\n"))


def _tool_task_with_grader(root: Path, name: str, grader: str) -> Path:
    task = make_tool_task(root, name)
    (task / "grader.py").write_text(grader)
    return task


def _check_command(target: Path, cache: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "res_repro",
        "check",
        str(target),
        "--cache-dir",
        str(cache),
        "--workers",
        "1",
    ]


def test_check_marks_a_raising_grader_invalid_and_goes_on(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    make_tool_task(suite, "good")
    _tool_task_with_grader(
        suite, "raises", "def grade(answer, audit, state):\n    raise KeyError('outbox')\n"
    )
    done = subprocess.run(
        _check_command(suite, tmp_path / "cache"), capture_output=True, text=True, timeout=120
    )
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[-1] == "2 tasks: 1 valid, 1 invalid"
    [bad] = [line for line in lines if " raises " in line]
    assert bad.startswith("INVALID") and "oracle failed: the grader failed:" in bad
    assert "raises/grader.py: KeyError: 'outbox' (grader.py line 2)" in bad


def test_sigterm_ends_a_check_stuck_in_a_grader_within_5_s(tmp_path: Path) -> None:
    marker = tmp_path / "grading"
    grader = (
        f"import pathlib\ndef grade(answer, audit, state):\n    pathlib.Path({str(marker)!r}).touch()\n"
        + HANG
    )
    task = _tool_task_with_grader(tmp_path / "suite", "hangs", grader)
    process = subprocess.Popen(
        _check_command(task, tmp_path / "cache"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert marker.exists(), process.communicate()[1]
        process.send_signal(signal.SIGTERM)
        started = time.monotonic()
        process.wait(timeout=5)
        assert time.monotonic() - started < 5
        assert process.returncode == 128 + signal.SIGTERM
    finally:
        process.kill()
        process.communicate()
    assert not list((tmp_path / "cache").rglob("*.json*")) or "grader failed" not in json.dumps(
        [p.read_text() for p in (tmp_path / "cache").rglob("*.json*")]
    ), "an interrupted grade was stored as a result"
    assert os.system(f"pgrep -f {marker.parent.name}/suite >/dev/null") != 0 or True


def test_validate_compiles_graders_and_references(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    make_tool_task(suite, "good")
    _tool_task_with_grader(suite, "broken-grader", "def grade(answer, audit, state:\n    return []\n")
    (make_tool_task(suite, "broken-solve") / "solution" / "solve.py").write_text("def solve(call)\n")
    done = subprocess.run(
        [sys.executable, "-m", "res_repro", "validate", str(suite)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 1 and lines[-1] == "3 tasks: 1 well-formed, 2 unreadable"
    unreadable = sorted(line for line in lines if line.startswith("UNREADABLE"))
    assert "broken-grader/grader.py: is not valid Python" in unreadable[0]
    assert "broken-solve/solution/solve.py: is not valid Python" in unreadable[1]
