"""Shared pieces of the claw families: name pools, tool definitions, dates, money, and task assembly."""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from res_repro.benchmarks.generated import ToolTaskDraft, with_constants
from res_repro.env.formats.tool_api import ToolDef, ToolTaskConfig

TEMPLATES = Path(__file__).resolve().parent / "templates"
MAX_TURNS = 60

FIRST_NAMES = [
    "Maria", "James", "Priya", "Chen", "Fatima", "Lucas", "Aisha", "Tomas", "Hannah", "Kenji",
    "Sofia", "Omar", "Elena", "Daniel", "Grace", "Mateo", "Yuki", "Noah", "Leila", "Victor",
    "Amara", "Felix", "Ingrid", "Rahul", "Clara", "Diego", "Nadia", "Oscar", "Zara", "Samuel",
]  # fmt: skip
LAST_NAMES = [
    "Lopez", "Okafor", "Nair", "Wang", "Haddad", "Schmidt", "Mensah", "Novak", "Berg", "Tanaka",
    "Rossi", "Farouk", "Petrova", "Kim", "Osei", "Silva", "Moreau", "Jensen", "Costa", "Ibrahim",
    "Walsh", "Duarte", "Lindqvist", "Reyes", "Sato", "Byrne", "Kowalski", "Amato", "Quinn", "Varga",
]  # fmt: skip
COMPANIES = [
    "Northwind Supplies", "Bluefin Logistics", "Cedar Analytics", "Harbor Point Foods", "Ironleaf Tools",
    "Juniper Health", "Kestrel Media", "Lumen Works", "Maple Ridge Energy", "Nimbus Software",
    "Orchid Textiles", "Pinecrest Legal", "Quarry Stone Co", "Redwood Freight", "Summit Dental",
    "Tidewater Marine", "Upland Farms", "Vertex Robotics", "Willow Creek Hotels", "Zephyr Aviation",
]  # fmt: skip


def pick_names(rng: random.Random, count: int) -> list[str]:
    """``count`` distinct full names."""
    firsts = rng.sample(FIRST_NAMES, count)
    lasts = rng.sample(LAST_NAMES, count)
    return [f"{first} {last}" for first, last in zip(firsts, lasts, strict=True)]


def email_for(name: str, domain: str) -> str:
    """A work address such as ``maria.lopez@acme.example`` for a person's name."""
    local = ".".join(part.lower().replace("-", "") for part in name.split())
    return f"{local}@{domain}"


def domain_for(company: str) -> str:
    """A company's mail domain, e.g. ``northwindsupplies.example``."""
    return "".join(ch for ch in company.lower() if ch.isalnum()) + ".example"


def money(cents: int) -> float:
    """An amount of cents as a currency value with two decimals."""
    return round(cents / 100, 2)


def iso(day: date) -> str:
    """A date as YYYY-MM-DD."""
    return day.isoformat()


def month_day(rng: random.Random, year: int, month: int) -> date:
    """A random day (1-28) of a month."""
    return date(year, month, rng.randint(1, 28))


def shift(day: date, days: int) -> date:
    """``day`` moved by ``days``."""
    return day + timedelta(days=days)


def unique_ids(rng: random.Random, prefix: str, count: int, digits: int = 5) -> list[str]:
    """``count`` distinct random identifiers of one width, e.g. ``INV-40217``, in ascending order."""
    low = 10 ** (digits - 1)
    return [f"{prefix}-{number}" for number in sorted(rng.sample(range(low, 10 * low), count))]


def string(description: str, enum: list[str] | None = None) -> dict[str, Any]:
    """A JSON-schema string property."""
    prop: dict[str, Any] = {"type": "string", "description": description}
    if enum:
        prop["enum"] = enum
    return prop


def integer(description: str, minimum: int = 1) -> dict[str, Any]:
    """A JSON-schema integer property."""
    return {"type": "integer", "description": description, "minimum": minimum}


def strings(description: str) -> dict[str, Any]:
    """A JSON-schema array-of-strings property."""
    return {"type": "array", "items": {"type": "string"}, "description": description}


