#!/bin/bash
set -euo pipefail
cd /app
mkdir -p out
python3 - <<'PY'
import csv, json, math, tomllib
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

def read(path):
    return list(csv.DictReader(open(path, newline="")))

sprint = tomllib.load(open("sprint/sprint.toml", "rb"))
start, end = date.fromisoformat(sprint["start"]), date.fromisoformat(sprint["end"])
holidays = {date.fromisoformat(h["date"]) for h in read("calendar/holidays.csv")}
leave = {}
for l in read("calendar/leave.csv"):
    d = date.fromisoformat(l["from"])
    while d <= date.fromisoformat(l["to"]):
        leave.setdefault(l["person"], set()).add(d)
        d += timedelta(days=1)
oncall = {date.fromisoformat(o["week_starting"]): o["person"] for o in read("team/oncall.csv")}
FOCUS, HOURS_PER_POINT = Decimal("0.7"), 6

members, total = [], Decimal(0)
for m in read("team/members.csv"):
    days, units = 0, Decimal(0)
    d = start
    while d <= end:
        if d.weekday() < 5 and d not in holidays and d not in leave.get(m["name"], set()):
            days += 1
            monday = d - timedelta(days=d.weekday())
            units += Decimal("0.5") if oncall.get(monday) == m["name"] else Decimal(1)
        d += timedelta(days=1)
    hours = (units * int(m["hours_per_day"]) * FOCUS).quantize(Decimal("0.1"), ROUND_HALF_UP)
    members.append({"name": m["name"], "available_days": days, "capacity_hours": float(hours)})
    total += hours
points = math.floor(total / HOURS_PER_POINT)

backlog = {s["id"]: s for s in read("backlog/backlog.csv")}
# notes/2024-11-01_po-decisions.md
backlog["STORY-118"]["points"] = "8"
backlog["STORY-131"]["priority"], backlog["STORY-131"]["rank"] = "P1", "4"
backlog["STORY-112"]["status"] = "ready"

free, selected = points, []
for s in sorted(backlog.values(), key=lambda s: (s["priority"], int(s["rank"]))):
    if s["status"] in ("done", "blocked"):
        continue
    deps = [x for x in s["depends_on"].split(";") if x]
    if all(backlog[x]["status"] == "done" or x in selected for x in deps) and int(s["points"]) <= free:
        selected.append(s["id"])
        free -= int(s["points"])

plan = {"sprint": sprint["sprint"], "members": members, "capacity_hours": float(total), "capacity_points": points,
        "selected": selected, "committed_points": points - free}
json.dump(plan, open("out/sprint_plan.json", "w"), indent=2)
PY
