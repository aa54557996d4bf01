#!/bin/bash
set -euo pipefail
cd /app
mkdir -p out
python3 - <<'PY'
import csv, math
from datetime import date, timedelta
from fractions import Fraction

def read(path):
    return list(csv.DictReader(open(path, newline="")))

run = date(2024, 10, 31)                       # README.md
window = (run - timedelta(days=28), run - timedelta(days=1))
lead = {s["supplier_id"]: int(s["lead_time_days"]) for s in read("suppliers/suppliers.csv")}
lead["S-02"] = 21                               # notes/2024-10-30_purchasing.md
sold = {}
for r in read("sales/daily_sales.csv"):
    if window[0] <= date.fromisoformat(r["date"]) <= window[1]:
        sold[r["sku"]] = sold.get(r["sku"], 0) + int(r["units"])
stock = {s["sku"]: s for s in read("inventory/stock_on_hand.csv")}

rows, pos = [], []
for p in sorted(read("catalog/products.csv"), key=lambda p: p["sku"]):
    if p["status"] == "discontinued":
        continue
    avg = Fraction(sold.get(p["sku"], 0), 28)
    days = lead[p["supplier_id"]] + (11 if p["abc_class"] == "A" else 8)
    rop = math.ceil(avg * days)
    position = int(stock[p["sku"]]["on_hand"]) + int(stock[p["sku"]]["on_order"])
    qty = 0
    if position <= rop:
        pack = int(p["case_pack"])
        qty = math.ceil((avg * (days + 14) - position) / pack) * pack
    shown = math.floor(avg * 100 + Fraction(1, 2)) / 100
    rows.append([p["sku"], p["supplier_id"], f"{shown:.2f}", rop, position, qty])
    if qty:
        pos.append([p["supplier_id"], p["sku"], qty // int(p["case_pack"]), qty])

with open("out/reorder.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["sku", "supplier_id", "avg_daily_demand", "reorder_point", "position", "order_qty"])
    w.writerows(rows)
with open("out/purchase_orders.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["supplier_id", "sku", "cases", "units"])
    w.writerows(sorted(pos))
PY
