"""Random AgentCE instances: a valid week of meetings, hidden cells, decoys and local distractors.

The week is a grid of (day, period) times by rooms. Every booked cell holds a meeting that fits it
(room capacity and equipment, attendee availability, meeting length) and the week as a whole keeps the
global rules (no meeting twice, nobody in two places at once, a daily cap per person, precedence).
Some booked cells are hidden; each gets candidates: its true meeting, decoys that fit the cell but
break a global rule, and distractors that break one local rule. All draws come from one
``random.Random`` and sets are sorted before any draw, so a seed gives the same instance everywhere.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

Time = tuple[int, int]

DAYS = ("Mon", "Tue", "Wed")
PERIODS = (1, 2, 3, 4)
TIMES: tuple[Time, ...] = tuple((day, period) for day in range(len(DAYS)) for period in PERIODS)
ROOM_IDS = ("R1", "R2", "R3")
PEOPLE = {
    "P01": "Ada Brandt",
    "P02": "Bo Carlsen",
    "P03": "Chen Wei",
    "P04": "Dara Okafor",
    "P05": "Elif Yilmaz",
    "P06": "Farid Haddad",
    "P07": "Greta Lind",
    "P08": "Hugo Moreau",
    "P09": "Ines Duarte",
    "P10": "Jonas Weber",
}
EQUIPMENT = ("projector", "video", "whiteboard")
TOPICS = (
    "Budget review",
    "Design sync",
    "Hiring panel",
    "Incident retro",
    "Roadmap planning",
    "Vendor call",
    "Security audit",
    "Customer demo",
    "Sprint review",
    "Data quality check",
    "Release go/no-go",
    "Onboarding session",
)
PERIOD_MINUTES = (45, 60, 90)
DURATIONS = (30, 45, 60, 90)
OVERLONG = (60, 90, 120)
BOOKING_RATE = 0.7
UNAVAILABLE_RATE = 0.25
EQUIPMENT_RATE = 0.6
NEEDS_RATE = 0.4
MIN_SIZE, MAX_SIZE = 2, 4
MAX_DISTRACTORS = 2


@dataclass(frozen=True)
class Room:
    """A room: how many people it seats and what equipment it has."""

    room_id: str
    capacity: int
    equipment: tuple[str, ...]


@dataclass(frozen=True)
class Meeting:
    """A meeting request: who attends, how long it runs, what equipment it needs."""

    title: str
    attendees: tuple[str, ...]
    duration: int
    needs: tuple[str, ...]


@dataclass(frozen=True, order=True)
class Cell:
    """One cell of the grid: a room at a (day index, period) time."""

    time: Time
    room_id: str


@dataclass
class Instance:
    """A week and its puzzle; a meeting's key is its index in ``meetings``.

    ``placed`` is the complete valid schedule (visible and hidden cells); ``roles`` names each
    candidate of each hidden cell: ``truth``, a decoy kind, or ``distractor:<local rule>``.
    """

    rooms: dict[str, Room]
    minutes: dict[Time, int]
    cap: int
    meetings: list[Meeting] = field(default_factory=list)
    placed: dict[Cell, int] = field(default_factory=dict)
    unavailable: dict[str, frozenset[Time]] = field(default_factory=dict)
    precedence: list[tuple[int, int]] = field(default_factory=list)
    hidden: list[Cell] = field(default_factory=list)
    candidates: dict[Cell, list[int]] = field(default_factory=dict)
    roles: dict[tuple[Cell, int], str] = field(default_factory=dict)

    def add(self, meeting: Meeting) -> int:
        """Register a meeting and return its key."""
        self.meetings.append(meeting)
        return len(self.meetings) - 1

    def time_of(self, key: int) -> Time:
        """When a scheduled meeting takes place."""
        return next(cell.time for cell, placed in self.placed.items() if placed == key)

    def busy(self, time: Time) -> set[str]:
        """Everyone in a scheduled meeting at ``time``."""
        return {
            p for cell, key in self.placed.items() if cell.time == time for p in self.meetings[key].attendees
        }

    def load(self, person: str, day: int) -> int:
        """How many scheduled meetings ``person`` attends on ``day``."""
        return sum(
            person in self.meetings[key].attendees for cell, key in self.placed.items() if cell.time[0] == day
        )

    def available(self, person: str, time: Time) -> bool:
        """Whether ``person`` may attend a meeting at ``time``."""
        return time not in self.unavailable.get(person, frozenset())

    def fits(self, key: int, cell: Cell) -> bool:
        """Whether a meeting keeps the cell's local rules."""
        meeting, room = self.meetings[key], self.rooms[cell.room_id]
        return (
            len(meeting.attendees) <= room.capacity
            and set(meeting.needs) <= set(room.equipment)
            and all(self.available(person, cell.time) for person in meeting.attendees)
            and meeting.duration <= self.minutes[cell.time]
        )


