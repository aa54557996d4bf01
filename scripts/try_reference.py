"""Run the reference program of one Claw-Eval-Live task once and show what the grader made of it.

    python scripts/try_reference.py /path/to/Claw-Eval-Live/tasks/<task id>

Prints the score against the pass threshold, the grader's dimension scores, the tool calls the program
made (tool, status) and the start of its answer: the loop for writing or repairing a reference.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's code, not an installed one

from res_repro.agents.reference import OracleAgent
from res_repro.env.formats import load_task_dir
from res_repro.evaluation.episode import run_episode


def main(task_dir: str) -> int:
    """Run the oracle on the task at ``task_dir`` and print the outcome; exit 0 when it passed."""
    task = load_task_dir(Path(task_dir))
    record = run_episode(task, OracleAgent(), backend="local", episode_id="try-reference")
    grade = record.grade
    print(
        f"{task.task_id}: score {record.score:.2f} (threshold {task.config.threshold:.2f}), "
        f"{'passed' if record.passed else 'FAILED'}; stop {record.stop_reason} {record.error or ''}"
    )
    if grade is not None:
        print(json.dumps({k: v for k, v in grade.evidence.items() if k != "artifacts"}, indent=1)[:3000])
    for message in record.messages:
        if message.get("role") != "assistant":
            print("message:", str(message.get("content"))[:2000])
    print("answer:", (record.answer or "")[:1500])
    return 0 if record.passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
