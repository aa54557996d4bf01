"""Rubric for the sprint 42 plan; capacity and selection are recomputed from the original planning folder."""
import csv
import math
import os
import sys
import tomllib
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_json, unchanged  # noqa: E402


def read(path):
    return list(csv.DictReader(open(fixture(path), newline="")))


SPRINT = tomllib.load(open(fixture("sprint/sprint.toml"), "rb"))
START, END = date.fromisoformat(SPRINT["start"]), date.fromisoformat(SPRINT["end"])
HOLIDAYS = {h["date"] for h in read("calendar/holidays.csv")}
LEAVE = set()
for l in read("calendar/leave.csv"):
    d = date.fromisoformat(l["from"])
    while d <= date.fromisoformat(l["to"]):
        LEAVE.add((l["person"], d.isoformat()))
        d += timedelta(days=1)
ONCALL = {o["week_starting"]: o["person"] for o in read("team/oncall.csv")}
MEMBERS = {}
for m in read("team/members.csv"):
    days, units, d = 0, Decimal(0), START
    while d <= END:
        if d.weekday() < 5 and d.isoformat() not in HOLIDAYS and (m["name"], d.isoformat()) not in LEAVE:
            days += 1
            units += Decimal("0.5") if ONCALL.get((d - timedelta(days=d.weekday())).isoformat()) == m["name"] else 1
        d += timedelta(days=1)
    MEMBERS[m["name"]] = (days, (units * int(m["hours_per_day"]) * Decimal("0.7")).quantize(Decimal("0.1"), ROUND_HALF_UP))
HOURS = sum(h for _, h in MEMBERS.values())
POINTS = math.floor(HOURS / 6)
BACKLOG = {s["id"]: s for s in read("backlog/backlog.csv")}
BACKLOG["STORY-118"]["points"] = "8"
BACKLOG["STORY-131"].update(priority="P1", rank="4")
BACKLOG["STORY-112"]["status"] = "ready"
SELECTED, FREE = [], POINTS
for s in sorted(BACKLOG.values(), key=lambda s: (s["priority"], int(s["rank"]))):
    deps = [x for x in s["depends_on"].split(";") if x]
    if s["status"] not in ("done", "blocked") and int(s["points"]) <= FREE and \
            all(BACKLOG[x]["status"] == "done" or x in SELECTED for x in deps):
        SELECTED.append(s["id"])
        FREE -= int(s["points"])
rubric = Rubric()


def plan():
    return read_json(app("out/sprint_plan.json"))


def num(value, want):
    return isinstance(value, int | float) and not isinstance(value, bool) and abs(Decimal(str(value)) - want) < Decimal("0.001")


@rubric.item("plan_structure")
def _():
    p = plan()
    return p["sprint"] == SPRINT["sprint"] and set(p) == {"sprint", "members", "capacity_hours", "capacity_points", "selected",
                                                          "committed_points"} \
        and [m["name"] for m in p["members"]] == list(MEMBERS)


@rubric.item("available_days")
def _():
    got = {m["name"]: m["available_days"] for m in plan()["members"]}
    return all(got[n] == d and type(got[n]) is int for n, (d, _) in MEMBERS.items())


@rubric.item("member_hours_with_on_call")
def _():
    got = {m["name"]: m["capacity_hours"] for m in plan()["members"]}
    return all(num(got[n], h) for n, (_, h) in MEMBERS.items())


@rubric.item("team_capacity_hours")
def _():
    return num(plan()["capacity_hours"], HOURS)


@rubric.item("team_capacity_points")
def _():
    p = plan()["capacity_points"]
    return type(p) is int and p == POINTS


@rubric.item("selected_stories")
def _():
    return plan()["selected"] == SELECTED


@rubric.item("dependencies_respected")
def _():
    sel = plan()["selected"]
    for i, sid in enumerate(sel):
        deps = [x for x in BACKLOG[sid]["depends_on"].split(";") if x]
        if not all(BACKLOG[x]["status"] == "done" or x in sel[:i] for x in deps):
            return False
    return bool(sel)


@rubric.item("no_done_stories_and_po_decisions")
def _():
    sel = plan()["selected"]
    return bool(sel) and not any(BACKLOG[s]["status"] == "done" for s in sel) and "STORY-131" in sel and "STORY-112" in sel


@rubric.item("committed_points")
def _():
    p = plan()
    total = sum(int(BACKLOG[s]["points"]) for s in p["selected"])
    return p["committed_points"] == total and total <= POINTS and bool(p["selected"])


@rubric.item("inputs_unchanged")
def _():
    return unchanged("README.md", "sprint/sprint.toml", "team/members.csv", "team/oncall.csv", "calendar/holidays.csv",
                     "calendar/leave.csv", "backlog/backlog.csv", "notes/2024-11-01_po-decisions.md", "policy/planning.md")


rubric.run()
