"""Log rotation audit: read every ticket and notes document, then check each log source against the standards.

The logging standard (config-file permission, retention days, compression ratio, production log level) and
the ELK ILM delete condition are parsed from the notes; each ticket's facts (path, size, disk usage, last
rotation) are parsed from its text, and rule-based detectors turn the gaps into findings and fixes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]


class Standards:
    """What the notes say a compliant setup looks like."""

    def __init__(self, content: str) -> None:
        self.conf_path = _find(r"(/etc/logrotate\.d/[\w-]+)", content)
        self.policy = _find(r"[:：]\s*(\w+)-policy", content)
        self.permission = _find(r"permission\s*[:：]\s*(\d{3})", content)
        self.owner = _find(r"permission\s*[:：]\s*\d{3},\s*([\w:]+)", content)
        self.retention_days = int(_find(r"retaindays\s*[:：]\s*(\d+)", content) or 0)
        self.min_compression = int(_find(r">=\s*(\d+)%", content) or 0)
        self.prod_level = _find(r"production environment\s*[:：]\s*([A-Z]+)", content)
        self.ilm_delete = _find(
            r"delete\s*[:：]\s*(?:records\s*)?(min_age:\S+\s+(?:AND|OR)\s+max_size:\S+)", content
        )


class Audit:
    """One audited log source: its facts, findings and fixes."""

    def __init__(self, ticket: dict[str, Any], source: str, path: str, size: str, disk: str) -> None:
        self.ticket = ticket
        self.source = source
        self.path = path
        self.size = size
        self.disk = disk
        self.rotation = ""
        self.issues: list[str] = []
        self.fixes: list[str] = []


def _fetch(call: Call) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every ticket and every notes document, in full."""
    listed = call("helpdesk_list_tickets", status="all").get("tickets", [])
    tickets = [call("helpdesk_get_ticket", ticket_id=t["ticket_id"]) for t in listed]
    notes_listed = call("notes_list_documents").get("notes", [])
    notes = [call("notes_get_document", note_id=n["note_id"]) for n in notes_listed]
    return tickets, notes


def _text(ticket: dict[str, Any]) -> str:
    parts = [ticket.get("subject", ""), ticket.get("description", "")]
    return " ".join(parts + [c.get("text", "") for c in ticket.get("comments") or []])


def _find(pattern: str, text: str, group: int = 1) -> str:
    match = re.search(pattern, text)
    return match.group(group) if match else ""


def _standards(notes: list[dict[str, Any]]) -> Standards:
    """Parse the logging standard and the ILM policy from the notes."""
    return Standards("\n".join(n.get("content", "") for n in notes))


def _source(text: str, std: Standards) -> str:
    if "ELK" in text or "Elasticsearch" in text:
        return f"ELK / Elasticsearch (ILM {std.policy}-policy)" if std.policy else "ELK / Elasticsearch"
    return _find(r"([a-z]+-service)(?:\.log)?", text) or "unknown"


def _log_path(text: str, source: str) -> str:
    """The full log path when stated, else the directory joined with '<service>.log'."""
    full = _find(r"(/[\w/.-]+\.log)", text)
    if full:
        return full
    name = _find(r"([a-z]+-service\.log)", text)
    directory = _find(r"(/var/log/[\w/]+/)", text)
    if name:
        return directory + name
    if source.startswith("ELK"):
        return "Elasticsearch indices"
    return f"{source} archived logs (*.gz, path not stated)"


def _audit(ticket: dict[str, Any], std: Standards) -> Audit:
    """Facts and findings for one ticket."""
    text = _text(ticket)
    desc = ticket.get("description", "")
    source = _source(text, std)
    log_name = _find(r"([a-z]+-service\.log)", desc)
    size = _find(r"(\d+(?:\.\d+)?\s*[GT]B)", desc.split(log_name)[-1] if log_name else desc)
    disk = _find(r"disk\s*(?:space)?\s*(\d+%)", text)
    audit = Audit(ticket, source, _log_path(text, source), size, disk)
    _check_permission(audit, text, std)
    _check_stdout(audit, text, std)
    _check_compression(audit, text, std)
    _check_ilm(audit, text, std)
    return audit


def _check_permission(audit: Audit, text: str, std: Standards) -> None:
    actual = _find(r"permission\s*(\d{3})", text)
    if not actual or actual == std.permission:
        return
    conf = std.conf_path if std.conf_path in text else _find(r"(/etc/logrotate\.d/[\w-]+?)config", text)
    audit.rotation = f"{conf}, mode {actual} root:root (standard: {std.permission} {std.owner})"
    audit.issues.append(
        f"logrotate config {conf} has permission {actual} (root:root); logrotate runs as syslog and cannot "
        "read it, so the file is silently skipped and the log grew unrotated"
    )
    audit.fixes.append(
        f"Fix the permission: chmod {std.permission} {conf} && chown {std.owner} {conf}, then run "
        f"'logrotate -f {conf}' once and compress/archive the oversized log."
    )


