"""Generate AgentCE task drafts, keeping only instances whose puzzle is proven sound.

An instance is sound when, over the fixtures exactly as the tools serve them, (1) backtracking search
finds exactly one assignment of the hidden slots that keeps every rule, and it is the intended one;
(2) every decoy fits its slot locally, so only a global rule excludes it (by (1) it is in no complete
valid assignment); (3) every distractor breaks a local rule of its slot. An unsound draw is replaced by
the next draw of the same instance (a deterministic retry), so a seed always yields the same suite.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from res_repro.benchmarks.agentce.instance import draw_instance
from res_repro.benchmarks.agentce.reference import Puzzle, find_solutions
from res_repro.benchmarks.agentce.render import SERVICES, TOOLS, Fixtures, Rendered, prompt, render
from res_repro.benchmarks.agentce.settings import MAX_DECOYS_PER_SLOT, Settings
from res_repro.benchmarks.generated import ToolTaskDraft, with_constants
from res_repro.env.formats.tool_api import ToolTaskConfig

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "reference.py"
GRADER = HERE / "grader.py"
MAX_ATTEMPTS = 500
BASE_TURNS, TURNS_PER_SLOT = 20, 8


def task_id(settings: Settings, index: int) -> str:
    """The id of the ``index``-th task of a suite, e.g. ``agentce-h4-b2-007``."""
    return f"agentce-h{settings.hidden}-b{settings.decoys}-{index:03d}"


def puzzle_from_fixtures(fixtures: Fixtures) -> Puzzle:
    """The puzzle over the full fixtures, as the reference program would assemble it from tool calls."""
    calendar = fixtures["calendar"]
    return Puzzle(
        calendar["cells"],
        calendar["rules"],
        calendar["hidden_slots"],
        {record["meeting_id"]: record for record in calendar["meetings"]},
        {record["room_id"]: record for record in fixtures["facilities"]["rooms"]},
        {record["person_id"]: record for record in fixtures["directory"]["people"]},
    )


def is_sound(rendered: Rendered) -> bool:
    """Unique intended solution, locally valid decoys, locally invalid distractors."""
    puzzle = puzzle_from_fixtures(rendered.fixtures)
    if find_solutions(puzzle, limit=2) != [rendered.expected]:
        return False
    return all(
        puzzle.fits(slot, meeting_id) != role.startswith("distractor:")
        for slot in puzzle.slots
        for meeting_id, role in rendered.roles[slot["slot_id"]].items()
    )


def _draw(settings: Settings, index: int) -> tuple[Rendered, int]:
    for attempt in range(MAX_ATTEMPTS):
        rng = random.Random(f"agentce:{settings.seed}:{settings.hidden}:{settings.decoys}:{index}:{attempt}")
        week = draw_instance(rng, settings.hidden, settings.decoys, MAX_DECOYS_PER_SLOT)
        if week is not None:
            rendered = render(week, rng)
            if is_sound(rendered):
                return rendered, attempt
    raise RuntimeError(f"no sound instance for {task_id(settings, index)} in {MAX_ATTEMPTS} draws")


def _draft(settings: Settings, index: int) -> ToolTaskDraft:
    rendered, attempt = _draw(settings, index)
    roles = Counter(role for by_meeting in rendered.roles.values() for role in by_meeting.values())
    config = ToolTaskConfig(
        task_id=task_id(settings, index),
        family="agentce",
        prompt=prompt(list(rendered.expected)),
        max_turns=BASE_TURNS + TURNS_PER_SLOT * settings.hidden,
        pass_threshold=1.0,
        services=SERVICES,
        tools=TOOLS,
        metadata={
            "H": settings.hidden,
            "B": settings.decoys,
            "seed": settings.seed,
            "index": index,
            "attempt": attempt,
            "roles": dict(sorted(roles.items())),
        },
    )
    return ToolTaskDraft(
        config=config,
        fixtures=rendered.fixtures,
        solution=with_constants(REFERENCE),
        grader=with_constants(GRADER, EXPECTED=rendered.expected),
    )


def generate(settings: Settings) -> Iterator[ToolTaskDraft]:
    """The suite's drafts, one per instance index."""
    for index in range(settings.instances):
        yield _draft(settings, index)