def _meeting(rng: random.Random, attendees: list[str], room: Room, minutes: int) -> Meeting:
    return Meeting(
        title=rng.choice(TOPICS),
        attendees=tuple(sorted(attendees)),
        duration=rng.choice([d for d in DURATIONS if d <= minutes]),
        needs=tuple(item for item in room.equipment if rng.random() < NEEDS_RATE),
    )


def draw_week(rng: random.Random) -> Instance:
    """A complete schedule that keeps every local and global rule, with availability around it."""
    rooms = {
        room_id: Room(
            room_id, rng.randint(3, 6), tuple(e for e in EQUIPMENT if rng.random() < EQUIPMENT_RATE)
        )
        for room_id in ROOM_IDS
    }
    week = Instance(rooms, {time: rng.choice(PERIOD_MINUTES) for time in TIMES}, cap=rng.choice((2, 3)))
    for time in TIMES:
        for room in rooms.values():
            pool = [p for p in PEOPLE if p not in week.busy(time) and week.load(p, time[0]) < week.cap]
            size = rng.randint(MIN_SIZE, min(room.capacity, MAX_SIZE))
            if rng.random() < BOOKING_RATE and len(pool) >= size:
                meeting = _meeting(rng, rng.sample(pool, size), room, week.minutes[time])
                week.placed[Cell(time, room.room_id)] = week.add(meeting)
    week.unavailable = {
        person: frozenset(t for t in TIMES if person not in week.busy(t) and rng.random() < UNAVAILABLE_RATE)
        for person in PEOPLE
    }
    return week


def _add_background_rules(rng: random.Random, week: Instance, count: int) -> None:
    """Precedence rules that the complete schedule keeps, among visible and hidden meetings alike."""
    keys = sorted(week.placed.values())
    for _ in range(10 * count):
        if len(week.precedence) == count:
            return
        first, second = rng.sample(keys, 2)
        if week.time_of(first) != week.time_of(second):
            pair = (first, second) if week.time_of(first) < week.time_of(second) else (second, first)
            if pair not in week.precedence:
                week.precedence.append(pair)


def _safe_people(week: Instance, cell: Cell) -> list[str]:
    """People who could join a meeting replacing the cell's true one without breaking any rule."""
    truth = week.meetings[week.placed[cell]]
    busy = week.busy(cell.time)
    return [
        person
        for person in PEOPLE
        if week.available(person, cell.time)
        and (person in truth.attendees or (person not in busy and week.load(person, cell.time[0]) < week.cap))
    ]


def _fresh(rng: random.Random, week: Instance, cell: Cell, required: tuple[str, ...] = ()) -> Meeting | None:
    """A new meeting that fits the cell, with ``required`` among its attendees and safe people besides."""
    room = week.rooms[cell.room_id]
    pool = [person for person in _safe_people(week, cell) if person not in required]
    extra = rng.randint(max(MIN_SIZE, len(required)), min(room.capacity, MAX_SIZE)) - len(required)
    if len(pool) < extra:
        return None
    return _meeting(rng, [*required, *rng.sample(pool, extra)], room, week.minutes[cell.time])


DecoyMaker = Callable[[random.Random, Instance, Cell], int | None]
DistractorMaker = Callable[[random.Random, Instance, Cell], Meeting | None]


def _duplicate(rng: random.Random, week: Instance, cell: Cell) -> int | None:
    """A visible meeting that also fits this cell: breaks 'at most once'."""
    keys = [
        key
        for other, key in sorted(week.placed.items())
        if other not in week.hidden and key not in week.candidates[cell] and week.fits(key, cell)
    ]
    return rng.choice(keys) if keys else None


def _swap(rng: random.Random, week: Instance, cell: Cell) -> int | None:
    """Another hidden cell's true meeting that also fits this cell: breaks 'at most once' across slots."""
    keys = [
        week.placed[other]
        for other in week.hidden
        if other != cell
        and week.placed[other] not in week.candidates[cell]
        and week.fits(week.placed[other], cell)
    ]
    return rng.choice(keys) if keys else None


def _with_person(rng: random.Random, week: Instance, cell: Cell, people: list[str]) -> int | None:
    meeting = _fresh(rng, week, cell, (rng.choice(people),)) if people else None
    return week.add(meeting) if meeting else None


def _double_booking(rng: random.Random, week: Instance, cell: Cell) -> int | None:
    """A new meeting with someone who is in another room at the same time."""
    truth = week.meetings[week.placed[cell]]
    return _with_person(rng, week, cell, sorted(week.busy(cell.time) - set(truth.attendees)))


