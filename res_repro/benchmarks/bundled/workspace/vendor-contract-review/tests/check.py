"""Rubric for the contract review: one item per checklist check, across all contracts."""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_json, unchanged  # noqa: E402

REGISTER = sorted(csv.DictReader(open(fixture("vendors/register.csv"))), key=lambda v: v["vendor"])
P, F, NA, W = "pass", "fail", "not_applicable", "waived"
# The expected results, as the checklist, legal.toml, the register and the waiver determine them.
WANT = {
    "Acme Analytics": {"PAY-1": P, "LIA-1": F, "REN-1": F, "LAW-1": P, "DPA-1": P, "SEC-1": P},
    "BrightPay": {"PAY-1": P, "LIA-1": P, "REN-1": NA, "LAW-1": P, "DPA-1": F, "SEC-1": F},
    "CloudNest": {"PAY-1": F, "LIA-1": P, "REN-1": P, "LAW-1": W, "DPA-1": NA, "SEC-1": NA},
    "DocuFlow": {"PAY-1": P, "LIA-1": P, "REN-1": P, "LAW-1": P, "DPA-1": P, "SEC-1": NA},
}
rubric = Rubric()


def entries():
    return {e["vendor"]: e for e in read_json(app("out/findings.json"))["contracts"]}


def check_ok(check_id):
    got = entries()
    return all(got[v]["checks"][check_id] == WANT[v][check_id] for v in WANT)


@rubric.item("structure")
def _():
    data = read_json(app("out/findings.json"))
    listed = [(e["vendor"], e["file"]) for e in data["contracts"]]
    return listed == [(v["vendor"], v["contract_file"]) for v in REGISTER] and \
        all(set(e["checks"]) == set(WANT[e["vendor"]]) for e in data["contracts"])


@rubric.item("payment_terms")
def _():
    return check_ok("PAY-1")


@rubric.item("liability_caps")
def _():
    return check_ok("LIA-1")


@rubric.item("renewal_notice")
def _():
    return check_ok("REN-1")


@rubric.item("governing_law_and_waiver")
def _():
    return check_ok("LAW-1")


@rubric.item("data_processing_agreements")
def _():
    return check_ok("DPA-1")


@rubric.item("security_audit_rights")
def _():
    return check_ok("SEC-1")


@rubric.item("compliance_flags")
def _():
    got = entries()
    return all(got[v]["compliant"] is (F not in WANT[v].values()) for v in WANT)


@rubric.item("summary")
def _():
    s = read_json(app("out/findings.json"))["summary"]
    ok = sum(F not in c.values() for c in WANT.values())
    return s == {"compliant": ok, "non_compliant": len(WANT) - ok}


@rubric.item("inputs_unchanged")
def _():
    return unchanged("README.md", "vendors/register.csv", "policy/legal.toml", "policy/procurement_checklist.md",
                     "legal/waiver_2024-07_cloudnest.md", "contracts/acme-analytics.md", "contracts/brightpay.md",
                     "contracts/cloudnest.md", "contracts/docuflow.md")


rubric.run()
