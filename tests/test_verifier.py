"""The verifier's outputs: reward files and rubric items, and what counts when they are missing."""

from __future__ import annotations

import time

import pytest
from task_factory import make_task

from res_repro.env.formats.harbor import load_task, parse_rubric, run_verifier, workspace_dir
from res_repro.evaluation.episode import open_environment
from res_repro.sandbox import SandboxSpec, make_sandbox


def _grade(tmp_path, test_script: str):
    task = load_task(make_task(tmp_path, test=test_script))
    with make_sandbox("local", SandboxSpec(workspace=workspace_dir(task))) as sandbox:
        return run_verifier(sandbox, task)


def test_rubric_items_give_a_partial_score(tmp_path):
    script = (
        "#!/bin/bash\nmkdir -p /logs/verifier\n"
        'echo \'{"items": [{"name": "a", "passed": true}, {"name": "b", "passed": false},'
        ' {"name": "c", "passed": true}, {"name": "d", "passed": true}]}\' > /logs/verifier/rubric.json\n'
    )
    grade = _grade(tmp_path, script)
    assert grade.score == pytest.approx(0.75)
    assert not grade.passed
    assert [item.name for item in grade.rubric if not item.passed] == ["b"]


def test_reward_json_is_read(tmp_path):
    grade = _grade(tmp_path, "#!/bin/bash\necho '{\"reward\": 1}' > /logs/verifier/reward.json\n")
    assert grade.passed and grade.score == 1.0


def test_garbage_reward_scores_zero_with_a_reason(tmp_path):
    grade = _grade(tmp_path, "#!/bin/bash\necho yes > /logs/verifier/reward.txt\n")
    assert grade.score == 0.0 and not grade.passed
    assert "unreadable reward" in grade.evidence["source"]


def test_no_output_scores_zero(tmp_path):
    grade = _grade(tmp_path, "#!/bin/bash\nexit 3\n")
    assert grade.score == 0.0
    assert grade.evidence["exit_code"] == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"items": []}', "with at least one item"),
        ('{"items": [{"name": "a", "passed": "yes"}]}', r"items\[0\]: expected"),
        ("[1]", "with at least one item"),
    ],
)
def test_malformed_rubric_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_rubric(text)


PLANTED_RUBRIC = '{"items": [{"name": "planted", "passed": true}]}'


@pytest.mark.parametrize(
    "plant",
    [
        f"mkdir -p /logs/verifier && echo '{PLANTED_RUBRIC}' > /logs/verifier/rubric.json",
        "mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt",
        # the verifier's folder swapped for a link to one the agent filled
        f"mkdir -p /app/mine && echo '{PLANTED_RUBRIC}' > /app/mine/rubric.json"
        " && rm -rf /logs/verifier && ln -s /app/mine /logs/verifier",
    ],
)
def test_what_the_agent_left_for_the_verifier_counts_for_nothing(tmp_path, plant):
    script = "#!/bin/bash\nls -A /tests\n[ -e /tests/conftest.py ] || echo 0 > /logs/verifier/reward.txt\n"
    task = load_task(make_task(tmp_path, test=script))
    with make_sandbox("local", SandboxSpec(workspace=workspace_dir(task))) as sandbox:
        planted = sandbox.exec(f"{plant} && echo 'raise SystemExit' > /tests/conftest.py", 30)
        assert planted.ok, planted.stderr
        grade = run_verifier(sandbox, task)
    assert grade.score == 0.0 and not grade.passed
    assert grade.evidence["source"] == "/logs/verifier/reward.txt"
    assert grade.evidence["output"].split() == ["test.sh"]  # only the task's tests are in /tests


def test_what_the_agent_left_running_is_ended_before_the_verifier_runs_on_local(tmp_path):
    """On ``local`` the verifier shares nothing with the agent's shell but the folders, so a writer the
    agent left behind is ended first; it would otherwise plant a passing rubric while the tests run."""
    script = "#!/bin/bash\nsleep 0.3\necho 0 > /logs/verifier/reward.txt\n"
    task = load_task(make_task(tmp_path, test=script))
    writer = (
        f"(while true; do mkdir -p /logs/verifier; echo '{PLANTED_RUBRIC}' > /logs/verifier/rubric.json;"
        " sleep 0.01; done) > /dev/null 2>&1 &"
    )
    with open_environment(task, backend="local") as env:
        assert env.sandbox.shell().run(writer, 30).ok
        time.sleep(0.1)
        grade = env.grade(None)
    assert grade.score == 0.0 and grade.evidence["source"] == "/logs/verifier/reward.txt"
