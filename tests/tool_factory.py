"""Builds a small tool-API task for tests: a CRM to look a customer up and a mail service to write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from res_repro.env.formats.tool_api import MiddlewareDef, ToolDef, ToolTaskConfig, write_tool_task

SOLUTION = """\
def solve(call):
    hits = call("crm_search", query="Acme")["items"]
    customer = call("crm_get", id=hits[0]["id"])
    call("mail_send", to=customer["email"], subject="Renewal", body="Your plan renews soon.")
    return f"Emailed {customer['email']}"
"""

GRADER = """\
def grade(answer, audit, state):
    sent = state["mail"].get("outbox", [])
    right = [m for m in sent if m["to"] == "ops@acme.test"]
    return [
        {"name": "email sent to Acme", "weight": 3, "passed": bool(right)},
        {"name": "answer names the address", "weight": 1, "passed": "ops@acme.test" in answer},
        {"name": "no other email", "weight": 1, "passed": len(sent) == len(right)},
    ]
"""

FIXTURES = {
    "crm": {
        "customers": [
            {"id": "C1", "name": "Acme Corp", "email": "ops@acme.test", "tier": "gold"},
            {"id": "C2", "name": "Globex", "email": "it@globex.test", "tier": "silver"},
        ]
    },
    "mail": {"outbox": []},
}


def tool_defs() -> list[ToolDef]:
    """The three tools of the test task."""
    text = {"type": "string"}
    return [
        ToolDef(
            name="crm_search",
            description="Search customers by name.",
            input_schema={"type": "object", "properties": {"query": text}, "required": ["query"]},
            service="crm",
            operation="search",
            collection="customers",
            search_fields=["name"],
            fields=["id", "name"],
        ),
        ToolDef(
            name="crm_get",
            description="Get one customer by id.",
            input_schema={
                "type": "object",
                "properties": {"id": text},
                "required": ["id"],
                "additionalProperties": False,
            },
            service="crm",
            operation="get",
            collection="customers",
        ),
        ToolDef(
            name="mail_send",
            description="Send an email.",
            input_schema={
                "type": "object",
                "properties": {"to": text, "subject": text, "body": text},
                "required": ["to", "subject", "body"],
            },
            service="mail",
            operation="send",
            collection="outbox",
        ),
    ]


def make_tool_task(
    root: Path, name: str = "renewal-mail", middleware: list[dict[str, Any]] | None = None
) -> Path:
    """Write the test task under ``root/name`` and return its folder."""
    config = ToolTaskConfig(
        task_id=name,
        family="test",
        prompt="Email Acme Corp's contact about their renewal, then say whom you emailed.",
        services=["crm", "mail"],
        tools=tool_defs(),
        middleware=[MiddlewareDef(**layer) for layer in middleware or []],
    )
    return write_tool_task(root / name, config, FIXTURES, SOLUTION, GRADER)
