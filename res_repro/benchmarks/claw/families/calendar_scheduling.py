"""Calendar scheduling: find the earliest common free slot for three people, book it, report double-bookings.

Planted cases: busy blocks (spread over the three calendars) covering every start before the expected
slot, a cancelled event inside that slot (it must not block), an overlapping pair of the organizer's
events, and distractors: the same people's events on the neighbouring days and a bystander's events.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from res_repro.benchmarks.claw.common import (
    answer_format,
    draft,
    email_for,
    get_tool,
    iso,
    list_tool,
    pick_names,
    schema,
    search_tool,
    shift,
    string,
    strings,
)
from res_repro.benchmarks.generated import ToolTaskDraft
from res_repro.env.formats.tool_api import ToolDef

FAMILY = "calendar-scheduling"
DOMAIN = "corp.example"
DAY_START, DAY_END, STEP = 9 * 60, 17 * 60, 30
UNITS = (DAY_END - DAY_START) // STEP
TITLES = [
    "1:1", "Budget review", "Customer call", "Design review", "Hiring panel", "Standup",
    "Vendor demo", "Roadmap sync", "Training", "Lunch and learn", "Board prep", "Interview",
]  # fmt: skip
MEETINGS = ["Quarterly planning", "Launch retrospective", "Pricing workshop", "Security review"]


def clock(minutes: int) -> str:
    """Minutes after midnight as HH:MM."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


@dataclass
class Calendars:
    """Events being generated; times are in half-hour units after 09:00."""

    rng: random.Random
    day: date
    events: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self, owner: str, start: int, end: int, status: str = "confirmed", day: date | None = None
    ) -> None:
        """An event in ``owner``'s calendar from unit ``start`` to unit ``end``."""
        self.events.append(
            {
                "calendar": owner,
                "date": iso(day or self.day),
                "start": clock(DAY_START + start * STEP),
                "end": clock(DAY_START + end * STEP),
                "title": self.rng.choice(TITLES),
                "status": status,
                "location": self.rng.choice(["Room A", "Room B", "Video call", "Cafe"]),
            }
        )

    def cover(self, owners: list[str], until: int) -> None:
        """Busy blocks, each in a random owner's calendar, that together cover units 0 to ``until``."""
        unit = 0
        while unit < until:
            length = min(self.rng.randint(1, 3), until - unit)
            self.add(self.rng.choice(owners), unit, unit + length)
            unit += length

    def scatter(self, owner: str, first: int, count: int) -> None:
        """``count`` short events in ``owner``'s calendar starting at or after unit ``first``."""
        for _ in range(count):
            start = self.rng.randint(first, UNITS - 1)
            self.add(owner, start, min(UNITS, start + self.rng.randint(1, 2)))


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _minutes(text: str) -> int:
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def _truth(events: list[dict], people: list[dict], day: str, duration: int) -> dict[str, Any]:
    """The earliest common free slot and the organizer's double-booked events, by the prompt's rules."""
    emails = [p["email"] for p in people[:3]]
    busy = [
        (e["calendar"], (_minutes(e["start"]), _minutes(e["end"])), e["event_id"])
        for e in events
        if e["date"] == day and e["status"] == "confirmed" and e["calendar"] in emails
    ]
    start = next(
        s
        for s in range(DAY_START, DAY_END - duration + 1, STEP)
        if not any(_overlaps((s, s + duration), span) for _, span, _ in busy)
    )
    mine = [(span, event_id) for owner, span, event_id in busy if owner == emails[0]]
    double = [i for span, i in mine if any(_overlaps(span, other) for other, j in mine if j != i)]
    return {"start": clock(start), "end": clock(start + duration), "double_booked": double}


def _events(rng: random.Random, people: list[dict], day: date, duration: int) -> list[dict]:
    """The calendars: the expected slot free for all three participants and blocked before."""
    units = duration // STEP
    slot = rng.randint(3, UNITS - units - 3)
    emails = [p["email"] for p in people]
    organizer, participants = emails[0], emails[:3]
    calendars = Calendars(rng, day)
    calendars.cover(participants, slot)
    calendars.add(rng.choice(participants), slot, slot + units, status="cancelled")
    calendars.add(organizer, 0, 2, status="cancelled")
    after = slot + units
    pair_start = rng.randint(after, UNITS - 3)
    calendars.add(organizer, pair_start, pair_start + 2)
    calendars.add(organizer, pair_start + 1, pair_start + 3)
    for owner in participants[1:]:
        calendars.scatter(owner, after, rng.randint(0, 2))
    for neighbour in (shift(day, -1), shift(day, 1)):
        calendars.add(rng.choice(participants), slot, slot + units, day=neighbour)
    calendars.add(emails[3], slot, slot + units)
    first = rng.randint(1000, 8000)
    rng.shuffle(calendars.events)
    return [{"event_id": f"EV-{first + n}", **event} for n, event in enumerate(calendars.events)]


