"""CRM follow-up: a departing rep's open opportunities go to a colleague; stale ones get a follow-up email.

Planted cases: open opportunities with old and recent activity, closed opportunities with old activity
(never stale), and distractors: other reps' stale opportunities and extra contacts at the same accounts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from res_repro.benchmarks.claw.common import (
    COMPANIES,
    answer_format,
    domain_for,
    draft,
    email_for,
    get_tool,
    iso,
    list_tool,
    pick_names,
    send_email_tool,
    shift,
    string,
    write_tool,
)
from res_repro.benchmarks.generated import ToolTaskDraft
from res_repro.env.formats.tool_api import ToolDef

FAMILY = "crm-followup"
OPEN_STAGES = ["Qualification", "Proposal", "Negotiation"]
CLOSED_STAGES = ["Closed Won", "Closed Lost"]
PRODUCTS = ["Analytics Suite", "Data Platform", "Support Plan", "Security Add-on", "Cloud Migration"]


@dataclass
class Book:
    """Accounts, contacts and opportunities being generated, with their pools of fresh names and ids."""

    rng: random.Random
    as_of: date
    stale_days: int
    accounts: list[dict[str, Any]]
    names: list[str]
    opp_numbers: list[int]
    contacts: list[dict[str, Any]] = field(default_factory=list)
    opportunities: list[dict[str, Any]] = field(default_factory=list)

    def contact(self, account: dict[str, Any]) -> dict[str, Any]:
        """A new contact at ``account``."""
        name = self.names.pop()
        record = {
            "contact_id": f"C-{len(self.contacts) + 101}",
            "name": name,
            "email": email_for(name, domain_for(account["name"])),
            "account_id": account["account_id"],
            "title": self.rng.choice(["CFO", "Head of IT", "Procurement Lead", "COO", "VP Operations"]),
        }
        self.contacts.append(record)
        return record

    def opportunity(self, owner: str, kind: str) -> None:
        """An opportunity of ``owner``: ``stale`` or ``fresh`` (both open) or ``closed`` (old activity)."""
        account, product = self.rng.choice(self.accounts), self.rng.choice(PRODUCTS)
        while f"{account['name']} {product}" in {o["name"] for o in self.opportunities}:
            account, product = self.rng.choice(self.accounts), self.rng.choice(PRODUCTS)
        if kind == "fresh":
            age = self.rng.randint(0, self.stale_days - 3)
        else:
            age = self.stale_days + self.rng.randint(3, 60)
        stages = CLOSED_STAGES if kind == "closed" else OPEN_STAGES
        self.opportunities.append(
            {
                "opp_id": f"OPP-{self.opp_numbers.pop()}",
                "name": f"{account['name']} {product}",
                "account_id": account["account_id"],
                "owner": owner,
                "stage": self.rng.choice(stages),
                "amount": float(self.rng.randrange(5_000, 250_000, 250)),
                "last_activity": iso(shift(self.as_of, -age)),
                "primary_contact_id": self.contact(account)["contact_id"],
            }
        )


def _book(rng: random.Random, reps: list[str]) -> Book:
    as_of = date(2024, rng.randint(1, 12), rng.randint(1, 28))
    companies = rng.sample(COMPANIES, 8)
    accounts = [
        {"account_id": f"A-{number}", "name": name, "industry": rng.choice(["Retail", "Logistics", "Health"])}
        for number, name in zip(rng.sample(range(100, 1000), 8), companies, strict=True)
    ]
    names = pick_names(rng, 20)
    book = Book(rng, as_of, rng.choice([14, 21, 30]), accounts, names, rng.sample(range(1000, 10000), 20))
    target, backup, other = reps
    kinds = ["stale"] * rng.randint(2, 3) + ["fresh"] * rng.randint(2, 3) + ["closed"] * rng.randint(1, 2)
    rng.shuffle(kinds)
    for kind in kinds:
        book.opportunity(target, kind)
    for owner, kind in [(backup, "fresh"), (backup, "stale"), (other, "stale"), (other, "closed")]:
        book.opportunity(owner, kind)
    for account in rng.sample(accounts, 3):
        book.contact(account)
    book.opportunities.sort(key=lambda o: o["opp_id"])
    book.contacts.sort(key=lambda c: c["name"])
    return book


def _truth(book: Book, rep: str, backup: str) -> dict[str, Any]:
    """Which of the rep's opportunities are open and which of those are stale, by the prompt's rules."""
    contacts = {c["contact_id"]: c for c in book.contacts}
    cutoff = iso(shift(book.as_of, -book.stale_days))
    mine = [o for o in book.opportunities if o["owner"] == rep and o["stage"] in OPEN_STAGES]
    stale = [o for o in mine if o["last_activity"] < cutoff]
    reassigned = {o["opp_id"] for o in mine}
    return {
        "stale_value": sum(o["amount"] for o in stale),
        "stale": [o["opp_id"] for o in stale],
        "followups": {
            o["opp_id"]: {"email": contacts[o["primary_contact_id"]]["email"], "name": o["name"]}
            for o in stale
        },
        "reassigned": sorted(reassigned),
        "backup": backup,
        "untouched": {o["opp_id"]: o["owner"] for o in book.opportunities if o["opp_id"] not in reassigned},
    }


def _tools() -> list[ToolDef]:
    return [
        list_tool(
            "list_opportunities",
            "List opportunities as summaries (opp_id, name, owner, stage; no amounts or activity dates).",
            "crm",
            "opportunities",
            {"owner": "optional owner's full name", "stage": "optional stage name"},
            [],
            fields=["opp_id", "name", "owner", "stage"],
        ),
        get_tool(
            "get_opportunity",
            "Get one opportunity in full: amount, last_activity (YYYY-MM-DD), primary_contact_id.",
            "crm",
            "opportunities",
            "opp_id",
        ),
        get_tool(
            "get_contact", "Get one contact: name, email, title, account.", "crm", "contacts", "contact_id"
        ),
        get_tool("get_account", "Get one account: name and industry.", "crm", "accounts", "account_id"),
        write_tool(
            "update",
            "update_opportunity",
            "Change an opportunity's owner.",
            "crm",
            "opportunities",
            "opp_id",
            {"opp_id": string("the opportunity's id"), "owner": string("the new owner's full name")},
            ["opp_id", "owner"],
        ),
        send_email_tool(),
    ]


def _prompt(rep: str, backup: str, as_of: date, stale_days: int) -> str:
    return (
        f"{rep} is leaving the sales team; today is {iso(as_of)}. Reassign every open opportunity owned "
        f"by {rep} (any stage other than Closed Won and Closed Lost) to {backup}. An open opportunity is "
        f"stale when its last_activity is more than {stale_days} days before today. For each stale "
        "opportunity, send one follow-up email to its primary contact that names the opportunity. Do "
        f"not email anyone else and do not change other reps' opportunities.\n\n"
        + answer_format(
            "STALE_VALUE: <total amount of the stale opportunities, two decimals>",
            "STALE_OPPS: <comma-separated stale opportunity ids>",
        )
    )


def generate(rng: random.Random, index: int) -> ToolTaskDraft:
    """One follow-up task with its own reps, accounts, contacts and activity dates."""
    reps = pick_names(rng, 3)
    book = _book(rng, reps)
    fixtures = {
        "crm": {"accounts": book.accounts, "contacts": book.contacts, "opportunities": book.opportunities},
        "mail": {"outbox": []},
    }
    target = {"rep": reps[0], "backup": reps[1], "today": iso(book.as_of), "stale_days": book.stale_days}
    expected = _truth(book, reps[0], reps[1])
    prompt = _prompt(reps[0], reps[1], book.as_of, book.stale_days)
    return draft(FAMILY, index, prompt, _tools(), fixtures, target, expected)