def _daily_cap(rng: random.Random, week: Instance, cell: Cell) -> int | None:
    """A new meeting with someone who already has the daily maximum of meetings that day."""
    truth, busy = week.meetings[week.placed[cell]], week.busy(cell.time)
    full = [
        person
        for person in PEOPLE
        if person not in truth.attendees
        and person not in busy
        and week.available(person, cell.time)
        and week.load(person, cell.time[0]) >= week.cap
    ]
    return _with_person(rng, week, cell, full)


def _precedence(rng: random.Random, week: Instance, cell: Cell) -> int | None:
    """A new meeting bound by a new precedence rule to a scheduled meeting on the wrong side of it."""
    meeting = _fresh(rng, week, cell)
    if meeting is None:
        return None
    key = week.add(meeting)
    other = rng.choice(sorted(placed for where, placed in week.placed.items() if where != cell))
    week.precedence.append((other, key) if week.time_of(other) >= cell.time else (key, other))
    return key


def _too_many(rng: random.Random, week: Instance, cell: Cell) -> Meeting | None:
    """One attendee more than the room seats."""
    room = week.rooms[cell.room_id]
    pool = [person for person in PEOPLE if week.available(person, cell.time)]
    if len(pool) <= room.capacity:
        return None
    return _meeting(rng, rng.sample(pool, room.capacity + 1), room, week.minutes[cell.time])


def _missing_equipment(rng: random.Random, week: Instance, cell: Cell) -> Meeting | None:
    """Needs an item the room lacks."""
    missing = [item for item in EQUIPMENT if item not in week.rooms[cell.room_id].equipment]
    meeting = _fresh(rng, week, cell) if missing else None
    return replace(meeting, needs=tuple(sorted({*meeting.needs, rng.choice(missing)}))) if meeting else None


def _unavailable(rng: random.Random, week: Instance, cell: Cell) -> Meeting | None:
    """Has an attendee who is unavailable at the cell's time."""
    away = [person for person in PEOPLE if not week.available(person, cell.time)]
    return _fresh(rng, week, cell, (rng.choice(away),)) if away else None


def _overlong(rng: random.Random, week: Instance, cell: Cell) -> Meeting | None:
    """Runs longer than the period."""
    meeting = _fresh(rng, week, cell)
    longer = [minutes for minutes in OVERLONG if minutes > week.minutes[cell.time]]
    return replace(meeting, duration=rng.choice(longer)) if meeting else None


DECOYS: dict[str, DecoyMaker] = {
    "duplicate": _duplicate,
    "swap": _swap,
    "double_booking": _double_booking,
    "daily_cap": _daily_cap,
    "precedence": _precedence,
}
DISTRACTORS: dict[str, DistractorMaker] = {
    "capacity": _too_many,
    "equipment": _missing_equipment,
    "availability": _unavailable,
    "duration": _overlong,
}


def _spread(rng: random.Random, slots: int, budget: int, per_slot: int) -> list[int]:
    """How many decoys each hidden slot gets: ``budget`` in all, at most ``per_slot`` each."""
    counts = [0] * slots
    for _ in range(budget):
        counts[rng.choice([i for i, count in enumerate(counts) if count < per_slot])] += 1
    return counts


def _add_decoy(rng: random.Random, week: Instance, cell: Cell) -> bool:
    for kind in rng.sample(list(DECOYS), len(DECOYS)):
        key = DECOYS[kind](rng, week, cell)
        if key is not None:
            week.candidates[cell].append(key)
            week.roles[cell, key] = kind
            return True
    return False


def _add_distractors(rng: random.Random, week: Instance, cell: Cell) -> None:
    wanted = rng.randint(1, MAX_DISTRACTORS)
    for kind in rng.sample(list(DISTRACTORS), len(DISTRACTORS)):
        if not wanted:
            return
        meeting = DISTRACTORS[kind](rng, week, cell)
        if meeting is not None:
            key = week.add(meeting)
            week.candidates[cell].append(key)
            week.roles[cell, key] = f"distractor:{kind}"
            wanted -= 1


def draw_instance(rng: random.Random, hidden: int, decoys: int, per_slot: int) -> Instance | None:
    """A week with ``hidden`` hidden cells and ``decoys`` decoys among their candidates; None if stuck."""
    week = draw_week(rng)
    if len(week.placed) < hidden:
        return None
    week.hidden = sorted(rng.sample(sorted(week.placed), hidden))
    _add_background_rules(rng, week, 2 + hidden // 2)
    for cell, count in zip(week.hidden, _spread(rng, hidden, decoys, per_slot), strict=True):
        truth = week.placed[cell]
        week.candidates[cell] = [truth]
        week.roles[cell, truth] = "truth"
        if not all(_add_decoy(rng, week, cell) for _ in range(count)):
            return None
        _add_distractors(rng, week, cell)
    return week
