#!/bin/bash
set -euo pipefail
cd /app
mkdir -p report
python3 - <<'PY'
import csv, json, tomllib
from decimal import Decimal, ROUND_HALF_UP

CENT = Decimal("0.01")
cfg = tomllib.load(open("config/report.toml", "rb"))
dept_of = {}
for row in csv.DictReader(open(cfg["cost_centre_map"], newline="")):
    dept_of[row["cost_centre"]] = row["department"]
# docs/memos/2024-10-11: CC-120 retired, reported under CC-110
dept_of["CC-120"] = dept_of["CC-110"]
rates = {(r["month"], r["currency"]): Decimal(r["eur_per_unit"]) for r in csv.DictReader(open(cfg["fx_file"], newline=""))}

budget, actual = {}, {}
for row in csv.DictReader(open(cfg["budget_file"], newline="")):
    amount = Decimal(row["budget_eur"])
    if row["cost_centre"] == "CC-210":  # docs/memos/2024-10-09 (approved)
        amount = Decimal("55000.00")
    d = dept_of[row["cost_centre"]]
    budget[d] = budget.get(d, Decimal(0)) + amount
for row in csv.DictReader(open(cfg["actuals_file"], newline="")):
    amount = Decimal(row["amount"])
    if row["line_id"] == "ACT-0331":  # docs/memos/2024-10-02 (approved)
        amount = Decimal("1240.00")
    cur = row["currency"]
    rate = Decimal(1) if cur == cfg["reporting_currency"] else rates[(row["booking_date"][:7], cur)]
    d = dept_of[row["cost_centre"]]
    actual[d] = actual.get(d, Decimal(0)) + (amount * rate).quantize(CENT, ROUND_HALF_UP)

tol = Decimal(str(cfg["over_budget_tolerance"]))
rows = []
for d in sorted(set(budget) | set(actual)):
    b, a = budget.get(d, Decimal(0)), actual.get(d, Decimal(0))
    rows.append({"department": d, "budget": float(b), "actual": float(a), "variance": float(b - a),
                 "status": "over" if a > b * (1 + tol) else "within"})
tb, ta = sum(budget.values()), sum(actual.values())
out = {"quarter": cfg["quarter"], "currency": cfg["reporting_currency"], "departments": rows,
       "total_budget": float(tb), "total_actual": float(ta), "total_variance": float(tb - ta)}
json.dump(out, open("report/q3_summary.json", "w"), indent=2)
PY
