"""Rubric for the access review; expected findings are recomputed from the original exports and notes."""
import csv
import os
import sys
import tomllib
from datetime import date

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_csv_rows, read_json, unchanged  # noqa: E402


def read(path):
    return list(csv.DictReader(open(fixture(path), newline="")))


AS_OF = date.fromisoformat(tomllib.load(open(fixture("audit/audit.toml"), "rb"))["as_of"])
STATUS = {e["employee_id"]: e["status"] for e in read("hr/employees.csv")}
STATUS["E-1042"] = "terminated"
APPROVED = {(a["account_id"], a["role"]) for a in read("approvals/admin_approvals.csv")
            if date.fromisoformat(a["expires_on"]) >= AS_OF}
ACTIVE = [a for a in read("iam/accounts.csv") if a["status"] == "active"]
DISABLED = {a["account_id"] for a in read("iam/accounts.csv") if a["status"] != "active"}
WANT = set()
for a in ACTIVE:
    owner, human, admin = STATUS.get(a["owner_employee_id"]), a["type"] == "human", "admin" in a["roles"].split(";")
    checks = {
        "AC-1": owner == "terminated",
        "AC-2": human and (not a["last_login"] or (AS_OF - date.fromisoformat(a["last_login"])).days > 90),
        "AC-3": admin and (a["account_id"], "admin") not in APPROVED,
        "AC-4": human and admin and a["mfa"] != "enabled",
        "AC-5": a["type"] == "service" and owner not in ("active", "leave"),
    }
    WANT |= {(a["account_id"], a["username"], r) for r, hit in checks.items() if hit}
rubric = Rubric()


def findings():
    rows = read_csv_rows(app("out/access_findings.csv"))
    assert rows[0] == ["account_id", "username", "rule"]
    return [tuple(r) for r in rows[1:]]


def rule_ok(rule):
    got = {f for f in findings() if f[2] == rule}
    return got == {f for f in WANT if f[2] == rule}


@rubric.item("findings_layout")
def _():
    rows = findings()
    return bool(rows) and rows == sorted(rows) and len(rows) == len(set(rows))


@rubric.item("terminated_owners")
def _():
    return rule_ok("AC-1")


@rubric.item("inactive_accounts")
def _():
    return rule_ok("AC-2")


@rubric.item("admin_approvals")
def _():
    return rule_ok("AC-3")


@rubric.item("admin_mfa")
def _():
    return rule_ok("AC-4")


@rubric.item("service_account_owners")
def _():
    return rule_ok("AC-5")


@rubric.item("disabled_accounts_out_of_scope")
def _():
    rows = findings()
    return bool(rows) and not any(f[0] in DISABLED for f in rows)


@rubric.item("summary")
def _():
    s = read_json(app("out/summary.json"))
    by_rule = {f"AC-{i}": sum(f[2] == f"AC-{i}" for f in WANT) for i in range(1, 6)}
    return s == {"as_of": AS_OF.isoformat(), "accounts_reviewed": len(ACTIVE), "findings": len(WANT), "by_rule": by_rule}


@rubric.item("inputs_unchanged")
def _():
    return unchanged("README.md", "audit/audit.toml", "iam/accounts.csv", "hr/employees.csv",
                     "approvals/admin_approvals.csv", "policy/access_policy.md", "notes/2024-11-28_hr.md")


rubric.run()
