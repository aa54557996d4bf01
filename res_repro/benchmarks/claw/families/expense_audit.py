"""Expense audit: check one employee's claims of a month against category policies and duplicates.

Planted cases: claims above their category's limit, claims without a receipt above the receipt
threshold, exact duplicates of an earlier claim, a same-merchant same-amount claim on another day (not
a duplicate), and distractors: an employee whose name contains the target's, other employees' claims
and the target's claims of the previous month.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from res_repro.benchmarks.claw.common import (
    answer_format,
    draft,
    email_for,
    get_tool,
    list_tool,
    money,
    pick_names,
    search_tool,
    send_email_tool,
    string,
    write_tool,
)
from res_repro.benchmarks.generated import ToolTaskDraft
from res_repro.env.formats.tool_api import ToolDef

FAMILY = "expense-audit"
YEAR = 2024
DOMAIN = "corp.example"
ANOMALIES = ["over_limit", "missing_receipt", "duplicate"]

# category: (per-claim limit choices in dollars, receipt threshold choices in dollars, merchants)
CATEGORIES: dict[str, tuple[list[int], list[int], list[str]]] = {
    "meals": ([60, 75, 90], [25, 30], ["Cafe Lumen", "Bistro 21", "Noodle Bar", "Green Fork"]),
    "taxi": ([60, 80], [20, 25], ["CityCab", "RideNow", "Metro Taxi"]),
    "lodging": ([220, 250, 300], [0], ["Harbor Inn", "Grand Plaza", "Airport Suites"]),
    "office supplies": ([100, 150], [25], ["PaperPoint", "Desk Depot"]),
    "software": ([200, 300], [0], ["CloudTools", "DevSuite", "FormFlow"]),
}


@dataclass
class Claims:
    """The claims being generated; ``seq`` keeps duplicates after their originals when ids are given."""

    rng: random.Random
    month: int
    policies: dict[str, dict[str, Any]]
    rows: list[dict[str, Any]] = field(default_factory=list)
    seq: count[int] = field(default_factory=count)

    def add(
        self, employee: str, category: str, day: int, amount: int, receipt: bool, merchant: str = ""
    ) -> dict[str, Any]:
        """Add a submitted claim of ``amount`` cents (at a random merchant of its category by default)."""
        row = {
            "employee_id": employee,
            "month": f"{YEAR}-{self.month:02d}",
            "date": f"{YEAR}-{self.month:02d}-{day:02d}",
            "category": category,
            "merchant": merchant or self.rng.choice(CATEGORIES[category][2]),
            "amount": money(amount),
            "receipt": receipt,
            "status": "submitted",
            "_seq": next(self.seq),
        }
        self.rows.append(row)
        return row

    def normal(self, employee: str) -> dict[str, Any]:
        """A claim within policy."""
        category = self.rng.choice(sorted(CATEGORIES))
        policy = self.policies[category]
        amount = self.rng.randint(500, int(policy["per_claim_limit"] * 85))
        receipt = amount > policy["receipt_required_over"] * 100 or self.rng.random() < 0.7
        return self.add(employee, category, self.rng.randint(1, 28), amount, receipt)

    def copy(self, employee: str, original: dict[str, Any], day: int) -> None:
        """A claim like ``original`` on ``day``: a duplicate on the same day, a near-duplicate otherwise."""
        amount = round(original["amount"] * 100)
        self.add(employee, original["category"], day, amount, original["receipt"], original["merchant"])

    def violation(self, employee: str, kind: str) -> None:
        """A claim above its category's limit (``over_limit``) or without a required receipt."""
        category = self.rng.choice(sorted(CATEGORIES))
        policy = self.policies[category]
        limit = policy["per_claim_limit"] * 100
        if kind == "over_limit":
            amount, receipt = self.rng.randint(limit * 11 // 10, limit * 18 // 10), True
        else:
            threshold = policy["receipt_required_over"] * 100
            amount, receipt = self.rng.randint(threshold + 500, limit * 85 // 100), False
        self.add(employee, category, self.rng.randint(1, 28), amount, receipt)


def _policies(rng: random.Random) -> dict[str, dict[str, Any]]:
    return {
        category: {
            "category": category,
            "per_claim_limit": rng.choice(limits),
            "receipt_required_over": rng.choice(thresholds),
        }
        for category, (limits, thresholds, _) in CATEGORIES.items()
    }


def _people(rng: random.Random) -> list[dict[str, Any]]:
    """Target employee, a look-alike whose name contains the target's, two others, and three managers."""
    names = pick_names(rng, 7)
    names[1] = f"{names[0]}-{rng.choice(['Reyes', 'Hart', 'Moreno'])}"
    numbers = rng.sample(range(100, 1000), len(names))
    people = [
        {
            "person_id": f"E-{number}",
            "name": name,
            "email": email_for(name, DOMAIN),
            "department": rng.choice(["Sales", "Engineering", "Marketing", "Operations"]),
            "title": "Manager" if position >= 4 else rng.choice(["Analyst", "Consultant", "Engineer"]),
        }
        for position, (name, number) in enumerate(zip(names, numbers, strict=True))
    ]
    managers = people[4:]
    for position, person in enumerate(people[:4]):
        person["manager_id"] = managers[position % 3]["person_id"]
    for manager in managers:
        manager["manager_id"] = ""
    return people


def _claims(rng: random.Random, month: int, policies: dict, people: list[dict]) -> Claims:
    claims = Claims(rng, month, policies)
    target = people[0]["person_id"]
    normals = [claims.normal(target) for _ in range(rng.randint(4, 6))]
    for kind in rng.sample(ANOMALIES, rng.randint(2, 3)):
        if kind == "duplicate":
            original = rng.choice(normals)
            claims.copy(target, original, int(original["date"][-2:]))
        else:
            claims.violation(target, kind)
    near = rng.choice(normals)
    claims.copy(target, near, int(near["date"][-2:]) % 28 + 1)
    for person in people[1:4]:
        for _ in range(rng.randint(2, 3)):
            claims.normal(person["person_id"])
    claims.violation(people[1]["person_id"], "over_limit")
    previous = Claims(rng, month - 1, policies, seq=claims.seq)
    for _ in range(2):
        previous.normal(target)["status"] = "reimbursed"
    claims.rows += previous.rows
    return claims


def _assign_ids(rng: random.Random, rows: list[dict]) -> list[dict]:
    """Number the claims in date order (an original before its duplicate) and drop the ordering key."""
    rows.sort(key=lambda row: (row["date"], row["_seq"]))
    first = rng.randint(1000, 8000)
    return [
        {"claim_id": f"EXP-{first + position}", **{k: v for k, v in row.items() if k != "_seq"}}
        for position, row in enumerate(rows)
    ]


def _truth(claims: list[dict], policies: dict, people: list[dict], month: str) -> dict[str, Any]:
    """Audit the target's submitted claims of the month by the prompt's rules."""
    target, manager_id = people[0]["person_id"], people[0]["manager_id"]
    mine = [c for c in claims if c["employee_id"] == target and c["month"] == month]
    seen: set[tuple[str, str, float]] = set()
    flagged, approved, approved_total = [], [], 0
    for claim in mine:
        policy, amount = policies[claim["category"]], round(claim["amount"] * 100)
        key = (claim["merchant"], claim["date"], claim["amount"])
        broken = (
            amount > policy["per_claim_limit"] * 100
            or (not claim["receipt"] and amount > policy["receipt_required_over"] * 100)
            or key in seen
        )
        seen.add(key)
        if broken:
            flagged.append(claim["claim_id"])
        else:
            approved.append(claim["claim_id"])
            approved_total += amount
    audited = set(flagged + approved)
    return {
        "approved_total": money(approved_total),
        "flagged": flagged,
        "approved": approved,
        "manager_email": next(p["email"] for p in people if p["person_id"] == manager_id),
        "untouched": {c["claim_id"]: c["status"] for c in claims if c["claim_id"] not in audited},
    }


def _tools() -> list[ToolDef]:
    return [
        search_tool(
            "find_employee",
            "Find people whose name or email contains the query (person_id, name, email, department).",
            "directory",
            "people",
            ["name", "email"],
            fields=["person_id", "name", "email", "department"],
        ),
        get_tool(
            "get_employee",
            "Get a person's directory record, including their manager_id.",
            "directory",
            "people",
            "person_id",
        ),
        list_tool(
            "list_claims",
            "List expense claims as summaries (claim_id, date, category, status; no amounts or merchants).",
            "expenses",
            "claims",
            {"employee_id": "the employee's person_id", "month": "optional month, YYYY-MM"},
            ["employee_id"],
            fields=["claim_id", "employee_id", "month", "date", "category", "status"],
        ),
        get_tool("get_claim", "Get one expense claim in full.", "expenses", "claims", "claim_id"),
        get_tool(
            "get_policy",
            "Get the expense policy of a category: per_claim_limit and receipt_required_over, in dollars.",
            "expenses",
            "policies",
            "category",
        ),
        write_tool(
            "update",
            "update_claim",
            "Set a claim's status to approved or flagged, with an optional reason.",
            "expenses",
            "claims",
            "claim_id",
            {
                "claim_id": string("the claim's id"),
                "status": string("the new status", ["approved", "flagged"]),
                "reason": string("optional reason, e.g. which rule the claim breaks"),
            },
            ["claim_id", "status"],
        ),
        send_email_tool(),
    ]


def _prompt(name: str, month: str) -> str:
    return (
        f"Audit the expense claims that {name} submitted for {month}. A claim breaks policy when (1) its "
        "amount is above its category's per_claim_limit, (2) it has no receipt and its amount is above "
        "the category's receipt_required_over, or (3) it duplicates an earlier claim of that month: same "
        "merchant, date and amount, where the claim with the lower id number is the original. Set every "
        "claim that breaks policy to flagged and every other submitted claim of that month to approved. "
        "Leave other months and other employees alone, including people whose names merely contain this "
        f"one. Then send one email to {name}'s manager listing the flagged claim ids.\n\n"
        + answer_format(
            "APPROVED_TOTAL: <sum of the approved claims' amounts, two decimals>",
            "FLAGGED: <comma-separated flagged claim ids>",
        )
    )


def generate(rng: random.Random, index: int) -> ToolTaskDraft:
    """One audit task with its own people, policies, claims and planted violations."""
    month = rng.randint(2, 12)
    policies = _policies(rng)
    people = _people(rng)
    claims = _assign_ids(rng, _claims(rng, month, policies, people).rows)
    fixtures = {
        "directory": {"people": people},
        "expenses": {"claims": claims, "policies": list(policies.values())},
        "mail": {"outbox": []},
    }
    period = f"{YEAR}-{month:02d}"
    target = {"employee": people[0]["name"], "month": period}
    expected = _truth(claims, policies, people, period)
    return draft(FAMILY, index, _prompt(people[0]["name"], period), _tools(), fixtures, target, expected)
