"""Rubric for the design review scheduling: the agent's slot is checked against each policy rule separately."""
import csv
import os
import re
import sys
from datetime import date, datetime, time, timedelta

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_json, unchanged  # noqa: E402


def read(path):
    return list(csv.DictReader(open(fixture(path), newline="")))


PEOPLE = {}
for p in read("directory/people.csv"):
    h, m = map(int, p["utc_offset"][1:].split(":"))
    p["offset"] = (1 if p["utc_offset"][0] == "+" else -1) * timedelta(hours=h, minutes=m)
    PEOPLE[p["name"]] = p
HOLIDAYS = {(h["date"], h["office"]) for h in read("directory/holidays.csv")}
ROOMS = {r["room"]: r for r in read("directory/rooms.csv")}
BOOKINGS = read("calendars/rooms.csv")
REQUIRED, OPTIONAL = ["Alice", "Bikram", "Chen"], ["Dana"]


def local(name, start, end):
    off = PEOPLE[name]["offset"]
    return start + off, end + off


def at(day, text):
    return datetime.combine(day, time.fromisoformat(text))


def hours_ok(name, start, end):
    p = PEOPLE[name]
    ls, le = local(name, start, end)
    d = ls.date()
    return le.date() == d and at(d, p["work_start"]) <= ls and le <= at(d, p["work_end"]) \
        and not (ls < at(d, p["lunch_end"]) and at(d, p["lunch_start"]) < le)


def calendar_ok(name, start, end):
    ls, le = local(name, start, end)
    for e in read(f"calendars/{name.lower()}.csv"):
        d = date.fromisoformat(e["date"])
        if e["status"] in ("busy", "tentative") and ls < at(d, e["end"]) and at(d, e["start"]) < le:
            return False
    return True


def days_ok(name, start, end):
    ls, le = local(name, start, end)
    d = ls.date()
    if (d.isoformat(), PEOPLE[name]["office"]) in HOLIDAYS:
        return False
    return not (d.weekday() == 4 and le > at(d, "13:00"))


def person_ok(name, start, end):
    return hours_ok(name, start, end) and calendar_ok(name, start, end) and days_ok(name, start, end)


def room_ok(room, start, end, n):
    r = ROOMS[room]
    if "projector" not in r["features"].split(";") or int(r["capacity"]) < n:
        return False
    for b in BOOKINGS:
        d = date.fromisoformat(b["date"])
        if b["room"] == room and start < at(d, b["end_utc"]) and at(d, b["start_utc"]) < end:
            return False
    return True


def solve():
    day = date(2024, 11, 18)
    while day <= date(2024, 11, 22):
        for slot in range(48):
            start = datetime.combine(day, time()) + timedelta(minutes=30 * slot)
            end = start + timedelta(hours=1)
            if all(person_ok(n, start, end) for n in REQUIRED):
                inv = sorted(REQUIRED + [n for n in OPTIONAL if person_ok(n, start, end)])
                fit = sorted((r for r in ROOMS if room_ok(r, start, end, len(inv))), key=lambda r: (int(ROOMS[r]["capacity"]), r))
                if fit:
                    return start, end, fit[0], inv
        day += timedelta(days=1)


WANT_START, WANT_END, WANT_ROOM, WANT_INVITEES = solve()
rubric = Rubric()


def out():
    return read_json(app("out/design-review.json"))


def slot():
    data = out()
    fmt = "%Y-%m-%dT%H:%M:%SZ"
    start, end = datetime.strptime(data["start_utc"], fmt), datetime.strptime(data["end_utc"], fmt)
    assert date(2024, 11, 18) <= start.date() <= date(2024, 11, 22) and start.minute in (0, 30) and start.second == 0
    return start, end


@rubric.item("output_structure")
def _():
    data = out()
    return set(data) == {"start_utc", "end_utc", "room", "invitees", "local_start"} and \
        all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:00Z", data[k]) for k in ("start_utc", "end_utc")) and \
        isinstance(data["invitees"], list) and isinstance(data["local_start"], dict)


@rubric.item("earliest_valid_slot")
def _():
    return slot() == (WANT_START, WANT_END)


@rubric.item("sixty_minutes")
def _():
    start, end = slot()
    return end - start == timedelta(hours=1)


@rubric.item("working_hours_and_lunch")
def _():
    start, end = slot()
    return all(hours_ok(n, start, end) for n in REQUIRED)


@rubric.item("calendars_respected")
def _():
    start, end = slot()
    return all(calendar_ok(n, start, end) for n in REQUIRED)


@rubric.item("holidays_and_fridays")
def _():
    start, end = slot()
    return all(days_ok(n, start, end) for n in REQUIRED)


@rubric.item("room_suitable_and_free")
def _():
    start, end = slot()
    data = out()
    return data["room"] in ROOMS and room_ok(data["room"], start, end, len(data["invitees"]))


@rubric.item("smallest_suitable_room")
def _():
    return out()["room"] == WANT_ROOM


@rubric.item("invitees")
def _():
    return out()["invitees"] == WANT_INVITEES


@rubric.item("local_start_times")
def _():
    data = out()
    start, _ = slot()
    return set(data["local_start"]) == set(data["invitees"]) and set(REQUIRED) <= set(data["invitees"]) and all(
        data["local_start"][n] == (start + PEOPLE[n]["offset"]).strftime("%Y-%m-%dT%H:%M") for n in data["invitees"])


@rubric.item("inputs_unchanged")
def _():
    return unchanged("requests/design-review.md", "policy/meeting_policy.md", "directory/people.csv",
                     "directory/holidays.csv", "directory/rooms.csv", "calendars/alice.csv", "calendars/bikram.csv",
                     "calendars/chen.csv", "calendars/dana.csv", "calendars/rooms.csv", "README.md")


rubric.run()
