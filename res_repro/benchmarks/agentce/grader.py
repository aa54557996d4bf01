"""Grader of an AgentCE task: one check per hidden slot, so the score is the share of slots filled right.

Each task's grader.py is this file preceded by ``EXPECTED = {slot_id: meeting_id, ...}``. The format
check (a JSON object naming exactly the hidden slots, each with a meeting id) is reported with weight 0:
it explains a zero score without skewing the per-slot credit. An answer that is not a JSON object earns
nothing; a well-formed object with some slots right earns those slots.
"""

import json
from collections.abc import Mapping
from typing import Any

FENCE = "```"


def parse_answer(answer: str) -> dict[str, Any] | None:
    """The answer as a JSON object (a surrounding Markdown code fence is tolerated), else None."""
    text = answer.strip()
    if text.startswith(FENCE) and text.endswith(FENCE) and len(text) > 2 * len(FENCE):
        text = text[len(FENCE) : -len(FENCE)].removeprefix("json").strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def check_answer(answer: str, expected: Mapping[str, str]) -> list[dict[str, Any]]:
    """Weighted checks of ``answer`` against the expected {slot_id: meeting_id}."""
    chosen = parse_answer(answer) or {}
    well_formed = set(chosen) == set(expected) and all(isinstance(value, str) for value in chosen.values())
    checks = [
        {
            "name": "answer is a JSON object mapping every hidden slot id to a meeting id",
            "weight": 0.0,
            "passed": well_formed,
        }
    ]
    for slot_id, meeting_id in expected.items():
        value = chosen.get(slot_id)
        passed = isinstance(value, str) and value.strip() == meeting_id
        checks.append({"name": f"slot {slot_id} holds the right meeting", "weight": 1.0, "passed": passed})
    return checks


def grade(answer: str, audit: list[dict[str, Any]], state: dict[str, Any]) -> list[dict[str, Any]]:
    """Grade the final answer; the audit log and service state play no part."""
    return check_answer(answer, EXPECTED)  # noqa: F821 - defined by the header each task's copy starts with
