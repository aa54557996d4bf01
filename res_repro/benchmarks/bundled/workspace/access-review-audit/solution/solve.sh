#!/bin/bash
set -euo pipefail
cd /app
mkdir -p out
python3 - <<'PY'
import csv, json, tomllib
from datetime import date, timedelta

def read(path):
    return list(csv.DictReader(open(path, newline="")))

as_of = date.fromisoformat(tomllib.load(open("audit/audit.toml", "rb"))["as_of"])
status = {e["employee_id"]: e["status"] for e in read("hr/employees.csv")}
status["E-1042"] = "terminated"                 # notes/2024-11-28_hr.md
approvals = {(a["account_id"], a["role"]) for a in read("approvals/admin_approvals.csv")
             if date.fromisoformat(a["expires_on"]) >= as_of}

findings, reviewed = [], 0
for a in read("iam/accounts.csv"):
    if a["status"] != "active":
        continue
    reviewed += 1
    roles = a["roles"].split(";")
    owner = status.get(a["owner_employee_id"])
    human = a["type"] == "human"
    rules = []
    if owner == "terminated":
        rules.append("AC-1")
    if human and (not a["last_login"] or (as_of - date.fromisoformat(a["last_login"])).days > 90):
        rules.append("AC-2")
    if "admin" in roles and (a["account_id"], "admin") not in approvals:
        rules.append("AC-3")
    if human and "admin" in roles and a["mfa"] != "enabled":
        rules.append("AC-4")
    if a["type"] == "service" and owner not in ("active", "leave"):
        rules.append("AC-5")
    findings += [(a["account_id"], a["username"], r) for r in rules]

findings.sort()
with open("out/access_findings.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["account_id", "username", "rule"])
    w.writerows(findings)
by_rule = {f"AC-{i}": sum(r == f"AC-{i}" for _, _, r in findings) for i in range(1, 6)}
json.dump({"as_of": as_of.isoformat(), "accounts_reviewed": reviewed, "findings": len(findings), "by_rule": by_rule},
          open("out/summary.json", "w"), indent=2)
PY
