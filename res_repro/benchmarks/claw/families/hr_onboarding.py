"""HR onboarding: file IT requests and send welcome emails for the accepted hires starting in one week.

Planted cases: accepted hires starting on different weekdays of the week, with kits that depend on
their role and accounts that depend on their department, and distractors: hires starting the Friday
before or the Monday after, withdrawn and pending offers in the week.
"""

from __future__ import annotations

import random
from datetime import date
from typing import Any

from res_repro.benchmarks.claw.common import (
    answer_format,
    draft,
    email_for,
    get_tool,
    iso,
    list_tool,
    pick_names,
    send_email_tool,
    shift,
    string,
    strings,
    unique_ids,
    write_tool,
)
from res_repro.benchmarks.generated import ToolTaskDraft
from res_repro.env.formats.tool_api import ToolDef

FAMILY = "hr-onboarding"
DOMAIN = "corp.example"
FIRST_MONDAY = date(2024, 1, 8)
ROLES = ["Software Engineer", "Data Analyst", "Account Executive", "Product Designer", "Support Specialist"]
DEPARTMENTS = ["Engineering", "Sales", "Design", "Customer Success"]
HARDWARE = [
    "laptop-14", "laptop-16-pro", "monitor-27", "monitor-32-4k", "headset", "docking-station",
    "drawing-tablet", "security-key", "phone", "webcam-hd",
]  # fmt: skip
ACCOUNTS = ["github", "jira", "salesforce", "figma", "zendesk", "aws-console", "looker", "slack", "notion"]
PERSONAL_DOMAINS = ["mailbox.example", "inbox.example", "post.example"]


def _catalog(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """This task's hardware kit per role and accounts per department."""
    kits = [{"role": role, "hardware": sorted(rng.sample(HARDWARE, rng.randint(2, 4)))} for role in ROLES]
    departments = [
        {"department": name, "accounts": ["slack", *sorted(rng.sample(ACCOUNTS[:-2], rng.randint(1, 3)))]}
        for name in DEPARTMENTS
    ]
    return kits, departments


def _personal_email(rng: random.Random, name: str) -> str:
    """A private address such as ``maria.42@inbox.example``."""
    return f"{name.split()[0].lower()}.{rng.randint(10, 99)}@{rng.choice(PERSONAL_DOMAINS)}"


def _hires(rng: random.Random, monday: date, managers: list[dict]) -> list[dict[str, Any]]:
    """Accepted hires of the week first, then the distractors, each with its own start and status."""
    plan = [(offset, "accepted") for offset in sorted(rng.sample(range(5), rng.randint(2, 4)))]
    plan += [
        (-3, "accepted"),
        (7, "accepted"),
        (rng.randint(0, 4), "withdrawn"),
        (rng.randint(0, 4), "pending"),
    ]
    names = pick_names(rng, len(plan))
    hires = [
        {
            "name": name,
            "personal_email": _personal_email(rng, name),
            "role": rng.choice(ROLES),
            "department": rng.choice(DEPARTMENTS),
            "manager_id": rng.choice(managers)["employee_id"],
            "start_date": iso(shift(monday, offset)),
            "status": status,
        }
        for name, (offset, status) in zip(names, plan, strict=True)
    ]
    rng.shuffle(hires)
    return [
        {"hire_id": i, **hire} for i, hire in zip(unique_ids(rng, "NH", len(hires), 3), hires, strict=True)
    ]


def _managers(rng: random.Random) -> list[dict[str, Any]]:
    return [
        {"employee_id": i, "name": name, "email": email_for(name, DOMAIN), "title": "Team Lead"}
        for i, name in zip(unique_ids(rng, "EMP", 4, 4), pick_names(rng, 4), strict=True)
    ]


def _truth(
    hires: list[dict], kits: list[dict], departments: list[dict], managers: list[dict], monday: date
) -> dict[str, Any]:
    """What each accepted hire of the week needs, by the prompt's rules."""
    hardware = {k["role"]: k["hardware"] for k in kits}
    accounts = {d["department"]: d["accounts"] for d in departments}
    manager_names = {m["employee_id"]: m["name"] for m in managers}
    week = {iso(shift(monday, offset)) for offset in range(5)}
    chosen = [h for h in hires if h["status"] == "accepted" and h["start_date"] in week]
    return {
        "hires": {
            h["hire_id"]: {
                "personal_email": h["personal_email"],
                "start_date": h["start_date"],
                "manager_name": manager_names[h["manager_id"]],
                "hardware": hardware[h["role"]],
                "accounts": accounts[h["department"]],
            }
            for h in chosen
        }
    }


def _tools() -> list[ToolDef]:
    request_properties = {
        "hire_id": string("the new hire's id"),
        "hardware": strings("hardware items to issue"),
        "accounts": strings("accounts to create"),
    }
    return [
        list_tool(
            "list_hires",
            "List new hires as summaries (hire_id, name, start_date, status).",
            "hr",
            "hires",
            {"status": "optional status: accepted, pending or withdrawn"},
            [],
            fields=["hire_id", "name", "start_date", "status"],
        ),
        get_tool(
            "get_hire",
            "Get one hire in full: role, department, manager_id, personal_email.",
            "hr",
            "hires",
            "hire_id",
        ),
        get_tool("get_role_kit", "Get the hardware kit issued for a role.", "hr", "role_kits", "role"),
        get_tool(
            "get_department", "Get a department's standard accounts.", "hr", "departments", "department"
        ),
        get_tool(
            "get_employee", "Get an employee's record: name, email, title.", "hr", "employees", "employee_id"
        ),
        write_tool(
            "create",
            "create_it_request",
            "File an IT provisioning request for a new hire.",
            "it",
            "requests",
            "request_id",
            request_properties,
            list(request_properties),
        ),
        send_email_tool(),
    ]


def _prompt(monday: date) -> str:
    friday = shift(monday, 4)
    return (
        f"Prepare onboarding for every new hire with status accepted whose start_date falls in the week "
        f"from {iso(monday)} to {iso(friday)}. For each of them, file exactly one IT request listing the "
        "hardware kit of their role and the accounts of their department, and send a welcome email to "
        "their personal_email that states their start date (YYYY-MM-DD) and their manager's full name. "
        "Do nothing for hires outside that week or with any other status.\n\n"
        + answer_format(
            "HEADCOUNT: <number of hires you onboarded>",
            "HIRES: <comma-separated hire ids>",
        )
    )


def generate(rng: random.Random, index: int) -> ToolTaskDraft:
    """One onboarding task with its own week, hires, kits and managers."""
    monday = shift(FIRST_MONDAY, 7 * rng.randint(0, 45))
    kits, departments = _catalog(rng)
    managers = _managers(rng)
    hires = _hires(rng, monday, managers)
    fixtures = {
        "hr": {"hires": hires, "role_kits": kits, "departments": departments, "employees": managers},
        "it": {"requests": []},
        "mail": {"outbox": []},
    }
    target = {"week_start": iso(monday), "week_end": iso(shift(monday, 4))}
    expected = _truth(hires, kits, departments, managers, monday)
    return draft(FAMILY, index, _prompt(monday), _tools(), fixtures, target, expected)
