"""Rubric for the allocation run; the expected allocation is recomputed from the original folder."""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_csv_rows, unchanged  # noqa: E402


def read(path):
    return list(csv.DictReader(open(fixture(path), newline="")))


CUSTOMERS = {c["customer_id"]: c for c in read("customers/customers.csv")}
WAREHOUSES = {w["warehouse"]: w["region"] for w in read("stock/warehouses.csv") if w["warehouse"] != "WH-EAST"}
AVAIL = {}
for l in read("stock/levels.csv"):
    on_hand = 40 if (l["warehouse"], l["sku"]) == ("WH-SOUTH", "SKU-300") else int(l["on_hand"])
    AVAIL[(l["warehouse"], l["sku"])] = on_hand - int(l["reserved"])
PREFS = {}
for p in sorted(read("config/shipping_preferences.csv"), key=lambda p: int(p["rank"])):
    PREFS.setdefault(p["customer_region"], []).append(p["warehouse_region"])
LINES = read("orders/open_orders.csv")
TIER = ["platinum", "gold", "standard"]
ORDER_IDS = []
for l in LINES:
    if l["order_id"] not in ORDER_IDS:
        ORDER_IDS.append(l["order_id"])
FIRST = {oid: next(l for l in LINES if l["order_id"] == oid) for oid in ORDER_IDS}
ALLOC, BACK = [], []
for oid in sorted(ORDER_IDS, key=lambda o: (TIER.index(CUSTOMERS[FIRST[o]["customer_id"]]["tier"]), FIRST[o]["order_date"], o)):
    c = CUSTOMERS[FIRST[oid]["customer_id"]]
    cands = [w for r in PREFS[c["region"]] for w in sorted(WAREHOUSES) if WAREHOUSES[w] == r]
    for l in (l for l in LINES if l["order_id"] == oid):
        need = int(l["qty"])
        for w in cands:
            have = AVAIL.get((w, l["sku"]), 0)
            take = min(need, have) if c["tier"] != "standard" else (need if have >= need else 0)
            if take:
                ALLOC.append((oid, l["sku"], w, take))
                AVAIL[(w, l["sku"])] -= take
                need -= take
            if not need:
                break
        if need:
            BACK.append((oid, l["sku"], need))
ALLOC.sort()
BACK.sort()
TIER_OF = {oid: CUSTOMERS[FIRST[oid]["customer_id"]]["tier"] for oid in ORDER_IDS}
rubric = Rubric()


def allocations():
    rows = read_csv_rows(app("out/allocations.csv"))
    assert rows[0] == ["order_id", "sku", "warehouse", "qty"]
    return [(r[0], r[1], r[2], int(r[3])) for r in rows[1:]]


def backorders():
    rows = read_csv_rows(app("out/backorders.csv"))
    assert rows[0] == ["order_id", "sku", "qty"]
    return [(r[0], r[1], int(r[2])) for r in rows[1:]]


@rubric.item("allocations_layout")
def _():
    rows = allocations()
    return bool(rows) and rows == sorted(rows) and all(q > 0 for *_, q in rows)


@rubric.item("allocations_exact")
def _():
    return sorted(allocations()) == ALLOC


@rubric.item("premium_tiers_first")
def _():
    got = [a for a in allocations() if TIER_OF.get(a[0]) in ("platinum", "gold")]
    return sorted(got) == [a for a in ALLOC if TIER_OF[a[0]] in ("platinum", "gold")]


@rubric.item("closed_warehouse_unused")
def _():
    rows = allocations()
    return bool(rows) and all(w != "WH-EAST" for _, _, w, _ in rows)


@rubric.item("recount_applied")
def _():
    return sorted(a for a in allocations() if a[1] == "SKU-300") == [a for a in ALLOC if a[1] == "SKU-300"]


@rubric.item("standard_lines_not_split")
def _():
    rows = allocations()
    ordered = {(l["order_id"], l["sku"]): int(l["qty"]) for l in LINES}
    std = [(o, s) for (o, s) in ordered if TIER_OF[o] == "standard"]
    for key in std:
        parts = [q for o, s, _, q in rows if (o, s) == key]
        if len(parts) > 1 or (parts and parts[0] != ordered[key]):
            return False
    return bool(rows)


@rubric.item("backorders_exact")
def _():
    return backorders() == BACK


@rubric.item("stock_after_exact")
def _():
    rows = read_csv_rows(app("out/stock_after.csv"))
    return rows[0] == ["warehouse", "sku", "available"] and \
        [(r[0], r[1], int(r[2])) for r in rows[1:]] == sorted((w, s, q) for (w, s), q in AVAIL.items())


@rubric.item("quantities_conserved")
def _():
    got = {}
    for o, s, _, q in allocations():
        got[(o, s)] = got.get((o, s), 0) + q
    for o, s, q in backorders():
        got[(o, s)] = got.get((o, s), 0) + q
    return got == {(l["order_id"], l["sku"]): int(l["qty"]) for l in LINES}


@rubric.item("inputs_unchanged")
def _():
    return unchanged("README.md", "orders/open_orders.csv", "customers/customers.csv", "stock/warehouses.csv",
                     "stock/levels.csv", "config/shipping_preferences.csv", "policy/allocation.md", "notes/2024-11-05_ops.md")


rubric.run()
