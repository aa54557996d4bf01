"""Grader: the booked slot and the double-bookings in the answer, and the event created for them."""

# EXPECTED is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821

import re

ID_PATTERN = r"\bEV-\d+\b"
TIME = re.compile(r"(\d{1,2})[:.h](\d{2})")


def minutes_in(text):
    """Every HH:MM time in ``text`` as minutes after midnight."""
    return [int(hours) * 60 + int(mins) for hours, mins in TIME.findall(text or "")]


def expected_span():
    """The expected (start, end) in minutes."""
    return tuple(minutes_in(f"{EXPECTED['start']} {EXPECTED['end']}"))


def slot_check(answer):
    """The SLOT line states the expected start and end."""
    times = minutes_in(answer_field(answer, "SLOT"))
    passed = tuple(times[:2]) == expected_span()
    return check(f"answer: SLOT is {EXPECTED['start']}-{EXPECTED['end']}", 3.0, passed)


def booked(event):
    """True when ``event`` is in the organizer's calendar on the day at the expected times."""
    return (
        str(event.get("calendar", "")).lower() == EXPECTED["organizer"].lower()
        and event.get("date") == EXPECTED["date"]
        and tuple(minutes_in(f"{event.get('start')} {event.get('end')}")) == expected_span()
    )


def invites(event):
    """True when ``event`` carries the title and invites both attendees."""
    attendees = " ".join(str(a) for a in event.get("attendees") or []).lower()
    titled = EXPECTED["title"].lower() in str(event.get("title", "")).lower()
    return titled and all(email.lower() in attendees for email in EXPECTED["attendees"])


def grade(answer, audit, state):
    """Weighted checks for one scheduling task."""
    existing = set(EXPECTED["existing"])
    created = [e for e in records(state, "calendar", "events") if e.get("event_id") not in existing]
    slot_events = [e for e in created if booked(e)]
    return [
        slot_check(answer),
        *id_list_checks(answer, "DOUBLE_BOOKED", ID_PATTERN, EXPECTED["double_booked"], 2.0),
        check("state: meeting booked at the slot in the organizer's calendar", 2.0, slot_events),
        check("state: meeting has the title and both attendees", 1.0, any(invites(e) for e in slot_events)),
        check("no side effects", 1.0, len(created) <= 1),
    ]
