"""Read the disk alert tickets (server, partition, usage, capacity, breakdown, comments) and the two notes
(threshold policy with response times; cleanup specification with commands). Each alert is compared with
the policy levels, its root cause is inferred from the ticket evidence (rotation not running, binlog
expiry disabled, temp cleanup missing) and matched to the cleanup steps; sorted by usage, highest first.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any


def load(call: Callable[..., Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    listing = call("helpdesk_list_tickets", status="all").get("tickets", [])
    tickets = [
        call("helpdesk_get_ticket", ticket_id=t["ticket_id"])
        for t in listing
        if "disk" in str(t.get("category", "")).lower() or "Utilization" in str(t.get("subject", ""))
    ]
    notes = [
        call("notes_get_document", note_id=n["note_id"])
        for n in call("notes_list_documents").get("notes", [])
    ]
    return tickets, notes


def policy_levels(text: str) -> list[tuple[int, str, str]]:
    """(threshold %, level name, response time) from the policy's response-time section, lowest first."""
    names = {80: "Notice", 85: "Warning", 90: "Critical / urgent", 95: "Emergency"}
    levels = []
    for m in re.finditer(r"-\s*\w*\((\d+)%\):\s*(\d+)\s*small", text):
        pct = int(m.group(1))
        levels.append((pct, names.get(pct, f"{pct}% level"), f"{m.group(2)}h"))
    return sorted(levels)


def parse_alert(t: dict[str, Any]) -> dict[str, Any]:
    subject = str(t.get("subject", ""))
    m = re.match(r"(\S+)\s+(/[\w/]*?)(?:district|\s).*?(\d+)%", subject)
    desc = str(t.get("description", ""))
    cap = re.search(r"(?:Total capacity|total)\s*(\d+GB)，alreadyUsing\s*([\d.]+GB)", desc)
    usage = re.search(r"Usage：([^。]+)", desc)
    return {
        "ticket": t,
        "server": m.group(1) if m else "?",
        "partition": m.group(2) if m else "?",
        "usage": int(m.group(3)) if m else 0,
        "capacity": cap.group(1) if cap else "n/a",
        "used": cap.group(2) if cap else "n/a",
        "breakdown": usage.group(1).replace("、", ", ") if usage else "n/a",
        "text": desc + " " + " ".join(str(c.get("text", "")) for c in t.get("comments", [])),
    }


def root_cause(a: dict[str, Any]) -> str:
    text = a["text"]
    low = text.lower()
    if "logrotate" in low and ("not executed" in low or "anomaly" in low):
        last = re.search(r"RotationTimeas\s*(\d+)month(\d+)day", text)
        since = f" (access.log last rotated on {last.group(1)}/{last.group(2)})" if last else ""
        return (
            "log rotation is not running: the logrotate cron task did not execute because the crond service "
            "is "
            f"in an abnormal state{since}, so nginx / application / system logs keep growing"
        )
    if "expire_logs_days" in low:
        cur = re.search(r"expire_logs_days\s*current\s*as\s*(\d+)", text)
        return (
            f"binlog accumulation: expire_logs_days is {cur.group(1) if cur else 'unset'} (automatic binlog "
            "cleanup disabled), so binary logs pile up; the policy requires 7 days"
        )
    if "tmp" in a["partition"]:
        return (
            "temporary files are not cleaned up: upload_tmp holds files older than 30 days because its "
            "cleanup "
            "script was left out of the last deployment"
        )
    return "growth not explained by the ticket; investigate the largest directories"


def cleanup(a: dict[str, Any], spec: str) -> list[str]:
    """Cleanup steps from the specification section that matches the partition."""
    sections = dict(re.findall(r"## ([^\n]+)\n(.*?)(?=\n## |\Z)", spec, re.S))
    if a["partition"].startswith("/var/log"):
        keys = [k for k in sections if "Nginx" in k or "Application" in k]
        pre = ["Restart crond (systemctl restart crond) and verify the logrotate cron task runs daily."]
    elif a["partition"].startswith("/data"):
        keys = [k for k in sections if "Binlog" in k]
        pre = [
            "Binlogs are needed 7 days for master-slave replication: confirm the replicas are caught up "
            "first."
        ]
    else:
        keys = [k for k in sections if "Temporary" in k]
        pre = ["Restore the missing upload_tmp cleanup script and schedule it in cron (daily)."]
    steps = list(pre)
    for k in keys:
        for line in re.findall(r"^\d+\.\s*(.+)$", sections[k], re.M):
            cmd = re.search(r":\s*(.+)$", line)
            if cmd and re.match(r"(logrotate|find|SET|PURGE|SHOW)\b", cmd.group(1).strip()):
                steps.append(f"`{cmd.group(1).strip()}`")
    return steps


def solve(call: Callable[..., Any]) -> str:
    """Analyse every disk usage alert against the threshold policy and return the report."""
    tickets, notes = load(call)
    policy = next((str(n.get("content", "")) for n in notes if "Threshold" in str(n.get("title", ""))), "")
    spec = next((str(n.get("content", "")) for n in notes if "Cleanup" in str(n.get("title", ""))), "")
    levels = policy_levels(policy) or [(85, "Warning", "24h")]
    alert_threshold = next((p for p, _, _ in levels if p == 85), levels[0][0])
    alerts = sorted((parse_alert(t) for t in tickets), key=lambda a: -a["usage"])

    out = ["# Disk Usage Alert Report", ""]
    out += [
        "Threshold policy: "
        + "; ".join(f"{name} {pct}% (respond within {rt})" for pct, name, rt in levels)
        + f". Alert threshold applied: {alert_threshold}%.",
        "",
        "Urgency order: " + " > ".join(f"{a['server']} ({a['usage']}%)" for a in alerts),
        "",
        "| Urgency | Service / server | Partition | Utilization | Threshold | Over threshold? | Level "
        "reached "
        "| Respond within |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, a in enumerate(alerts, 1):
        reached = [lv for lv in levels if a["usage"] >= lv[0]]
        pct, name, rt = reached[-1] if reached else (0, "below policy", "-")
        over = "yes" if a["usage"] > alert_threshold else "no"
        out.append(
            f"| {i} | {a['server']} ({a['ticket']['ticket_id']}) | {a['partition']} | {a['usage']}% | "
            f"{alert_threshold}% | {over} (+{a['usage'] - alert_threshold} pts) | {name} ({pct}%) | {rt} |"
        )
    out.append("")
    for i, a in enumerate(alerts, 1):
        out += [
            f"## {i}. {a['server']} {a['partition']} — {a['usage']}% (threshold {alert_threshold}%)",
            "",
            f"- Capacity: {a['used']} used of {a['capacity']}; main consumers (from the alert): "
            f"{a['breakdown']}.",
            f"- Root cause: {root_cause(a)}.",
            "- Cleanup recommendations:",
            *[f"  {n}. {step}" for n, step in enumerate(cleanup(a, spec), 1)],
            "",
        ]
    out += [
        "## Prevention",
        "",
        "- Monitor crond / logrotate execution and alert when a rotation is missed.",
        "- Keep expire_logs_days=7 in the MySQL configuration file so it survives restarts.",
        "- Make the temp-file cleanup job part of the deployment checklist.",
    ]
    return "\n".join(out)
