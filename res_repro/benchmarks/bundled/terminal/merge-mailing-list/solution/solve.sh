#!/bin/bash
set -euo pipefail
cd /app
python3 - <<'PY'
import csv

def norm(s):
    return s.strip().lower()

names = {}
with open("crm_export.csv", newline="", encoding="utf-8") as f:
    for row in sorted(csv.DictReader(f), key=lambda r: int(r["id"])):
        names.setdefault(norm(row["email"]), row["name"])
with open("unsubscribed.txt", encoding="utf-8") as f:
    gone = {norm(l) for l in f if l.strip()}
with open("newsletter.txt", encoding="utf-8") as f:
    wanted = {norm(l) for l in f if l.strip()} - gone
with open("mailing_list.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["email", "name"])
    for email in sorted(wanted, key=lambda s: s.encode()):
        w.writerow([email, names.get(email, "")])
PY
