#!/bin/bash
set -euo pipefail
cd /app
mkdir -p out
python3 - <<'PY'
import csv
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
tier = {r["city"]: int(r["tier"]) for r in csv.DictReader(open("config/city_tiers.csv", newline=""))}
approved_exceptions = {r["line_id"] for r in csv.DictReader(open("approvals/exceptions.csv", newline="")) if r["status"] == "approved"}
rates = {"hotel": {1: "220.00", 2: "160.00", 3: "120.00"}, "meals": {1: "75.00", 2: "60.00", 3: "45.00"},
         "taxi": {1: "80.00", 2: "80.00", 3: "80.00"}, "mileage": {1: "0.30", 2: "0.30", 3: "0.30"}}

def cap(row):
    t = tier[row["city"]]
    rate = Decimal(rates[row["category"]][t])
    if row["category"] == "hotel" and t == 1 and row["date"] >= "2024-10-15":  # policy/updates/2024-10-01
        rate = Decimal("250.00")
    if row["category"] == "taxi":
        return rate
    return (rate * int(row["quantity"])).quantize(CENT, ROUND_HALF_UP)

lines, totals = [], {}
for row in csv.DictReader(open("claims/claims_2024-10.csv", newline="")):
    claimed = Decimal(row["amount"])
    if row["category"] not in rates:
        paid, outcome = Decimal("0.00"), "rejected_category"
    elif claimed > Decimal("25.00") and row["receipt"] != "yes":
        paid, outcome = Decimal("0.00"), "rejected_receipt"
    elif claimed <= cap(row):
        paid, outcome = claimed, "paid"
    elif row["line_id"] in approved_exceptions:
        paid, outcome = claimed, "exception"
    else:
        paid, outcome = cap(row), "capped"
    lines.append((row["line_id"], row["employee_id"], claimed, paid, outcome))
    t = totals.setdefault(row["employee_id"], [0, Decimal(0), Decimal(0)])
    t[0] += 1; t[1] += claimed; t[2] += paid

with open("out/reimbursements.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["line_id", "employee_id", "claimed", "approved", "outcome"])
    for lid, emp, c, p, o in sorted(lines):
        w.writerow([lid, emp, f"{c:.2f}", f"{p:.2f}", o])
with open("out/employee_totals.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["employee_id", "lines", "claimed", "approved"])
    for emp in sorted(totals):
        n, c, p = totals[emp]
        w.writerow([emp, n, f"{c:.2f}", f"{p:.2f}"])
PY
