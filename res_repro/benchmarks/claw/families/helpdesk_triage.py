"""Helpdesk triage: route a queue's open unassigned tickets to on-call agents and set their priority.

Planted cases: tickets of enterprise customers, outage reports in the subject, an "outage" mentioned
only in a description (not urgent), and distractors: tickets already assigned, closed or pending
tickets, other queues, and routing entries whose backup agent is not the one to use.
"""

from __future__ import annotations

import random
from typing import Any

from res_repro.benchmarks.claw.common import (
    COMPANIES,
    answer_format,
    draft,
    email_for,
    get_tool,
    list_tool,
    pick_names,
    string,
    unique_ids,
    write_tool,
)
from res_repro.benchmarks.generated import ToolTaskDraft
from res_repro.env.formats.tool_api import ToolDef

FAMILY = "helpdesk-triage"
DOMAIN = "support.example"
PLANS = ["free", "pro", "business", "enterprise"]
QUEUES: dict[str, list[str]] = {
    "platform": ["api", "performance", "integrations", "data-export"],
    "billing": ["invoices", "refunds", "payment-methods", "plan-changes"],
    "accounts": ["login", "sso", "permissions", "user-management"],
}
ROUTINE_SUBJECTS = [
    "Question about {c}",
    "{C} not working as documented",
    "Help needed with {c}",
    "Unexpected behaviour in {c}",
    "Request: change to {c} settings",
]
OUTAGE_SUBJECTS = ["Outage: {c} down for all users", "{C} outage since this morning", "Partial outage in {c}"]
CALM_DESCRIPTIONS = [
    "Steps to reproduce attached.",
    "Not an outage, but it slows our team down.",
    "Happens intermittently since last week.",
    "Screenshot attached; no error code shown.",
]


def _subject(rng: random.Random, category: str, outage: bool) -> str:
    template = rng.choice(OUTAGE_SUBJECTS if outage else ROUTINE_SUBJECTS)
    return template.format(c=category, C=category.capitalize())


def _customers(rng: random.Random) -> list[dict[str, Any]]:
    """Eight customers: at least two on the enterprise plan and at least two on other plans."""
    plans = ["enterprise", "enterprise", "business", "pro", *rng.choices(PLANS, k=4)]
    rng.shuffle(plans)
    numbers = rng.sample(range(100, 1000), len(plans))
    return [
        {"customer_id": f"CUS-{number}", "name": name, "plan": plan}
        for number, name, plan in zip(numbers, rng.sample(COMPANIES, len(plans)), plans, strict=True)
    ]


def _routing(rng: random.Random) -> tuple[list[dict[str, Any]], list[str]]:
    """A routing entry per category (team, on-call and backup agent) and every agent's address."""
    agents = [email_for(name, DOMAIN) for name in pick_names(rng, 8)]
    routing = []
    for queue, categories in QUEUES.items():
        for category in categories:
            on_call, backup = rng.sample(agents, 2)
            team = f"{queue.capitalize()} {rng.choice(['Tier 1', 'Tier 2', 'Specialists'])}"
            routing.append({"category": category, "team": team, "on_call": on_call, "backup": backup})
    return routing, agents


def _ticket(rng: random.Random, queue: str, customers: list[dict], **state: Any) -> dict[str, Any]:
    category = rng.choice(QUEUES[queue])
    outage = state.pop("outage", False)
    return {
        "queue": queue,
        "subject": _subject(rng, category, outage),
        "status": "open",
        "assignee": "",
        "priority": "",
        "category": category,
        "customer_id": rng.choice(customers)["customer_id"],
        "description": rng.choice(CALM_DESCRIPTIONS),
        **state,
    }


