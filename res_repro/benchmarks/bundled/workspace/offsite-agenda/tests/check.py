"""Rubric for the offsite agenda: any agenda that satisfies the recorded rules passes; each rule is one item."""
import csv
import os
import re
import sys
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_csv_rows, unchanged  # noqa: E402


def mins(t):
    assert re.fullmatch(r"\d\d:\d\d", t), t
    return 60 * int(t[:2]) + int(t[3:])


EVENT = tomllib.load(open(fixture("event/offsite.toml"), "rb"))
DAY_START, DAY_END = mins(EVENT["day"]["start"]), mins(EVENT["day"]["end"])
LUNCH = (mins(EVENT["lunch"]["start"]), mins(EVENT["lunch"]["end"]))
SESSIONS = {r["id"]: dict(r, minutes=int(r["minutes"])) for r in csv.DictReader(open(fixture("event/sessions.csv")))}
SESSIONS["S2"]["minutes"] = 45
del SESSIONS["S10"]
SESSIONS["S9"] = {"id": "S9", "title": "Security briefing", "presenter": "Tom", "minutes": 15}
WINDOW = {r["presenter"]: (mins(r["on_site_from"]), mins(r["on_site_until"]))
          for r in csv.DictReader(open(fixture("event/presenters.csv")))}
rubric = Rubric()


def agenda():
    rows = read_csv_rows(app("out/agenda.csv"))
    assert rows[0] == ["start", "end", "item", "title"]
    return [(mins(r[0]), mins(r[1]), r[2], r[3]) for r in rows[1:]]


def sessions_in(rows):
    return [r for r in rows if r[2] not in ("BREAK", "LUNCH")]


@rubric.item("continuous_from_day_start")
def _():
    rows = agenda()
    return rows[0][0] == DAY_START and all(a[1] == b[0] for a, b in zip(rows, rows[1:])) and all(r[0] < r[1] for r in rows)


@rubric.item("sessions_complete")
def _():
    ids = [r[2] for r in sessions_in(agenda())]
    return sorted(ids) == sorted(SESSIONS)


@rubric.item("session_lengths")
def _():
    rows = sessions_in(agenda())
    return bool(rows) and all(r[2] in SESSIONS and r[1] - r[0] == SESSIONS[r[2]]["minutes"] for r in rows)


@rubric.item("lunch_fixed")
def _():
    rows = agenda()
    return [(r[0], r[1]) for r in rows if r[2] == "LUNCH"] == [LUNCH]


@rubric.item("keynote_first_retro_last")
def _():
    rows = agenda()
    return rows[0][2] == "S1" and rows[-1][2] == "S7"


@rubric.item("presenters_on_site")
def _():
    rows = sessions_in(agenda())
    return bool(rows) and all(WINDOW[SESSIONS[r[2]]["presenter"]][0] <= r[0] and r[1] <= WINDOW[SESSIONS[r[2]]["presenter"]][1]
                              for r in rows)


@rubric.item("breaks_rule")
def _():
    rows = agenda()
    consec = 0
    for start, end, item, _ in rows:
        if item in ("BREAK", "LUNCH"):
            if item == "BREAK" and end - start < 15:
                return False
            consec = 0
        else:
            consec += end - start
            if consec > 120:
                return False
    return any(r[2] == "BREAK" for r in rows)


@rubric.item("workshop_after_lunch_and_lena_separated")
def _():
    rows = agenda()
    ids = [r[2] for r in rows]
    workshop = [r for r in rows if r[2] == "S8"]
    lena = [i for i, r in enumerate(rows) if r[2] in SESSIONS and SESSIONS[r[2]]["presenter"] == "Lena"]
    return len(workshop) == 1 and workshop[0][0] >= LUNCH[1] and len(lena) == 2 and lena[1] - lena[0] > 1 and "S8" in ids


@rubric.item("day_ends_on_time")
def _():
    rows = agenda()
    return rows[-1][1] <= DAY_END and all(not (r[0] < LUNCH[1] and LUNCH[0] < r[1]) for r in rows if r[2] != "LUNCH")


@rubric.item("titles")
def _():
    rows = agenda()
    names = {"BREAK": "Break", "LUNCH": "Lunch"}
    return all(r[3] == (names.get(r[2]) or SESSIONS[r[2]]["title"]) for r in rows)


@rubric.item("inputs_unchanged")
def _():
    return unchanged("README.md", "event/offsite.toml", "event/sessions.csv", "event/presenters.csv",
                     "notes/2024-09-26_planning.md", "notes/2024-10-02_planning.md", "policy/agenda_rules.md")


rubric.run()
