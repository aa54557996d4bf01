"""Run a Harbor task's verifier inside a sandbox and read what it writes.

A verifier reports in one of two ways:

- a reward: ``/logs/verifier/reward.txt`` (a number) or ``reward.json`` (``{"reward": x}``), for binary
  and native-score graders;
- rubric items: ``/logs/verifier/rubric.json`` (``{"items": [{"name": str, "passed": bool}, ...]}``), for
  Workspace-style graders; the score is the share of items passed and the task passes when all do.
"""

from __future__ import annotations

import json
import secrets

from res_repro.env.formats.harbor.task_file import TEST_SCRIPT
from res_repro.env.grade import Grade, RubricItem
from res_repro.env.task import Task
from res_repro.sandbox.base import APP_DIR, TESTS_DIR, TMP_DIR, VERIFIER_LOGS_DIR, Sandbox

REWARD_TXT = f"{VERIFIER_LOGS_DIR}/reward.txt"
REWARD_JSON = f"{VERIFIER_LOGS_DIR}/reward.json"
RUBRIC_JSON = f"{VERIFIER_LOGS_DIR}/rubric.json"
EVIDENCE_CHARS = 4000


def _parse_reward_json(text: str) -> float:
    """Read ``{"reward": x}`` or a single-valued object or a bare number."""
    data = json.loads(text)
    if isinstance(data, int | float):
        return float(data)
    if isinstance(data, dict):
        if "reward" in data:
            return float(data["reward"])
        if len(data) == 1:
            return float(next(iter(data.values())))
    raise ValueError(f"expected a number or {{'reward': number}}, got {text[:80]!r}")


def parse_rubric(text: str) -> tuple[RubricItem, ...]:
    """Read ``{"items": [{"name": ..., "passed": ...}, ...]}``; raise ValueError when malformed."""
    data = json.loads(text)
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise ValueError("expected {'items': [{'name': str, 'passed': bool}, ...]} with at least one item")
    parsed = []
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("passed"), bool):
            raise ValueError(f"items[{index}]: expected {{'name': str, 'passed': bool}}")
        parsed.append(RubricItem(name=str(item.get("name", index)), passed=item["passed"]))
    return tuple(parsed)


REWARD_BYTES = 1 << 20  # of a reward file the verifier reads: a number, or a small JSON object


def _read(sandbox: Sandbox, path: str) -> str | None:
    try:
        return sandbox.read_file(path, limit=REWARD_BYTES).decode("utf-8", "replace").strip()
    except FileNotFoundError:
        return None


def _grade_from_files(sandbox: Sandbox) -> tuple[Grade, str]:
    """Grade from the rubric if present, else from the reward; missing or unreadable output scores 0."""
    rubric_text = _read(sandbox, RUBRIC_JSON)
    if rubric_text is not None:
        try:
            rubric = parse_rubric(rubric_text)
        except ValueError as exc:
            return Grade(score=0.0, passed=False), f"{RUBRIC_JSON}: unreadable rubric ({exc})"
        passed = sum(item.passed for item in rubric)
        return Grade(score=passed / len(rubric), passed=passed == len(rubric), rubric=rubric), RUBRIC_JSON
    for path, parse in ((REWARD_TXT, float), (REWARD_JSON, _parse_reward_json)):
        text = _read(sandbox, path)
        if text is None:
            continue
        try:
            score = min(max(parse(text), 0.0), 1.0)
        except ValueError as exc:
            return Grade(score=0.0, passed=False), f"{path}: unreadable reward ({exc})"
        return Grade(score=score, passed=score >= 1.0), path
    return Grade(score=0.0, passed=False), "the verifier wrote no reward or rubric file"


def run_verifier(sandbox: Sandbox, task: Task) -> Grade:
    """Copy the task's tests into the sandbox, run tests/test.sh, and grade from what it wrote.

    The agent could write anywhere in the sandbox, so what it left where the verifier reads and writes
    goes first: ``/tests`` is emptied before the task's tests arrive there (a planted ``conftest.py``
    would run inside pytest) and ``/logs/verifier`` is made anew (a planted ``rubric.json`` or reward
    would be read as the verifier's). The tests are staged under a name the agent cannot guess and moved
    in by the verifier's own command, so one command does it all.
    """
    staged = f"{TMP_DIR}/.res-tests-{secrets.token_hex(8)}"
    sandbox.put_dir((task.path / TEST_SCRIPT).parent, staged)
    result = sandbox.exec(
        f"rm -rf {TESTS_DIR}/* {TESTS_DIR}/.[!.]* {TESTS_DIR}/..?* && cp -a {staged}/. {TESTS_DIR}/"
        f" && rm -rf {staged} {VERIFIER_LOGS_DIR} && mkdir -p {VERIFIER_LOGS_DIR}"
        f" && bash {TESTS_DIR}/test.sh",
        timeout=task.config.verifier.timeout_sec,
        cwd=APP_DIR,
        env=task.config.verifier.env,
    )
    grade, source = _grade_from_files(sandbox)
    evidence = {
        "source": source,
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "output": (result.stdout + result.stderr)[-EVIDENCE_CHARS:],
    }
    return Grade(score=grade.score, passed=grade.passed, rubric=grade.rubric, evidence=evidence)
