"""Reference program of an AgentCE task, and the constraint search it shares with the generator.

The program reads everything it needs through the task's tools: the visible schedule, the rules, each
hidden slot's candidates, and the meeting, room and person records behind them. It then keeps each
slot's locally valid candidates and searches (backtracking) for an assignment of the hidden slots that
also satisfies every global rule. The file is copied verbatim into each task as solution/solve.py, so
it imports nothing outside the standard library.
"""

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Record = dict[str, Any]
Time = tuple[int, int]

KNOWN_RULES = frozenset(
    {
        "week",
        "room_capacity",
        "room_equipment",
        "attendee_availability",
        "duration",
        "unique_meeting",
        "no_double_booking",
        "daily_cap",
        "precedence",
    }
)


def _single_rule(rules: Sequence[Record], kind: str) -> Record:
    matches = [rule for rule in rules if rule["type"] == kind]
    if len(matches) != 1:
        raise ValueError(f"expected exactly one {kind!r} rule, found {len(matches)}")
    return matches[0]


class Puzzle:
    """A partly hidden week schedule: visible bookings, hidden slots, and the records both refer to."""

    def __init__(
        self,
        cells: Sequence[Record],
        rules: Sequence[Record],
        slots: Sequence[Record],
        meetings: Mapping[str, Record],
        rooms: Mapping[str, Record],
        people: Mapping[str, Record],
    ) -> None:
        unknown = sorted({rule["type"] for rule in rules} - KNOWN_RULES)
        if unknown:
            raise ValueError(f"unknown rule types {unknown}")
        self.day_index = {day: i for i, day in enumerate(_single_rule(rules, "week")["days"])}
        self.cap = int(_single_rule(rules, "daily_cap")["max_meetings_per_day"])
        self.precedence = [(rule["before"], rule["after"]) for rule in rules if rule["type"] == "precedence"]
        self.booked = [cell for cell in cells if cell["status"] == "booked"]
        self.slots = list(slots)
        self.meetings, self.rooms, self.people = meetings, rooms, people

    def time(self, record: Record) -> Time:
        """The (day index, period) of a cell or slot record; tuples order like the week."""
        return self.day_index[record["day"]], int(record["period"])

    def fits(self, slot: Record, meeting_id: str) -> bool:
        """Whether a meeting satisfies the slot's local rules: capacity, equipment, availability, length."""
        meeting, room = self.meetings[meeting_id], self.rooms[slot["room_id"]]
        when = {"day": slot["day"], "period": slot["period"]}
        return (
            len(meeting["attendees"]) <= room["capacity"]
            and set(meeting["needs"]) <= set(room["equipment"])
            and all(when not in self.people[person]["unavailable"] for person in meeting["attendees"])
            and meeting["duration_min"] <= slot["minutes"]
        )

    def options(self, slot: Record) -> list[str]:
        """The slot's locally valid candidates."""
        return [meeting_id for meeting_id in slot["candidates"] if self.fits(slot, meeting_id)]


class _Week:
    """The global state of a (partial) schedule, updated as meetings are placed and removed."""

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.when: dict[str, Time] = {}
        self.busy: dict[Time, set[str]] = {}
        self.load: Counter[tuple[str, int]] = Counter()
        for cell in puzzle.booked:
            self.place(cell["meeting_id"], cell["attendees"], puzzle.time(cell))

    def allows(self, meeting_id: str, attendees: Sequence[str], time: Time) -> bool:
        """Whether placing the meeting at ``time`` keeps every global rule."""
        busy = self.busy.get(time, set())
        return (
            meeting_id not in self.when
            and not busy.intersection(attendees)
            and all(self.load[person, time[0]] < self.puzzle.cap for person in attendees)
            and all(
                self._ordered(before, after, meeting_id, time) for before, after in self.puzzle.precedence
            )
        )

    def _ordered(self, before: str, after: str, meeting_id: str, time: Time) -> bool:
        if meeting_id == after and before in self.when:
            return self.when[before] < time
        if meeting_id == before and after in self.when:
            return time < self.when[after]
        return True

    def place(self, meeting_id: str, attendees: Sequence[str], time: Time) -> None:
        """Book the meeting at ``time``."""
        self.when[meeting_id] = time
        self.busy.setdefault(time, set()).update(attendees)
        for person in attendees:
            self.load[person, time[0]] += 1

    def remove(self, meeting_id: str, attendees: Sequence[str], time: Time) -> None:
        """Undo :meth:`place`."""
        del self.when[meeting_id]
        self.busy[time].difference_update(attendees)
        for person in attendees:
            self.load[person, time[0]] -= 1


def find_solutions(puzzle: Puzzle, limit: int | None = None) -> list[dict[str, str]]:
    """Every assignment {slot_id: meeting_id} satisfying all rules (at most ``limit`` of them)."""
    week = _Week(puzzle)
    order = sorted(puzzle.slots, key=lambda slot: len(puzzle.options(slot)))
    found: list[dict[str, str]] = []
    chosen: dict[str, str] = {}

    def extend(depth: int) -> None:
        if limit is not None and len(found) >= limit:
            return
        if depth == len(order):
            found.append({slot["slot_id"]: chosen[slot["slot_id"]] for slot in puzzle.slots})
            return
        slot = order[depth]
        time = puzzle.time(slot)
        for meeting_id in puzzle.options(slot):
            attendees = puzzle.meetings[meeting_id]["attendees"]
            if week.allows(meeting_id, attendees, time):
                week.place(meeting_id, attendees, time)
                chosen[slot["slot_id"]] = meeting_id
                extend(depth + 1)
                del chosen[slot["slot_id"]]
                week.remove(meeting_id, attendees, time)

    extend(0)
    return found


def solve(call: Callable[..., Any]) -> str:
    """Gather the puzzle through the tools, solve it, and answer with the JSON assignment."""
    cells = call("get_schedule")["items"]
    rules = call("get_rules")["items"]
    slots = [
        call("get_slot_candidates", slot_id=cell["slot_id"]) for cell in cells if cell["status"] == "hidden"
    ]
    meeting_ids = sorted({meeting_id for slot in slots for meeting_id in slot["candidates"]})
    meetings = {meeting_id: call("get_meeting", meeting_id=meeting_id) for meeting_id in meeting_ids}
    rooms = {room_id: call("get_room", room_id=room_id) for room_id in sorted({s["room_id"] for s in slots})}
    person_ids = sorted({person for meeting in meetings.values() for person in meeting["attendees"]})
    people = {person_id: call("get_person", person_id=person_id) for person_id in person_ids}
    solutions = find_solutions(Puzzle(cells, rules, slots, meetings, rooms, people), limit=1)
    if not solutions:
        raise RuntimeError("no assignment of the hidden slots satisfies every rule")
    return json.dumps(solutions[0])
