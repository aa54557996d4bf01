"""Rubric for the GR-2291 period 1 report: figures recomputed from the original ledger and grant terms."""
import csv
import os
import re
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_text, unchanged  # noqa: E402

INPUTS = ["README.md", "grant/grant.toml", "docs/amendments/amendment_01.md", "docs/reporting_guidelines.md",
          "ledger/transactions.csv", "config/chart_of_accounts.csv", "docs/audit_adjustments.md"]
ORDER = ["personnel", "equipment", "travel", "consumables", "subcontracting", "indirect"]

GRANT = tomllib.load(open(fixture("grant/grant.toml"), "rb"))
PERIOD = GRANT["periods"]["1"]
BUDGET = {k: Decimal(str(v)).quantize(Decimal("0.01")) for k, v in GRANT["budget"].items()}
BUDGET["equipment"], BUDGET["travel"] = Decimal("24000.00"), Decimal("14000.00")
CAT = {r["account"]: r["grant_category"] for r in csv.DictReader(open(fixture("config/chart_of_accounts.csv")))}
ADJ = {"T24357": "equipment", "T24392": "not_eligible"}
SPENT = {k: Decimal("0.00") for k in ORDER[:-1] + ["not_eligible"]}
for r in csv.DictReader(open(fixture("ledger/transactions.csv"))):
    if r["project"] == "GR-2291" and PERIOD["start"] <= r["date"] <= PERIOD["end"]:
        SPENT[ADJ.get(r["txn_id"], CAT[r["account"]])] += Decimal(r["amount"])
SPENT["indirect"] = (sum(SPENT[k] for k in ORDER[:4]) * Decimal("0.25")).quantize(Decimal("0.01"), ROUND_HALF_UP)

rubric = Rubric()


def text():
    return read_text(app("report/period1_financial_report.md"))


def table():
    rows = {}
    for line in text().splitlines():
        line = line.strip()
        if line.startswith("|") and line.endswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].lower()] = cells[1:]
    return rows


def amount(cell):
    assert re.fullmatch(r"-?\d+\.\d\d", cell), cell
    return Decimal(cell)


def spent_ok(*cats):
    t = table()
    return all(amount(t[c][1]) == SPENT[c] for c in cats)


@rubric.item("title_and_period")
def _():
    lines = [l.strip() for l in text().splitlines() if l.strip()]
    return lines[0] == "# Financial report GR-2291 - period 1" and lines[1] == f"Period: {PERIOD['start']} to {PERIOD['end']}"


@rubric.item("table_layout")
def _():
    rows = [l.strip() for l in text().splitlines() if l.strip().startswith("|")]
    names = [r.strip("|").split("|")[0].strip() for r in rows]
    return names == ["Category", "---", "Personnel", "Equipment", "Travel", "Consumables", "Subcontracting", "Indirect", "Total"] \
        and all(len(r.strip("|").split("|")) == 4 for r in rows)


@rubric.item("budgets_with_amendment")
def _():
    t = table()
    return all(amount(t[c][0]) == BUDGET[c] for c in ORDER)


@rubric.item("personnel_project_and_period")
def _():
    return spent_ok("personnel")


@rubric.item("equipment_with_reclassification")
def _():
    return spent_ok("equipment")


@rubric.item("consumables_with_reclassification_and_refund")
def _():
    return spent_ok("consumables")


@rubric.item("travel_without_dinner_invoice")
def _():
    return spent_ok("travel")


@rubric.item("subcontracting")
def _():
    return spent_ok("subcontracting")


@rubric.item("indirect_flat_rate")
def _():
    return spent_ok("indirect")


@rubric.item("remaining_is_budget_minus_spent")
def _():
    t = table()
    return all(amount(t[c][2]) == amount(t[c][0]) - amount(t[c][1]) for c in ORDER + ["total"])


@rubric.item("total_row")
def _():
    t = table()
    tb, ts = sum(BUDGET[c] for c in ORDER), sum(SPENT[c] for c in ORDER)
    return amount(t["total"][0]) == tb and amount(t["total"][1]) == ts


@rubric.item("non_eligible_disclosed")
def _():
    m = re.search(r"^Non-eligible costs excluded: (-?\d+\.\d\d)\s*$", text(), re.M)
    return m is not None and Decimal(m.group(1)) == SPENT["not_eligible"]


@rubric.item("inputs_unchanged")
def _():
    return unchanged(*INPUTS)


rubric.run()
