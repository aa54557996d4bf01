"""A Claw-Eval-Live task that works in the shell sandbox: its files under /workspace, the three sandbox
tools, grader-only files added after the episode, and the snapshot commands' output graded."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from res_repro.agents.reference import NopAgent, OracleAgent
from res_repro.env.formats import load_task_dir, open_environment
from res_repro.env.tools import ToolCall
from res_repro.evaluation.episode import run_episode

FIXTURE = Path(__file__).parent / "fixtures" / "claw_eval_live" / "checkout"
TASK = "CTB_T03_fix_config"

TASK_YAML = f"""\
task_id: {TASK}
task_name: Fix the nightly job
prompt:
  text: The nightly job in /workspace/job fails. Fix its configuration, and write what was wrong to
    /workspace/NOTES.md.
tools: []
tool_endpoints: []
services: []
sandbox_files:
  - job/config.env
  - job/run.sh
sandbox_grader_files:
  - checks/verify.sh
env_snapshot_commands:
  - bash /workspace/job/run.sh
  - bash /workspace/checks/verify.sh
  - python -c "print('python answers')"
environment:
  timeout_seconds: 60
  max_turns: 10
"""

# Half for a successful run after the fix, a quarter for the verify script, a quarter for the notes.
GRADER = """
from liveclaw_500.graders.base import AbstractGrader
from liveclaw_500.models.trace import DimensionScores


class FixConfigGrader(AbstractGrader):
    def grade(
        self, messages, dispatches, task, audit_data=None, judge=None, media_events=None, env_snapshot=None
    ):
        snapshot = env_snapshot or {}
        run = snapshot.get("cmd:bash /workspace/job/run.sh", {})
        verify = snapshot.get("cmd:bash /workspace/checks/verify.sh", {})
        python = snapshot.get("cmd:python -c \\"print('python answers')\\"", {})
        completion = 0.5 * (run.get("exit_code") == 0) + 0.25 * ("NOTES_OK" in verify.get("stdout", ""))
        completion += 0.25 * ("python answers" in python.get("stdout", ""))
        return DimensionScores(completion=completion, robustness=1.0)
"""

REFERENCE = """
def solve(call):
    config = call("sandbox_file_read", path="/workspace/job/config.env")["content"]
    call("sandbox_file_write", path="job/config.env", content=config.replace("MODE=broken", "MODE=ok"))
    call("sandbox_file_write", path="/workspace/NOTES.md", content="MODE was broken; set to ok.\\n")
    run = call("sandbox_shell_exec", command="bash /workspace/job/run.sh")
    return f"Fixed MODE in job/config.env; the job now exits {run['exit_code']}."
"""


@pytest.fixture
def task_dir(tmp_path: Path) -> Path:
    """The fixture checkout with one shell-sandbox task added."""
    checkout = Path(shutil.copytree(FIXTURE, tmp_path / "Claw-Eval-Live"))
    task = checkout / "tasks" / TASK
    for relative, text in {
        "task.yaml": TASK_YAML,
        "grader.py": GRADER,
        "solution/solve.py": REFERENCE,
        "job/config.env": "MODE=broken\n",
        "job/run.sh": '. "$(dirname "$0")/config.env"; [ "$MODE" = ok ]\n',
        "checks/verify.sh": "grep -q broken /workspace/NOTES.md && echo NOTES_OK\n",
    }.items():
        (task / relative).parent.mkdir(parents=True, exist_ok=True)
        (task / relative).write_text(text)
    return task


def test_the_reference_fixes_the_workspace_and_the_grader_reads_the_snapshot(task_dir: Path) -> None:
    task = load_task_dir(task_dir)
    oracle = run_episode(task, OracleAgent(), backend="local", episode_id="oracle")
    assert oracle.score == 1.0 and oracle.passed, oracle
    nop = run_episode(task, NopAgent(), backend="local", episode_id="nop")
    assert nop.score == 0.25  # only `python` answers: nothing was fixed or written


def test_grader_files_stay_hidden_during_the_episode(task_dir: Path) -> None:
    with open_environment(load_task_dir(task_dir), backend="local") as env:
        names = {tool.name for tool in env.tools}
        assert {"sandbox_shell_exec", "sandbox_file_read", "sandbox_file_write"} <= names
        listing = env.call(ToolCall("sandbox_shell_exec", {"command": "find /workspace/ -type f | sort"}))
        assert listing.body["stdout"].split() == ["/workspace/job/config.env", "/workspace/job/run.sh"]
