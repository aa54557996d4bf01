"""AgentCE suite: sound puzzles (checked by an independent brute force), grading, determinism, parameters."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from res_repro.benchmarks.agentce import load_agentce
from res_repro.benchmarks.agentce.generator import is_sound
from res_repro.benchmarks.agentce.instance import draw_instance
from res_repro.benchmarks.agentce.render import render
from res_repro.env.formats.tool_api import ToolEnvironment
from res_repro.env.task import Task

SWEEP = list(itertools.product((2, 4, 8), (0, 2, 4)))

Record = dict[str, Any]


def _fixtures(task: Task) -> dict[str, dict[str, list[Record]]]:
    folder = task.path / "fixtures"
    return {path.stem: json.loads(path.read_text()) for path in folder.glob("*.json")}


class BruteForce:
    """Every complete assignment of a task's hidden slots that keeps all rules, found by enumeration."""

    def __init__(self, task: Task) -> None:
        fixtures = _fixtures(task)
        calendar = fixtures["calendar"]
        self.slots = calendar["hidden_slots"]
        self.meetings = {m["meeting_id"]: m for m in calendar["meetings"]}
        self.rooms = {r["room_id"]: r for r in fixtures["facilities"]["rooms"]}
        self.away = {
            p["person_id"]: {(u["day"], u["period"]) for u in p["unavailable"]}
            for p in fixtures["directory"]["people"]
        }
        rules = calendar["rules"]
        self.days = next(r["days"] for r in rules if r["type"] == "week")
        self.cap = next(r["max_meetings_per_day"] for r in rules if r["type"] == "daily_cap")
        self.order = [(r["before"], r["after"]) for r in rules if r["type"] == "precedence"]
        self.visible = [
            (c["meeting_id"], c["day"], c["period"], c["attendees"])
            for c in calendar["cells"]
            if c["status"] == "booked"
        ]

    def local(self, slot: Record, meeting_id: str) -> bool:
        """The slot's local rules, read straight from the records."""
        meeting, room = self.meetings[meeting_id], self.rooms[slot["room_id"]]
        return (
            len(meeting["attendees"]) <= room["capacity"]
            and all(item in room["equipment"] for item in meeting["needs"])
            and not any((slot["day"], slot["period"]) in self.away[p] for p in meeting["attendees"])
            and meeting["duration_min"] <= slot["minutes"]
        )

    def valid(self, assignment: dict[str, str]) -> bool:
        """The global rules on the completed week."""
        week = self.visible + [
            (
                assignment[s["slot_id"]],
                s["day"],
                s["period"],
                self.meetings[assignment[s["slot_id"]]]["attendees"],
            )
            for s in self.slots
        ]
        ids = [entry[0] for entry in week]
        seats = Counter((day, period, p) for _, day, period, people in week for p in people)
        daily = Counter((day, p) for _, day, _, people in week for p in people)
        when = {m: (self.days.index(day), period) for m, day, period, _ in week}
        return (
            len(ids) == len(set(ids))
            and max(seats.values()) <= 1
            and max(daily.values()) <= self.cap
            and all(when[a] < when[b] for a, b in self.order if a in when and b in when)
        )

    def solutions(self) -> list[dict[str, str]]:
        """All valid assignments over the locally valid candidates."""
        options = [[m for m in s["candidates"] if self.local(s, m)] for s in self.slots]
        names = [s["slot_id"] for s in self.slots]
        found = (dict(zip(names, combo, strict=True)) for combo in itertools.product(*options))
        return [assignment for assignment in found if self.valid(assignment)]


def _load(tmp_path: Path, **params: int) -> list[Task]:
    return load_agentce(params, tmp_path)


def _reference_answer(task: Task) -> str:
    answer = ToolEnvironment(task).run_reference().answer
    assert answer is not None
    return answer


@pytest.mark.slow
@pytest.mark.parametrize(("hidden", "decoys"), SWEEP)
def test_sweep_puzzles_are_sound_and_graded(tmp_path: Path, hidden: int, decoys: int) -> None:
    tasks = _load(tmp_path, H=hidden, B=decoys, instances=3)
    assert [t.task_id for t in tasks] == [f"agentce-h{hidden}-b{decoys}-{i:03d}" for i in range(3)]
    for task in tasks:
        brute = BruteForce(task)
        solutions = brute.solutions()
        answer = _reference_answer(task)
        assert solutions == [json.loads(answer)], task.task_id
        solution = solutions[0]
        assert len(solution) == hidden
        decoy_pairs = [
            (slot["slot_id"], m)
            for slot in brute.slots
            for m in slot["candidates"]
            if brute.local(slot, m) and m != solution[slot["slot_id"]]
        ]
        assert len(decoy_pairs) == decoys, task.task_id
        for slot_id, decoy in decoy_pairs:
            assert all(s[slot_id] != decoy for s in solutions)
            assert not brute.valid({**solution, slot_id: decoy})
        roles = task.config.metadata["roles"]
        assert sum(n for role, n in roles.items() if role != "truth" and ":" not in role) == decoys
        environment = ToolEnvironment(task)
        assert environment.grade(answer).score == 1.0
        assert ToolEnvironment(task).grade("").score < 0.5


