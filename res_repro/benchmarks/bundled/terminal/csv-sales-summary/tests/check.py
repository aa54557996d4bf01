"""Recompute the region summary from the (unmodified) sales.csv and compare."""
import csv
import hashlib
import os
import sys
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


with open("/app/sales.csv", "rb") as f:
    if hashlib.sha256(f.read()).hexdigest() != open(os.path.join(HERE, "sales.sha256")).read().strip():
        fail("/app/sales.csv was modified")

totals = {}
with open("/app/sales.csv", newline="") as f:
    for row in csv.DictReader(f):
        if row["status"] != "completed":
            continue
        t = totals.setdefault(row["region"].strip().lower(), [0, 0, Decimal("0")])
        t[0] += 1
        t[1] += int(row["quantity"])
        t[2] += int(row["quantity"]) * Decimal(row["unit_price"])
want = [["region", "orders", "units", "revenue"]] + [
    [r, str(o), str(u), f"{v:.2f}"] for r, (o, u, v) in sorted(totals.items(), key=lambda kv: (-kv[1][2], kv[0]))
]

path = "/app/region_summary.csv"
if not os.path.isfile(path):
    fail(f"{path} is missing")
with open(path, newline="", encoding="utf-8") as f:
    got = [row for row in csv.reader(f) if row]
if got != want:
    print("want:", want)
    print("got: ", got)
    fail("summary differs")
print("OK")