def _tickets(rng: random.Random, queue: str, customers: list[dict], agents: list[str]) -> list[dict]:
    """The queue's open unassigned tickets (one urgent and one routine at least) and the distractors."""
    enterprise = [c for c in customers if c["plan"] == "enterprise"]
    routine = [c for c in customers if c["plan"] != "enterprise"]
    triage = [_ticket(rng, queue, customers, outage=rng.random() < 0.25) for _ in range(rng.randint(3, 5))]
    triage.append(_ticket(rng, queue, enterprise))
    triage.append(_ticket(rng, queue, routine, description="Not an outage, just slow exports."))
    others = [q for q in QUEUES if q != queue]
    distractors = [
        _ticket(rng, queue, customers, assignee=rng.choice(agents), priority="normal"),
        _ticket(rng, queue, customers, outage=True, assignee=rng.choice(agents), priority="urgent"),
        _ticket(rng, queue, enterprise, status="closed"),
        _ticket(rng, queue, customers, status="pending"),
        _ticket(rng, rng.choice(others), enterprise),
        _ticket(rng, rng.choice(others), customers, outage=True),
    ]
    tickets = triage + distractors
    rng.shuffle(tickets)
    return [
        {"ticket_id": ticket_id, **ticket}
        for ticket_id, ticket in zip(unique_ids(rng, "TCK", len(tickets), 4), tickets, strict=True)
    ]


def _truth(tickets: list[dict], customers: list[dict], routing: list[dict], queue: str) -> dict[str, Any]:
    """Assignee and priority of every ticket to triage, by the prompt's rules."""
    plans = {c["customer_id"]: c["plan"] for c in customers}
    on_call = {r["category"]: r["on_call"] for r in routing}
    triage = {}
    for t in tickets:
        if t["queue"] == queue and t["status"] == "open" and not t["assignee"]:
            urgent = plans[t["customer_id"]] == "enterprise" or "outage" in t["subject"].lower()
            triage[t["ticket_id"]] = {
                "assignee": on_call[t["category"]],
                "priority": "urgent" if urgent else "normal",
            }
    return {
        "triage": triage,
        "urgent": [i for i, wanted in triage.items() if wanted["priority"] == "urgent"],
        "untouched": {
            t["ticket_id"]: {key: t[key] for key in ("status", "assignee", "priority")}
            for t in tickets
            if t["ticket_id"] not in triage
        },
    }


def _tools() -> list[ToolDef]:
    return [
        list_tool(
            "list_tickets",
            "List tickets as summaries (ticket_id, subject, status, assignee; empty assignee = unassigned).",
            "helpdesk",
            "tickets",
            {"queue": "the queue's name", "status": "optional status: open, pending or closed"},
            ["queue"],
            fields=["ticket_id", "queue", "subject", "status", "assignee"],
        ),
        get_tool(
            "get_ticket",
            "Get one ticket in full, including its category, customer_id and description.",
            "helpdesk",
            "tickets",
            "ticket_id",
        ),
        get_tool("get_customer", "Get one customer: name and plan.", "helpdesk", "customers", "customer_id"),
        get_tool(
            "get_routing",
            "Get the routing entry of a ticket category: team, on_call agent and backup agent.",
            "helpdesk",
            "routing",
            "category",
        ),
        write_tool(
            "update",
            "update_ticket",
            "Assign a ticket and set its priority.",
            "helpdesk",
            "tickets",
            "ticket_id",
            {
                "ticket_id": string("the ticket's id"),
                "assignee": string("the agent's email address"),
                "priority": string("the ticket's priority", ["urgent", "normal"]),
            },
            ["ticket_id", "assignee", "priority"],
        ),
    ]


def _prompt(queue: str) -> str:
    return (
        f"Triage the {queue} queue. Every ticket in it with status open and no assignee must be assigned "
        "to the on_call agent that the routing table lists for the ticket's category, with priority "
        "urgent when the customer's plan is enterprise or the ticket's subject mentions an outage, and "
        "normal otherwise. Do not change tickets that are already assigned, not open, or in other "
        "queues.\n\n"
        + answer_format(
            "TRIAGED: <number of tickets you triaged>",
            "URGENT: <comma-separated ids of the tickets you set to urgent>",
        )
    )


def generate(rng: random.Random, index: int) -> ToolTaskDraft:
    """One triage task with its own queue, customers, agents and tickets."""
    queue = rng.choice(sorted(QUEUES))
    customers = _customers(rng)
    routing, agents = _routing(rng)
    tickets = _tickets(rng, queue, customers, agents)
    fixtures = {"helpdesk": {"tickets": tickets, "customers": customers, "routing": routing}}
    expected = _truth(tickets, customers, routing, queue)
    return draft(FAMILY, index, _prompt(queue), _tools(), fixtures, {"queue": queue}, expected)
