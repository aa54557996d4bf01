#!/bin/bash
set -euo pipefail
cd /app
mkdir -p out
python3 - <<'PY'
import csv, json
from datetime import date, datetime, time, timedelta

def read(path):
    return list(csv.DictReader(open(path, newline="")))

def hm(text):
    return time.fromisoformat(text)

people = {}
for p in read("directory/people.csv"):
    sign = 1 if p["utc_offset"][0] == "+" else -1
    h, m = map(int, p["utc_offset"][1:].split(":"))
    p["offset"] = sign * timedelta(hours=h, minutes=m)
    people[p["name"]] = p
holidays = {(h["date"], h["office"]) for h in read("directory/holidays.csv")}
rooms = read("directory/rooms.csv")
bookings = read("calendars/rooms.csv")

def calendar(name):
    return read(f"calendars/{name.lower()}.csv")

def person_ok(name, start, end):
    p = people[name]
    ls, le = start + p["offset"], end + p["offset"]
    day = ls.date()
    if le.date() != day or (day.isoformat(), p["office"]) in holidays:
        return False
    at = lambda t: datetime.combine(day, hm(t))
    if ls < at(p["work_start"]) or le > at(p["work_end"]):
        return False
    if ls < at(p["lunch_end"]) and at(p["lunch_start"]) < le:
        return False
    if day.weekday() == 4 and le > datetime.combine(day, time(13, 0)):
        return False
    for e in calendar(name):
        if e["status"] in ("busy", "tentative") and e["date"] == day.isoformat():
            if ls < at(e["end"]) and at(e["start"]) < le:
                return False
    return True

def room_ok(r, start, end, n):
    if "projector" not in r["features"].split(";") or int(r["capacity"]) < n:
        return False
    for b in bookings:
        if b["room"] == r["room"]:
            bs = datetime.combine(date.fromisoformat(b["date"]), hm(b["start_utc"]))
            be = datetime.combine(date.fromisoformat(b["date"]), hm(b["end_utc"]))
            if start < be and bs < end:
                return False
    return True

required, optional = ["Alice", "Bikram", "Chen"], ["Dana"]   # requests/design-review.md
result = None
day = date(2024, 11, 18)
while result is None and day <= date(2024, 11, 22):
    for slot in range(48):
        start = datetime.combine(day, time()) + timedelta(minutes=30 * slot)
        end = start + timedelta(minutes=60)
        if not all(person_ok(n, start, end) for n in required):
            continue
        invitees = sorted(required + [n for n in optional if person_ok(n, start, end)])
        fitting = sorted((r for r in rooms if room_ok(r, start, end, len(invitees))), key=lambda r: (int(r["capacity"]), r["room"]))
        if fitting:
            result = {
                "start_utc": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "end_utc": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "room": fitting[0]["room"],
                "invitees": invitees,
                "local_start": {n: (start + people[n]["offset"]).strftime("%Y-%m-%dT%H:%M") for n in invitees},
            }
            break
    day += timedelta(days=1)
json.dump(result, open("out/design-review.json", "w"), indent=2)
PY
