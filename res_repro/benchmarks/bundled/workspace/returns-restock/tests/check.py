"""Rubric for the November returns run; expected outcomes are recomputed from the original folder."""
import csv
import os
import sys
from datetime import date
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_csv, read_csv_rows, read_json, unchanged  # noqa: E402


def read(path):
    return list(csv.DictReader(open(fixture(path), newline="")))


SHIP = {s["order_id"]: s for s in read("orders/shipments.csv")}
LOGGED = {i["rma_id"]: i["grade"] for i in read("inspection/inspection_log.csv")}
CORRECTED = {"R-0112": "A", "R-0111": "B"}
GRADES = {**LOGGED, **CORRECTED}
COST = {p["sku"]: Decimal(p["unit_cost"]) for p in read("catalog/products.csv")}
STOCK = {(s["warehouse"], s["sku"]): int(s["qty"]) for s in read("stock/stock.csv")}
RETURNS = read("returns/returns_2024-11.csv")
WANT, LATE, UNITS, VALUE = {}, set(), 0, Decimal(0)
for r in RETURNS:
    ship = SHIP[r["order_id"]]
    q = int(r["qty"])
    if (date.fromisoformat(r["received_date"]) - date.fromisoformat(ship["delivered_date"])).days > 30:
        LATE.add(r["rma_id"])
        out = ("refused", "")
    elif r["rma_id"] not in GRADES:
        out = ("pending", "")
    else:
        out = {"A": ("restocked", ship["warehouse"]), "B": ("outlet", "WH-OUTLET"), "C": ("written_off", "")}[GRADES[r["rma_id"]]]
    if out[0] == "written_off":
        UNITS += q
        VALUE += q * COST[r["sku"]]
    if out[1]:
        STOCK[(out[1], r["sku"])] = STOCK.get((out[1], r["sku"]), 0) + q
    WANT[r["rma_id"]] = [r["rma_id"], r["sku"], r["qty"], *out]
rubric = Rubric()


def got():
    return {r["rma_id"]: [r["rma_id"], r["sku"], r["qty"], r["outcome"], r["warehouse"]] for r in read_csv(app("out/returns_report.csv"))}


def rows_ok(pred):
    g = got()
    ids = [i for i in WANT if pred(i)]
    assert ids
    return all(g.get(i) == WANT[i] for i in ids)


def plain(grade):
    return lambda i: i not in LATE and i not in CORRECTED and LOGGED.get(i) == grade


@rubric.item("report_layout")
def _():
    rows = read_csv_rows(app("out/returns_report.csv"))
    return rows[0] == ["rma_id", "sku", "qty", "outcome", "warehouse"] and [r[0] for r in rows[1:]] == sorted(WANT)


@rubric.item("grade_a_restocked_at_shipping_warehouse")
def _():
    return rows_ok(plain("A"))


@rubric.item("grade_b_to_outlet")
def _():
    return rows_ok(plain("B"))


@rubric.item("grade_c_written_off")
def _():
    return rows_ok(plain("C"))


@rubric.item("qa_corrections_applied")
def _():
    return rows_ok(lambda i: i in CORRECTED)


@rubric.item("late_returns_refused")
def _():
    return rows_ok(lambda i: i in LATE)


@rubric.item("uninspected_pending")
def _():
    return rows_ok(lambda i: i not in LATE and i not in GRADES)


@rubric.item("stock_after")
def _():
    rows = read_csv_rows(app("out/stock_after.csv"))
    return rows == [["warehouse", "sku", "qty"]] + [[w, s, str(q)] for (w, s), q in sorted(STOCK.items())]


@rubric.item("writeoff_totals")
def _():
    data = read_json(app("out/writeoff.json"))
    return data["units"] == UNITS and type(data["units"]) is int and abs(Decimal(str(data["value"])) - VALUE) < Decimal("0.005")


@rubric.item("inputs_unchanged")
def _():
    return unchanged("README.md", "returns/returns_2024-11.csv", "inspection/inspection_log.csv", "orders/shipments.csv",
                     "catalog/products.csv", "stock/stock.csv", "policy/returns_policy.md", "notes/2024-11-25_qa.md")


rubric.run()
