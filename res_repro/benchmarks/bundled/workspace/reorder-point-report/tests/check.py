"""Rubric for the weekly replenishment run; expected figures are recomputed from the original folder."""
import csv
import math
import os
import sys
from datetime import date
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_csv, read_csv_rows, unchanged  # noqa: E402


def read(path):
    return list(csv.DictReader(open(fixture(path), newline="")))


LEAD = {s["supplier_id"]: int(s["lead_time_days"]) for s in read("suppliers/suppliers.csv")}
LEAD["S-02"] = 21
SOLD = {}
for r in read("sales/daily_sales.csv"):
    if date(2024, 10, 3) <= date.fromisoformat(r["date"]) <= date(2024, 10, 30):
        SOLD[r["sku"]] = SOLD.get(r["sku"], 0) + int(r["units"])
STOCK = {s["sku"]: int(s["on_hand"]) + int(s["on_order"]) for s in read("inventory/stock_on_hand.csv")}
PRODUCTS = {p["sku"]: p for p in read("catalog/products.csv")}
WANT = {}
for sku, p in sorted(PRODUCTS.items()):
    if p["status"] == "discontinued":
        continue
    avg = Fraction(SOLD.get(sku, 0), 28)
    days = LEAD[p["supplier_id"]] + (11 if p["abc_class"] == "A" else 8)
    rop = math.ceil(avg * days)
    pack = int(p["case_pack"])
    qty = math.ceil((avg * (days + 14) - STOCK[sku]) / pack) * pack if STOCK[sku] <= rop else 0
    WANT[sku] = {"supplier_id": p["supplier_id"], "avg_daily_demand": f"{math.floor(avg * 100 + Fraction(1, 2)) / 100:.2f}",
                 "reorder_point": str(rop), "position": str(STOCK[sku]), "order_qty": str(qty)}
rubric = Rubric()


def got():
    return {r["sku"]: r for r in read_csv(app("out/reorder.csv"))}


def field_ok(field, skus):
    g = got()
    assert skus
    return all(g[s][field] == WANT[s][field] for s in skus)


def skus_where(pred):
    return [s for s in WANT if pred(PRODUCTS[s])]


@rubric.item("reorder_layout")
def _():
    rows = read_csv_rows(app("out/reorder.csv"))
    return rows[0] == ["sku", "supplier_id", "avg_daily_demand", "reorder_point", "position", "order_qty"] and \
        [r[0] for r in rows[1:]] == list(WANT)


@rubric.item("average_daily_demand")
def _():
    return field_ok("avg_daily_demand", list(WANT))


@rubric.item("reorder_points_standard")
def _():
    return field_ok("reorder_point", skus_where(lambda p: p["supplier_id"] != "S-02" and p["abc_class"] != "A"))


@rubric.item("lead_time_note_applied")
def _():
    return field_ok("reorder_point", skus_where(lambda p: p["supplier_id"] == "S-02" and p["abc_class"] != "A"))


@rubric.item("a_class_safety_days")
def _():
    return field_ok("reorder_point", skus_where(lambda p: p["supplier_id"] != "S-02" and p["abc_class"] == "A"))


@rubric.item("stock_positions")
def _():
    return field_ok("position", list(WANT)) and field_ok("supplier_id", list(WANT))


@rubric.item("order_quantities")
def _():
    return field_ok("order_qty", list(WANT))


@rubric.item("discontinued_left_out")
def _():
    gone = [s for s, p in PRODUCTS.items() if p["status"] == "discontinued"]
    po = read_csv_rows(app("out/purchase_orders.csv"))
    return bool(got()) and not any(s in got() for s in gone) and not any(r[1] in gone for r in po[1:])


@rubric.item("purchase_orders")
def _():
    rows = read_csv_rows(app("out/purchase_orders.csv"))
    want = sorted([w["supplier_id"], s, str(int(w["order_qty"]) // int(PRODUCTS[s]["case_pack"])), w["order_qty"]]
                  for s, w in WANT.items() if w["order_qty"] != "0")
    return rows == [["supplier_id", "sku", "cases", "units"]] + want


@rubric.item("inputs_unchanged")
def _():
    return unchanged("README.md", "inventory/stock_on_hand.csv", "sales/daily_sales.csv", "catalog/products.csv",
                     "suppliers/suppliers.csv", "policy/replenishment.md", "notes/2024-10-30_purchasing.md")


rubric.run()
