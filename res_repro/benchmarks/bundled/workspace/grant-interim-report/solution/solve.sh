#!/bin/bash
set -euo pipefail
cd /app
mkdir -p report
python3 - <<'PY'
import csv, tomllib
from decimal import ROUND_HALF_UP, Decimal

grant = tomllib.load(open("grant/grant.toml", "rb"))
period = grant["periods"]["1"]
budget = {k: Decimal(str(v)).quantize(Decimal("0.01")) for k, v in grant["budget"].items()}
budget["equipment"], budget["travel"] = Decimal("24000.00"), Decimal("14000.00")  # amendment 1
category = {r["account"]: r["grant_category"] for r in csv.DictReader(open("config/chart_of_accounts.csv", newline=""))}
adjust = {"T24357": "equipment", "T24392": "not_eligible"}  # docs/audit_adjustments.md

spent = {k: Decimal("0.00") for k in ("personnel", "equipment", "travel", "consumables", "subcontracting", "not_eligible")}
for r in csv.DictReader(open("ledger/transactions.csv", newline="")):
    if r["project"] != grant["grant_id"] or not period["start"] <= r["date"] <= period["end"]:
        continue
    spent[adjust.get(r["txn_id"], category[r["account"]])] += Decimal(r["amount"])
base = sum(v for k, v in spent.items() if k not in grant["indirect"]["base_excludes"] + ["not_eligible"])
spent["indirect"] = (base * Decimal(str(grant["indirect"]["rate"]))).quantize(Decimal("0.01"), ROUND_HALF_UP)

order = ["personnel", "equipment", "travel", "consumables", "subcontracting", "indirect"]
lines = [f"# Financial report {grant['grant_id']} - period 1", "", f"Period: {period['start']} to {period['end']}", "",
         "| Category | Budget | Spent | Remaining |", "| --- | ---: | ---: | ---: |"]
for k in order:
    lines.append(f"| {k.capitalize()} | {budget[k]:.2f} | {spent[k]:.2f} | {budget[k] - spent[k]:.2f} |")
tb, ts = sum(budget[k] for k in order), sum(spent[k] for k in order)
lines += [f"| Total | {tb:.2f} | {ts:.2f} | {tb - ts:.2f} |", "", f"Non-eligible costs excluded: {spent['not_eligible']:.2f}"]
open("report/period1_financial_report.md", "w").write("\n".join(lines) + "\n")
PY