def test_reference_gathers_everything_through_tools(tmp_path: Path) -> None:
    task = _load(tmp_path, H=4, B=2, instances=1)[0]
    environment = ToolEnvironment(task)
    grade = environment.grade(environment.run_reference().answer)
    used = {entry.tool for entry in environment.audit}
    assert grade.score == 1.0 and grade.passed
    assert {"get_schedule", "get_rules", "get_slot_candidates", "get_meeting", "get_person"} <= used
    assert all(entry.status == 200 for entry in environment.audit)


def test_half_right_answer_gets_half_credit(tmp_path: Path) -> None:
    task = _load(tmp_path, H=4, B=2, instances=1)[0]
    solution = json.loads(_reference_answer(task))
    slots = {s["slot_id"]: s for s in BruteForce(task).slots}
    half = dict(solution)
    for slot_id in list(solution)[:2]:
        half[slot_id] = next(m for m in slots[slot_id]["candidates"] if m != solution[slot_id])
    grade = ToolEnvironment(task).grade(json.dumps(half))
    assert grade.score == 0.5 and not grade.passed
    fenced = f"```json\n{json.dumps(solution)}\n```"
    assert ToolEnvironment(task).grade(fenced).score == 1.0
    assert ToolEnvironment(task).grade(json.dumps(list(solution.values()))).score == 0.0


def test_same_params_give_identical_tasks(tmp_path: Path) -> None:
    first = _load(tmp_path / "a", H=4, B=2, instances=3, seed=5)
    second = _load(tmp_path / "b", H=4, B=2, instances=3, seed=5)
    other = _load(tmp_path / "c", H=4, B=2, instances=3, seed=6)
    assert [t.content_hash for t in first] == [t.content_hash for t in second]
    assert first[0].path.parent.name == second[0].path.parent.name
    assert not {t.content_hash for t in first} & {t.content_hash for t in other}


def test_suite_ignores_name_and_limit_and_defaults(tmp_path: Path) -> None:
    tasks = load_agentce({"name": "agentce", "limit": 1, "instances": 2}, tmp_path)
    assert [t.task_id for t in tasks] == ["agentce-h4-b2-000", "agentce-h4-b2-001"]


def test_largest_settings_generate(tmp_path: Path) -> None:
    task = _load(tmp_path, H=12, B=36, instances=1)[0]
    assert ToolEnvironment(task).grade(_reference_answer(task)).score == 1.0


def test_unsound_draws_are_rejected() -> None:
    rng = random.Random("agentce-test")
    week = draw_instance(rng, 2, 2, 3)
    assert week is not None
    rendered = render(week, rng)
    assert is_sound(rendered)
    calendar = rendered.fixtures["calendar"]
    slot = calendar["hidden_slots"][0]
    truth = next(m for m in calendar["meetings"] if m["meeting_id"] == rendered.expected[slot["slot_id"]])
    calendar["meetings"].append({**truth, "meeting_id": "M-000"})
    slot["candidates"].append("M-000")
    assert not is_sound(rendered)  # the twin of the true meeting is a second solution
    slot["candidates"].remove("M-000")
    distractor = next(
        m for m, role in rendered.roles[slot["slot_id"]].items() if role.startswith("distractor")
    )
    rendered.roles[slot["slot_id"]][distractor] = "duplicate"
    assert not is_sound(rendered)  # a candidate labelled a decoy must fit its slot


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"H": 0}, "H"),
        ({"H": 13}, "H"),
        ({"H": "4"}, "H"),
        ({"H": True}, "H"),
        ({"B": -1}, "B"),
        ({"H": 1, "B": 4}, "B"),
        ({"instances": 0}, "instances"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_params_raise(tmp_path: Path, params: dict[str, Any], name: str) -> None:
    with pytest.raises(ValueError, match=rf"agentce parameter {name} must be an integer"):
        load_agentce(params, tmp_path)
