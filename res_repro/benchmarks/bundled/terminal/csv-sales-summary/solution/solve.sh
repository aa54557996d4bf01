#!/bin/bash
set -euo pipefail
cd /app
python3 - <<'PY'
import csv
from decimal import Decimal

totals = {}
with open("sales.csv", newline="") as f:
    for row in csv.DictReader(f):
        if row["status"] != "completed":
            continue
        region = row["region"].strip().lower()
        t = totals.setdefault(region, [0, 0, Decimal("0")])
        qty = int(row["quantity"])
        t[0] += 1
        t[1] += qty
        t[2] += qty * Decimal(row["unit_price"])

with open("region_summary.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["region", "orders", "units", "revenue"])
    for region, (orders, units, revenue) in sorted(totals.items(), key=lambda kv: (-kv[1][2], kv[0])):
        w.writerow([region, orders, units, f"{revenue:.2f}"])
PY
