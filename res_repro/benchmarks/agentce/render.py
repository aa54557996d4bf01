"""Turn an instance into what the agent meets: JSON fixtures behind six read-only tools, and a prompt."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from res_repro.benchmarks.agentce.instance import DAYS, PEOPLE, PERIODS, ROOM_IDS, TIMES, Cell, Instance
from res_repro.env.formats.tool_api import ToolDef

Record = dict[str, Any]
Fixtures = dict[str, dict[str, list[Record]]]

SERVICES = ["calendar", "directory", "facilities"]


def _id_tool(name: str, description: str, service: str, collection: str, id_field: str) -> ToolDef:
    schema = {
        "type": "object",
        "properties": {id_field: {"type": "string"}},
        "required": [id_field],
        "additionalProperties": False,
    }
    return ToolDef(
        name=name,
        description=description,
        input_schema=schema,
        service=service,
        operation="get",
        collection=collection,
        id_field=id_field,
    )


TOOLS = [
    ToolDef(
        name="get_schedule",
        description=(
            "The week's grid, one item per (day, period, room) cell in time order. status is 'booked' "
            "(with meeting_id and attendees), 'free', or 'hidden' (with the slot_id to fill). "
            "Optional filters: day, status."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "day": {"type": "string", "enum": list(DAYS)},
                "status": {"type": "string", "enum": ["booked", "free", "hidden"]},
            },
            "additionalProperties": False,
        },
        service="calendar",
        operation="list",
        collection="cells",
        filters=["day", "status"],
    ),
    ToolDef(
        name="get_rules",
        description="Every scheduling rule: the week's layout, the local (per-slot) and the global rules.",
        input_schema={"type": "object", "properties": {}, "additionalProperties": False},
        service="calendar",
        operation="list",
        collection="rules",
    ),
    _id_tool(
        "get_slot_candidates",
        "A hidden slot: its day, period, room, length in minutes, and the candidate meeting ids.",
        "calendar",
        "hidden_slots",
        "slot_id",
    ),
    _id_tool(
        "get_meeting",
        "A meeting: title, attendees (person ids), duration_min, and the equipment it needs.",
        "calendar",
        "meetings",
        "meeting_id",
    ),
    _id_tool(
        "get_person",
        "A person: name and the (day, period) times they are unavailable.",
        "directory",
        "people",
        "person_id",
    ),
    _id_tool("get_room", "A room: capacity (seats) and equipment.", "facilities", "rooms", "room_id"),
]


@dataclass(frozen=True)
class Rendered:
    """An instance as fixtures, with its answer key and each candidate's role by slot id."""

    fixtures: Fixtures
    expected: dict[str, str]
    roles: dict[str, dict[str, str]]


def _rules(week: Instance, ids: dict[int, str], rng: random.Random) -> list[Record]:
    cap = week.cap
    precedence = rng.sample(week.precedence, len(week.precedence))
    return [
        {
            "rule_id": "W",
            "type": "week",
            "days": list(DAYS),
            "periods": list(PERIODS),
            "text": f"The week runs {', '.join(DAYS)} in that order, periods {PERIODS[0]}-{PERIODS[-1]} "
            "each day; one time is earlier than another if its day is earlier, or its day is the same "
            "and its period lower.",
        },
        {
            "rule_id": "L1",
            "type": "room_capacity",
            "text": "A meeting's attendees fit in the room's capacity.",
        },
        {"rule_id": "L2", "type": "room_equipment", "text": "The room has every item the meeting needs."},
        {
            "rule_id": "L3",
            "type": "attendee_availability",
            "text": "No attendee is unavailable at the slot's day and period.",
        },
        {
            "rule_id": "L4",
            "type": "duration",
            "text": "The meeting's duration_min is at most the slot's minutes.",
        },
        {
            "rule_id": "G1",
            "type": "unique_meeting",
            "text": "A meeting appears at most once in the schedule.",
        },
        {
            "rule_id": "G2",
            "type": "no_double_booking",
            "text": "Nobody attends two meetings at the same day and period.",
        },
        {
            "rule_id": "G3",
            "type": "daily_cap",
            "max_meetings_per_day": cap,
            "text": f"Nobody attends more than {cap} meetings on one day.",
        },
        *(
            {
                "rule_id": f"P{number}",
                "type": "precedence",
                "before": ids[before],
                "after": ids[after],
                "text": f"If both are scheduled, {ids[before]} takes place strictly before {ids[after]}.",
            }
            for number, (before, after) in enumerate(precedence, 1)
        ),
    ]


