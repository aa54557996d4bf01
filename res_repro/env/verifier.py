"""Run a Harbor task's verifier inside a sandbox and read the reward it writes."""

from __future__ import annotations

import json

from res_repro.env.grade import Grade
from res_repro.env.task import Task
from res_repro.sandbox.base import APP_DIR, TESTS_DIR, VERIFIER_LOGS_DIR, Sandbox

REWARD_TXT = f"{VERIFIER_LOGS_DIR}/reward.txt"
REWARD_JSON = f"{VERIFIER_LOGS_DIR}/reward.json"
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


def _read_reward(sandbox: Sandbox) -> tuple[float | None, str]:
    """Return the reward and a note on where it came from (or why there is none)."""
    for path, parse in ((REWARD_TXT, float), (REWARD_JSON, _parse_reward_json)):
        try:
            text = sandbox.read_file(path).decode("utf-8", "replace").strip()
        except FileNotFoundError:
            continue
        try:
            return parse(text), path
        except ValueError as exc:
            return None, f"{path}: unreadable reward ({exc})"
    return None, "the verifier wrote no reward file"


def run_verifier(sandbox: Sandbox, task: Task) -> Grade:
    """Copy the task's tests into the sandbox, run tests/test.sh and grade from its reward file.

    A missing or unreadable reward counts as 0: the verifier did not confirm success.
    """
    sandbox.put_dir(task.tests_dir, TESTS_DIR)
    result = sandbox.exec(
        f"mkdir -p {VERIFIER_LOGS_DIR} && bash {TESTS_DIR}/test.sh",
        timeout=task.config.verifier.timeout_sec,
        cwd=APP_DIR,
        env=task.config.verifier.env,
    )
    reward, source = _read_reward(sandbox)
    score = min(max(reward, 0.0), 1.0) if reward is not None else 0.0
    evidence = {
        "reward_source": source,
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "output": (result.stdout + result.stderr)[-EVIDENCE_CHARS:],
    }
    return Grade(score=score, passed=score >= 1.0, evidence=evidence)
