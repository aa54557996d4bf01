#!/bin/bash
set -euo pipefail
cd /app
mkdir -p out
python3 - <<'PY'
import csv

def read(path):
    return list(csv.DictReader(open(path, newline="")))

customers = {c["customer_id"]: c for c in read("customers/customers.csv")}
warehouses = {w["warehouse"]: w for w in read("stock/warehouses.csv")}
warehouses["WH-EAST"]["status"] = "closed"            # notes/2024-11-05_ops.md
available = {}
for l in read("stock/levels.csv"):
    on_hand = int(l["on_hand"])
    if (l["warehouse"], l["sku"]) == ("WH-SOUTH", "SKU-300"):
        on_hand = 40                                    # notes/2024-11-05_ops.md
    available[(l["warehouse"], l["sku"])] = on_hand - int(l["reserved"])
prefs = {}
for p in read("config/shipping_preferences.csv"):
    prefs.setdefault(p["customer_region"], []).append((int(p["rank"]), p["warehouse_region"]))

lines = read("orders/open_orders.csv")
orders = []
for i, l in enumerate(lines):
    if l["order_id"] not in [o[3] for o in orders]:
        c = customers[l["customer_id"]]
        orders.append((["platinum", "gold", "standard"].index(c["tier"]), l["order_date"], i, l["order_id"], c))
allocations, backorders = [], []
for _, _, _, order_id, c in sorted(orders):
    ranked = [r for _, r in sorted(prefs[c["region"]])]
    candidates = [w for r in ranked for w, info in sorted(warehouses.items())
                  if info["region"] == r and info["status"] == "active"]
    for l in (l for l in lines if l["order_id"] == order_id):
        sku, need = l["sku"], int(l["qty"])
        if c["tier"] in ("platinum", "gold"):
            for w in candidates:
                take = min(need, available.get((w, sku), 0))
                if take > 0:
                    allocations.append((order_id, sku, w, take))
                    available[(w, sku)] -= take
                    need -= take
        else:
            for w in candidates:
                if available.get((w, sku), 0) >= need:
                    allocations.append((order_id, sku, w, need))
                    available[(w, sku)] -= need
                    need = 0
                    break
        if need > 0:
            backorders.append((order_id, sku, need))

def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)

write("out/allocations.csv", ["order_id", "sku", "warehouse", "qty"], sorted(allocations))
write("out/backorders.csv", ["order_id", "sku", "qty"], sorted(backorders))
write("out/stock_after.csv", ["warehouse", "sku", "available"], sorted((w, s, q) for (w, s), q in available.items()))
PY