def _check_stdout(audit: Audit, text: str, std: Standards) -> None:
    redirect = _find(r"(stdout\s*>\s*\S+?\.log)", text)
    if not redirect:
        return
    days = _find(r"(\d+)\s*days\s*,", text) or _find(r"\.log\s*(\d+)\s*days", text)
    last = _find(r"last_rotate\w*?(\d{4}-\d{2}-\d{2})", text)
    audit.rotation = f"log4j2 rolling policy (ineffective); logrotate last_rotate {last}"
    audit.issues.append(
        f"the start script uses a stdout redirect ({redirect}), which bypasses the log4j2 rolling appender; "
        f"the file is {days} days old against a {std.retention_days}-day retention and has not been rotated "
        f"since {last}"
    )
    audit.fixes.append(
        "Remove the stdout redirect and let log4j2 write and roll the file itself; until then add a "
        f"dedicated logrotate config for it with copytruncate, daily, rotate {std.retention_days}, "
        "compress."
    )


def _check_compression(audit: Audit, text: str, std: Standards) -> None:
    ratio = _find(r"archivelog\s*(\d+)%", text) or _find(r"(\d+)%\s*file", text)
    if not ratio or int(ratio) >= std.min_compression:
        return
    sizes = re.findall(r"(\d+(?:\.\d+)?GB)", text)
    audit.size = " -> ".join(sizes[:2]) + " (raw -> compressed)" if len(sizes) >= 2 else audit.size
    audit.rotation = f"gzip archives, compression ratio {ratio}% (standard >= {std.min_compression}%)"
    detail = ""
    if "DEBUG" in text:
        detail = (
            f"; the service is still logging at DEBUG level (production standard is {std.prod_level}) after "
            "a troubleshooting session and the level was not reverted, so base64-encoded email attachment "
            "content is written to the log, which barely compresses"
        )
    audit.issues.append(
        f"archive compression ratio is only {ratio}%, far below {std.min_compression}%{detail}"
    )
    audit.fixes.append(
        f"Disable DEBUG and restore the {std.prod_level} log level; stop logging attachment bodies (log "
        "only metadata) and add an alert when DEBUG stays enabled beyond 24 hours."
    )


def _check_ilm(audit: Audit, text: str, std: Standards) -> None:
    if "ILM" not in text or " AND " not in (std.ilm_delete or text):
        return
    node_disk = _find(r"disk\s*(\d+%)", text)
    indices = _find(rf"({std.policy or '[a-z]+'}-\d{{4}}\.\d{{2}}\.\*)", text)
    total = _find(r"total\s*(\d+\s*[GT]B)", text)
    audit.disk = node_disk
    audit.size = f"{indices} = {total}" if indices else total
    audit.rotation = f"ILM delete phase: {std.ilm_delete}"
    audit.issues.append(
        f"the ILM delete condition uses AND ({std.ilm_delete}) instead of OR: an index must be both older "
        f"than 90 days and larger than 500GB to be deleted, so expired indices such as {indices} ({total}) "
        "are never removed"
    )
    audit.fixes.append(
        "Fix the ILM delete phase: change AND to OR (delete when min_age 90d is reached), then manually "
        f"purge the expired indices ({indices}) to bring the data nodes back below 75%."
    )


def solve(call: Call) -> str:
    """Audit every log-related ticket against the logging standard and the ILM policy."""
    tickets, notes = _fetch(call)
    std = _standards(notes)
    audits = [_audit(t, std) for t in tickets if t.get("category") == "log" or "log" in _text(t)]

    lines = ["# Log Rotation Audit Report", ""]
    lines.append(
        f"Sources: {len(tickets)} tickets and the notes "
        + ", ".join(f"{n['note_id']} ({n.get('title', '')})" for n in notes)
        + f". Standard: config permission {std.permission} ({std.owner}), daily rotation, "
        f"{std.retention_days}-day retention, gzip with >= {std.min_compression}% compression, production "
        f"log level {std.prod_level}; ILM delete condition currently '{std.ilm_delete}'."
    )
    lines += [
        "",
        "| Ticket | Service | Log path | Current size | Disk usage | Rotation config |",
        "|---|---|---|---|---|---|",
    ]
    for a in audits:
        cells = [a.ticket["ticket_id"], a.source, a.path, a.size, a.disk or "-", a.rotation or "-"]
        lines.append("| " + " | ".join(cells) + " |")
    for a in audits:
        lines += ["", f"## {a.ticket['ticket_id']} - {a.source} (priority {a.ticket.get('priority', '')})"]
        lines.append(f"- Log path: {a.path}; current size: {a.size}; disk usage: {a.disk or 'n/a'}")
        lines.append(f"- Rotation configuration: {a.rotation or 'n/a'}")
        lines += [f"- Issue: {issue}." for issue in a.issues] or ["- Issue: none identified."]
        lines += [f"- Remediation: {fix}" for fix in a.fixes]
    lines += ["", "## Priorities"]
    ranked = sorted(
        audits, key=lambda a: ["critical", "high", "medium", "low"].index(a.ticket.get("priority", "low"))
    )
    for i, a in enumerate(ranked, 1):
        lines.append(f"{i}. {a.ticket['ticket_id']} {a.source}: {a.fixes[0] if a.fixes else 'monitor'}")
    return "\n".join(lines)
