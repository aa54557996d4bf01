"""Rubric for the Q3 department spend summary: expected figures are recomputed from the original inputs."""
import csv
import os
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_json, unchanged  # noqa: E402

CENT = Decimal("0.01")
INPUTS = ["README.md", "config/report.toml", "config/cost_centres.csv", "data/budget_q3.csv",
          "data/actuals_q3.csv", "data/fx_rates.csv", "docs/memos/2024-10-02_building-services-invoice.md",
          "docs/memos/2024-10-08_sales-budget-cut.md", "docs/memos/2024-10-09_events-budget.md",
          "docs/memos/2024-10-11_data-platform-merge.md"]


def expected():
    cfg = tomllib.load(open(fixture("config/report.toml"), "rb"))
    dept_of = {r["cost_centre"]: r["department"] for r in csv.DictReader(open(fixture("config/cost_centres.csv")))}
    dept_of["CC-120"] = dept_of["CC-110"]
    rates = {(r["month"], r["currency"]): Decimal(r["eur_per_unit"]) for r in csv.DictReader(open(fixture("data/fx_rates.csv")))}
    budget, actual = {}, {}
    for r in csv.DictReader(open(fixture("data/budget_q3.csv"))):
        amount = Decimal("55000.00") if r["cost_centre"] == "CC-210" else Decimal(r["budget_eur"])
        budget[dept_of[r["cost_centre"]]] = budget.get(dept_of[r["cost_centre"]], Decimal(0)) + amount
    for r in csv.DictReader(open(fixture("data/actuals_q3.csv"))):
        amount = Decimal("1240.00") if r["line_id"] == "ACT-0331" else Decimal(r["amount"])
        rate = Decimal(1) if r["currency"] == "EUR" else rates[(r["booking_date"][:7], r["currency"])]
        d = dept_of[r["cost_centre"]]
        actual[d] = actual.get(d, Decimal(0)) + (amount * rate).quantize(CENT, ROUND_HALF_UP)
    tol = Decimal(str(cfg["over_budget_tolerance"]))
    status = {d: "over" if actual[d] > budget[d] * (1 + tol) else "within" for d in budget}
    return cfg, budget, actual, status


CFG, BUDGET, ACTUAL, STATUS = expected()
rubric = Rubric()


def report():
    data = read_json(app("report/q3_summary.json"))
    assert isinstance(data, dict) and isinstance(data["departments"], list)
    return data


def by_dept():
    return {row["department"]: row for row in report()["departments"]}


def close(got, want):
    return isinstance(got, int | float) and not isinstance(got, bool) and abs(Decimal(str(got)) - want) <= Decimal("0.005")


@rubric.item("report_header")
def _():
    data = report()
    return data.get("quarter") == CFG["quarter"] and data.get("currency") == CFG["reporting_currency"]


@rubric.item("departments_listed_and_sorted")
def _():
    names = [row["department"] for row in report()["departments"]]
    return names == sorted(BUDGET)


@rubric.item("budgets_from_export")
def _():
    rows = by_dept()
    return all(close(rows[d]["budget"], BUDGET[d]) for d in ("Facilities", "People"))


@rubric.item("events_budget_increase_applied")
def _():
    return close(by_dept()["Marketing"]["budget"], BUDGET["Marketing"])


@rubric.item("rejected_sales_cut_ignored")
def _():
    return close(by_dept()["Sales"]["budget"], BUDGET["Sales"])


@rubric.item("actuals_converted_to_eur")
def _():
    rows = by_dept()
    return all(close(rows[d]["actual"], ACTUAL[d]) for d in ("Marketing", "People", "Sales"))


@rubric.item("invoice_correction_applied")
def _():
    return close(by_dept()["Facilities"]["actual"], ACTUAL["Facilities"])


@rubric.item("retired_cost_centre_merged")
def _():
    row = by_dept()["Engineering"]
    return close(row["budget"], BUDGET["Engineering"]) and close(row["actual"], ACTUAL["Engineering"])


@rubric.item("variance_is_budget_minus_actual")
def _():
    rows = report()["departments"]
    return bool(rows) and all(
        close(r["variance"], Decimal(str(r["budget"])) - Decimal(str(r["actual"]))) for r in rows)


@rubric.item("status_follows_tolerance_rule")
def _():
    rows = by_dept()
    return set(rows) == set(STATUS) and all(rows[d]["status"] == STATUS[d] for d in STATUS)


@rubric.item("totals")
def _():
    data = report()
    tb, ta = sum(BUDGET.values()), sum(ACTUAL.values())
    return close(data["total_budget"], tb) and close(data["total_actual"], ta) and close(data["total_variance"], tb - ta)


@rubric.item("inputs_unchanged")
def _():
    return unchanged(*INPUTS)


rubric.run()