def _cells(week: Instance, ids: dict[int, str], slot_ids: dict[Cell, str]) -> list[Record]:
    records = []
    for time in TIMES:
        for room_id in ROOM_IDS:
            cell = Cell(time, room_id)
            record: Record = {"day": DAYS[time[0]], "period": time[1], "room_id": room_id}
            if cell in slot_ids:
                record.update(status="hidden", slot_id=slot_ids[cell])
            elif cell in week.placed:
                meeting = week.meetings[week.placed[cell]]
                record.update(
                    status="booked", meeting_id=ids[week.placed[cell]], attendees=list(meeting.attendees)
                )
            else:
                record.update(status="free")
            records.append(record)
    return records


def _slots(week: Instance, ids: dict[int, str], slot_ids: dict[Cell, str]) -> list[Record]:
    return [
        {
            "slot_id": slot_ids[cell],
            "day": DAYS[cell.time[0]],
            "period": cell.time[1],
            "room_id": cell.room_id,
            "minutes": week.minutes[cell.time],
            "candidates": sorted(ids[key] for key in week.candidates[cell]),
        }
        for cell in week.hidden
    ]


def _meetings(week: Instance, ids: dict[int, str]) -> list[Record]:
    records = [
        {
            "meeting_id": ids[key],
            "title": meeting.title,
            "attendees": list(meeting.attendees),
            "duration_min": meeting.duration,
            "needs": list(meeting.needs),
        }
        for key, meeting in enumerate(week.meetings)
    ]
    return sorted(records, key=lambda record: record["meeting_id"])


def _people(week: Instance) -> list[Record]:
    return [
        {
            "person_id": person,
            "name": name,
            "unavailable": [
                {"day": DAYS[day], "period": period} for day, period in sorted(week.unavailable[person])
            ],
        }
        for person, name in PEOPLE.items()
    ]


def render(week: Instance, rng: random.Random) -> Rendered:
    """Fixtures for the three services; meeting ids are drawn at random so they reveal no role."""
    numbers = rng.sample(range(100, 1000), len(week.meetings))
    ids = {key: f"M-{number}" for key, number in enumerate(numbers)}
    slot_ids = {cell: f"S{number}" for number, cell in enumerate(week.hidden, 1)}
    rooms = [
        {"room_id": room.room_id, "capacity": room.capacity, "equipment": list(room.equipment)}
        for room in week.rooms.values()
    ]
    fixtures = {
        "calendar": {
            "cells": _cells(week, ids, slot_ids),
            "hidden_slots": _slots(week, ids, slot_ids),
            "meetings": _meetings(week, ids),
            "rules": _rules(week, ids, rng),
        },
        "directory": {"people": _people(week)},
        "facilities": {"rooms": rooms},
    }
    expected = {slot_ids[cell]: ids[week.placed[cell]] for cell in week.hidden}
    roles = {
        slot_ids[cell]: {ids[key]: week.roles[cell, key] for key in week.candidates[cell]}
        for cell in week.hidden
    }
    return Rendered(fixtures, expected, roles)


def prompt(slot_ids: list[str]) -> str:
    """The task statement: what to fill, where the rules are, and the exact answer format."""
    example = ", ".join(f'"{slot_id}": "<meeting_id>"' for slot_id in slot_ids)
    return (
        "You are completing a partly filled meeting schedule for one week. The schedule is a grid of "
        "days and periods by rooms; most cells are booked or free, but "
        f"{len(slot_ids)} cells are hidden, with slot ids {', '.join(slot_ids)}.\n\n"
        "Fill every hidden slot with one of its candidate meetings. A candidate must fit its slot "
        "(room capacity and equipment, attendee availability, meeting length), and the completed "
        "schedule must keep every global rule (among them: no meeting twice, nobody in two meetings "
        "at once, a daily meeting cap per person, precedence between meetings). get_rules lists every "
        "rule; the other tools give the schedule, each slot's candidates, and the meeting, person and "
        "room records. Exactly one assignment keeps all the rules.\n\n"
        "Answer with only a JSON object mapping each hidden slot id to the chosen meeting id, "
        f"nothing else: {{{example}}}"
    )