def _people(rng: random.Random) -> list[dict[str, Any]]:
    """Organizer, two attendees, a bystander, and someone sharing the organizer's first name."""
    names = pick_names(rng, 5)
    names[4] = f"{names[0].split()[0]} {names[4].split()[1]}"
    numbers = rng.sample(range(100, 1000), len(names))
    return [
        {"person_id": f"P-{number}", "name": name, "email": email_for(name, DOMAIN)}
        for name, number in zip(names, numbers, strict=True)
    ]


def _tools() -> list[ToolDef]:
    create_properties = {
        "calendar": string("the organizer's email (whose calendar holds the event)"),
        "date": string("YYYY-MM-DD"),
        "start": string("start time, HH:MM (24-hour)"),
        "end": string("end time, HH:MM (24-hour)"),
        "title": string("the event's title"),
        "attendees": strings("the attendees' email addresses"),
    }
    return [
        search_tool(
            "find_person",
            "Find people whose name or email contains the query (person_id, name, email).",
            "directory",
            "people",
            ["name", "email"],
        ),
        list_tool(
            "list_events",
            "List the events of one calendar on one date as summaries (event_id, title, start, end).",
            "calendar",
            "events",
            {"calendar": "the calendar owner's email", "date": "YYYY-MM-DD"},
            ["calendar", "date"],
            fields=["event_id", "calendar", "date", "title", "start", "end"],
        ),
        get_tool(
            "get_event",
            "Get one event in full, including its status (confirmed or cancelled) and location.",
            "calendar",
            "events",
            "event_id",
        ),
        ToolDef(
            name="create_event",
            description="Create an event in a calendar and invite its attendees.",
            input_schema=schema(create_properties, list(create_properties)),
            service="calendar",
            operation="create",
            collection="events",
            id_field="event_id",
        ),
    ]


def _prompt(people: list[dict], day: str, duration: int, title: str) -> str:
    organizer, first, second = (p["name"] for p in people[:3])
    return (
        f"{organizer} needs a {duration}-minute meeting titled '{title}' with {first} and {second} on {day}. "
        "Find the earliest start time, on the hour or half hour, from 09:00 such that the meeting ends by "
        "17:00 and none of the three has a confirmed event overlapping it (cancelled events do not "
        f"block). Create the event in {organizer}'s calendar with both colleagues as attendees. Also "
        f"find {organizer}'s double-bookings that day: confirmed events in their calendar that overlap "
        "another confirmed event of theirs.\n\n"
        + answer_format(
            "SLOT: <HH:MM-HH:MM, 24-hour start and end of the meeting you booked>",
            "DOUBLE_BOOKED: <comma-separated event ids of the organizer's overlapping events>",
        )
    )


def generate(rng: random.Random, index: int) -> ToolTaskDraft:
    """One scheduling task with its own people, day, duration and calendars."""
    day = date(2024, rng.randint(1, 12), rng.randint(2, 27))
    duration = rng.choice([30, 60, 90])
    title = rng.choice(MEETINGS)
    people = _people(rng)
    events = _events(rng, people, day, duration)
    fixtures = {"directory": {"people": people}, "calendar": {"events": events}}
    target = {
        "organizer": people[0]["name"],
        "attendees": [people[1]["name"], people[2]["name"]],
        "date": iso(day),
        "duration": duration,
        "title": title,
    }
    expected = {
        **_truth(events, people, iso(day), duration),
        "date": iso(day),
        "organizer": people[0]["email"],
        "attendees": [people[1]["email"], people[2]["email"]],
        "title": title,
        "existing": [e["event_id"] for e in events],
    }
    prompt = _prompt(people, iso(day), duration, title)
    return draft(FAMILY, index, prompt, _tools(), fixtures, target, expected)
