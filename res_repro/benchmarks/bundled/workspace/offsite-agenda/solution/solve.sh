#!/bin/bash
set -euo pipefail
cd /app
mkdir -p out
python3 - <<'PY'
import csv, sys, tomllib

def mins(t):
    h, m = map(int, t.split(":"))
    return 60 * h + m

def hhmm(x):
    return f"{x // 60:02d}:{x % 60:02d}"

event = tomllib.load(open("event/offsite.toml", "rb"))
day_start, day_end = mins(event["day"]["start"]), mins(event["day"]["end"])
lunch_start, lunch_end = mins(event["lunch"]["start"]), mins(event["lunch"]["end"])
sessions = {r["id"]: {"title": r["title"], "presenter": r["presenter"], "minutes": int(r["minutes"])}
            for r in csv.DictReader(open("event/sessions.csv", newline=""))}
# notes/2024-10-02_planning.md
sessions["S2"]["minutes"] = 45
del sessions["S10"]
sessions["S9"] = {"title": "Security briefing", "presenter": "Tom", "minutes": 15}
window = {r["presenter"]: (mins(r["on_site_from"]), mins(r["on_site_until"]))
          for r in csv.DictReader(open("event/presenters.csv", newline=""))}
FIRST, LAST, AFTER_LUNCH, SEPARATE = "S1", "S7", "S8", "Lena"   # notes/2024-09-26 and 2024-10-02

def search(t, left, consec, items):
    if not left:
        return items if items[-1][2] == LAST and t <= day_end else None
    if t == lunch_start:
        return search(lunch_end, left, 0, items + [(t, lunch_end, "LUNCH", "Lunch")])
    limit = lunch_start if t < lunch_start else day_end
    prev = items[-1][2] if items else None
    for sid in sorted(left):
        s = sessions[sid]
        end = t + s["minutes"]
        if (sid == FIRST) != (not items) or (sid == LAST and len(left) > 1):
            continue
        if sid == AFTER_LUNCH and t < lunch_end:
            continue
        lo, hi = window[s["presenter"]]
        if end > limit or consec + s["minutes"] > 120 or not lo <= t or end > hi:
            continue
        if prev in sessions and sessions[prev]["presenter"] == SEPARATE == s["presenter"]:
            continue
        found = search(end, left - {sid}, consec + s["minutes"], items + [(t, end, sid, s["title"])])
        if found:
            return found
    if items and items[-1][2] != "BREAK":
        for length in (15, 30, 45, 60):
            if t + length <= limit:
                found = search(t + length, left, 0, items + [(t, t + length, "BREAK", "Break")])
                if found:
                    return found
    return None

agenda = search(day_start, frozenset(sessions), 0, [])
if agenda is None:
    sys.exit("no agenda satisfies the rules")
with open("out/agenda.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["start", "end", "item", "title"])
    for start, end, item, title in agenda:
        w.writerow([hhmm(start), hhmm(end), item, title])
PY
