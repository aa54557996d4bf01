#!/bin/bash
set -euo pipefail
cd /app
mkdir -p out
python3 - <<'PY'
import csv, json
from datetime import date
from decimal import Decimal

def read(path):
    return list(csv.DictReader(open(path, newline="")))

shipments = {s["order_id"]: s for s in read("orders/shipments.csv")}
grades = {i["rma_id"]: i["grade"] for i in read("inspection/inspection_log.csv")}
grades.update({"R-0112": "A", "R-0111": "B"})       # notes/2024-11-25_qa.md
cost = {p["sku"]: Decimal(p["unit_cost"]) for p in read("catalog/products.csv")}
stock = {(s["warehouse"], s["sku"]): int(s["qty"]) for s in read("stock/stock.csv")}

report, units, value = [], 0, Decimal(0)
for r in read("returns/returns_2024-11.csv"):
    ship = shipments[r["order_id"]]
    qty, sku = int(r["qty"]), r["sku"]
    late = (date.fromisoformat(r["received_date"]) - date.fromisoformat(ship["delivered_date"])).days > 30
    grade = grades.get(r["rma_id"])
    warehouse = ""
    if late:
        outcome = "refused"
    elif grade is None:
        outcome = "pending"
    elif grade == "A":
        outcome, warehouse = "restocked", ship["warehouse"]
    elif grade == "B":
        outcome, warehouse = "outlet", "WH-OUTLET"
    else:
        outcome = "written_off"
        units += qty
        value += qty * cost[sku]
    if warehouse:
        stock[(warehouse, sku)] = stock.get((warehouse, sku), 0) + qty
    report.append([r["rma_id"], sku, qty, outcome, warehouse])

with open("out/returns_report.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["rma_id", "sku", "qty", "outcome", "warehouse"])
    w.writerows(sorted(report))
with open("out/stock_after.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["warehouse", "sku", "qty"])
    w.writerows([w_, s, q] for (w_, s), q in sorted(stock.items()))
json.dump({"units": units, "value": float(value)}, open("out/writeoff.json", "w"))
PY