def schema(properties: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    """A closed JSON-schema object for a tool's arguments."""
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def list_tool(
    name: str,
    description: str,
    service: str,
    collection: str,
    filters: dict[str, str],
    required: list[str],
    fields: list[str] | None = None,
) -> ToolDef:
    """A tool listing a collection's records that equal the given filter arguments."""
    properties = {key: string(text) for key, text in filters.items()}
    return ToolDef(
        name=name,
        description=description,
        input_schema=schema(properties, required),
        service=service,
        operation="list",
        collection=collection,
        filters=list(filters),
        fields=fields,
    )


def get_tool(name: str, description: str, service: str, collection: str, id_field: str) -> ToolDef:
    """A tool fetching one full record by its key."""
    return ToolDef(
        name=name,
        description=description,
        input_schema=schema({id_field: string(f"the record's {id_field}")}, [id_field]),
        service=service,
        operation="get",
        collection=collection,
        id_field=id_field,
    )


def search_tool(
    name: str,
    description: str,
    service: str,
    collection: str,
    search_fields: list[str],
    fields: list[str] | None = None,
) -> ToolDef:
    """A tool returning records that contain a query string in any of ``search_fields``."""
    return ToolDef(
        name=name,
        description=description,
        input_schema=schema({"query": string("text to look for (case-insensitive substring)")}, ["query"]),
        service=service,
        operation="search",
        collection=collection,
        search_fields=search_fields,
        fields=fields,
    )


def write_tool(
    operation: str,
    name: str,
    description: str,
    service: str,
    collection: str,
    id_field: str,
    properties: dict[str, dict[str, Any]],
    required: list[str],
) -> ToolDef:
    """A tool that creates or updates a record (``operation`` is ``create`` or ``update``)."""
    return ToolDef(
        name=name,
        description=description,
        input_schema=schema(properties, required),
        service=service,
        operation=operation,
        collection=collection,
        id_field=id_field,
    )


def send_email_tool() -> ToolDef:
    """The mail service's send tool (messages land in the ``outbox`` collection)."""
    properties = {
        "to": string("recipient email address"),
        "subject": string("subject line"),
        "body": string("message text"),
    }
    return ToolDef(
        name="send_email",
        description="Send an email to one recipient. Returns a confirmation with the message id.",
        input_schema=schema(properties, ["to", "subject", "body"]),
        service="mail",
        operation="send",
        collection="outbox",
        id_field="message_id",
    )


def answer_format(*lines: str) -> str:
    """The closing paragraph of a prompt: the exact final-answer lines expected."""
    body = "\n".join(lines)
    return f"End with your final answer in exactly this format, one item per line:\n{body}"


def task_id(family: str, index: int) -> str:
    """A task's identifier, e.g. ``claw-expense-audit-03``."""
    return f"claw-{family}-{index:02d}"


def program(family: str, role: str, **constants: Any) -> str:
    """A task's program: the family's ``role`` template (solve or grade) with its constants and helpers."""
    stem = family.replace("-", "_")
    body = with_constants(TEMPLATES / f"{stem}_{role}.py", **constants)
    helpers = (TEMPLATES / f"common_{role}.py").read_text(encoding="utf-8")
    return f"{body}\n\n# Helpers shared by every claw task.\n{helpers}"


def draft(
    family: str,
    index: int,
    prompt: str,
    tools: list[ToolDef],
    fixtures: dict[str, dict[str, list[dict[str, Any]]]],
    target: dict[str, Any],
    expected: dict[str, Any],
) -> ToolTaskDraft:
    """Assemble a task: its config, fixtures, reference program (TARGET) and grader (EXPECTED)."""
    services = sorted({*fixtures, *(tool.service for tool in tools)})
    config = ToolTaskConfig(
        task_id=task_id(family, index),
        family=family,
        prompt=prompt,
        max_turns=MAX_TURNS,
        services=services,
        tools=tools,
    )
    fixtures = {name: fixtures.get(name, {}) for name in services}
    return ToolTaskDraft(
        config=config,
        fixtures=fixtures,
        solution=program(family, "solve", TARGET=target),
        grader=program(family, "grade", EXPECTED=expected),
    )
