"""Rubric for the October expense settlement: each rule of the policy is checked on the lines it governs."""
import csv
import os
import sys
from decimal import ROUND_HALF_UP, Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_csv, read_csv_rows, unchanged  # noqa: E402

CENT = Decimal("0.01")
INPUTS = ["README.md", "claims/claims_2024-10.csv", "policy/travel_policy.md",
          "policy/updates/2024-10-01_hotel-cap-tier1.md", "config/city_tiers.csv", "approvals/exceptions.csv"]
RATES = {"hotel": {1: "220.00", 2: "160.00", 3: "120.00"}, "meals": {1: "75.00", 2: "60.00", 3: "45.00"},
         "taxi": {1: "80.00", 2: "80.00", 3: "80.00"}, "mileage": {1: "0.30", 2: "0.30", 3: "0.30"}}

TIER = {r["city"]: int(r["tier"]) for r in read_csv(fixture("config/city_tiers.csv"))}
EXC = {r["line_id"]: r["status"] for r in read_csv(fixture("approvals/exceptions.csv"))}
CLAIMS = read_csv(fixture("claims/claims_2024-10.csv"))


def cap(row):
    t = TIER[row["city"]]
    rate = Decimal(RATES[row["category"]][t])
    if row["category"] == "hotel" and t == 1 and row["date"] >= "2024-10-15":
        rate = Decimal("250.00")
    return rate if row["category"] == "taxi" else (rate * int(row["quantity"])).quantize(CENT, ROUND_HALF_UP)


WANT = {}
for row in CLAIMS:
    c = Decimal(row["amount"])
    if row["category"] not in RATES:
        WANT[row["line_id"]] = (Decimal(0), "rejected_category")
    elif c > Decimal("25.00") and row["receipt"] != "yes":
        WANT[row["line_id"]] = (Decimal(0), "rejected_receipt")
    elif c <= cap(row):
        WANT[row["line_id"]] = (c, "paid")
    elif EXC.get(row["line_id"]) == "approved":
        WANT[row["line_id"]] = (c, "exception")
    else:
        WANT[row["line_id"]] = (cap(row), "capped")
BY_ID = {r["line_id"]: r for r in CLAIMS}
rubric = Rubric()


def got():
    rows = read_csv(app("out/reimbursements.csv"))
    return {r["line_id"]: r for r in rows}


def approved_ok(ids):
    g = got()
    assert ids
    return all(Decimal(g[i]["approved"]) == WANT[i][0] for i in ids)


def ids_where(pred):
    return [r["line_id"] for r in CLAIMS if pred(r) and r["line_id"] not in EXC]


@rubric.item("reimbursements_layout")
def _():
    rows = read_csv_rows(app("out/reimbursements.csv"))
    return rows[0] == ["line_id", "employee_id", "claimed", "approved", "outcome"] and \
        [r[0] for r in rows[1:]] == sorted(BY_ID) and all(r[1] == BY_ID[r[0]]["employee_id"] for r in rows[1:])


@rubric.item("claimed_amounts")
def _():
    g = got()
    return all(g[i]["claimed"] == f"{Decimal(BY_ID[i]['amount']):.2f}" for i in BY_ID)


@rubric.item("ineligible_category_rejected")
def _():
    ids = [r["line_id"] for r in CLAIMS if r["category"] not in RATES]
    g = got()
    return approved_ok(ids) and all(g[i]["outcome"] == "rejected_category" for i in ids)


@rubric.item("receipt_rule")
def _():
    ids = ids_where(lambda r: r["receipt"] != "yes" and r["category"] in RATES)
    return any(Decimal(BY_ID[i]["amount"]) <= 25 for i in ids) and approved_ok(ids)


@rubric.item("hotel_caps_before_update")
def _():
    return approved_ok(ids_where(lambda r: r["category"] == "hotel" and r["date"] < "2024-10-15"))


@rubric.item("tier1_hotel_cap_update")
def _():
    return approved_ok(ids_where(lambda r: r["category"] == "hotel" and r["date"] >= "2024-10-15" and TIER[r["city"]] == 1))


@rubric.item("meals_caps")
def _():
    return approved_ok(ids_where(lambda r: r["category"] == "meals" and r["receipt"] == "yes"))


@rubric.item("taxi_and_mileage_caps")
def _():
    return approved_ok(ids_where(lambda r: r["category"] in ("taxi", "mileage") and r["receipt"] == "yes"))


@rubric.item("approved_exception_paid")
def _():
    ids = [i for i, s in EXC.items() if s == "approved" and BY_ID[i]["category"] in RATES]
    g = got()
    return approved_ok(ids) and all(g[i]["outcome"] == "exception" for i in ids)


@rubric.item("exception_limits_respected")
def _():
    ids = [i for i, s in EXC.items() if s != "approved" or BY_ID[i]["category"] not in RATES]
    g = got()
    return approved_ok(ids) and all(g[i]["outcome"] == WANT[i][1] for i in ids)


@rubric.item("outcome_labels")
def _():
    g = got()
    return set(g) == set(WANT) and all(g[i]["outcome"] == WANT[i][1] for i in WANT)


@rubric.item("employee_totals")
def _():
    want = {}
    for r in CLAIMS:
        t = want.setdefault(r["employee_id"], [0, Decimal(0), Decimal(0)])
        t[0] += 1; t[1] += Decimal(r["amount"]); t[2] += WANT[r["line_id"]][0]
    rows = read_csv_rows(app("out/employee_totals.csv"))
    expect = [["employee_id", "lines", "claimed", "approved"]] + [
        [e, str(n), f"{c:.2f}", f"{p:.2f}"] for e, (n, c, p) in sorted(want.items())]
    return rows == expect


@rubric.item("inputs_unchanged")
def _():
    return unchanged(*INPUTS)


rubric.run()
