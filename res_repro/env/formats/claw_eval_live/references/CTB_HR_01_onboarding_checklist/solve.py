"""Onboarding checklists for next week's new hires.

New hires are the pending personnel records in onboarding; start dates come from their notes,
requests from the numbered items of emails that name them, the training schedule from the training
email, and mentors from active records whose notes name the hire. Each checklist combines standard
items with the parsed requests; blank or unclear request items are listed as open questions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

SURNAMES = ("zhang", "wang", "li", "liu", "chen", "yang", "zhao", "huang", "zhou", "wu", "sun", "ma")
# request wording -> checklist item (first match wins)
REQUEST_ITEMS: list[tuple[str, str]] = [
    (r"laptop", "Laptop and peripherals as requested"),
    (r"access card|badge", "Access badge"),
    (r"mentor", "Department mentor"),
    (r"github", "GitHub Enterprise account"),
    (r"aws", "AWS permissions"),
    (r"crm", "CRM access"),
    (r"sap", "SAP access"),
    (r"^u", "Bank USB key (U-key) for online banking"),
]


def _name_from_email(address: str) -> str:
    """A display name from a pinyin mailbox such as 'liming@...' (surname first)."""
    local = address.split("@")[0].lower()
    for surname in sorted(SURNAMES, key=len, reverse=True):
        if local.startswith(surname) and len(local) > len(surname):
            return f"{surname.capitalize()} {local[len(surname) :].capitalize()}"
    return local


def _start_date(notes: str) -> str:
    """Start date from notes such as '202641onboarding' (year, month, day)."""
    match = re.search(r"(20\d\d)(\d)(\d{1,2})\s*onboarding", notes)
    return f"{match.group(1)}-{int(match.group(2)):02d}-{int(match.group(3)):02d}" if match else "unknown"


def _numbered(body: str) -> list[tuple[int, str]]:
    """Numbered request items of an email body."""
    return [
        (int(m.group(1)), m.group(2).strip(" ，,。"))
        for m in re.finditer(r"^[ \t]*(\d+)\.[ \t]*(.*)$", body, re.M)
    ]


def _request(text: str) -> str | None:
    """Checklist item for one request line, or None when it cannot be read."""
    for pattern, item in REQUEST_ITEMS:
        if re.search(pattern, text, re.IGNORECASE):
            return item
    return None


def _training(emails: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(date, session) pairs from the training reminder."""
    sessions = []
    for email in emails:
        if "training" not in str(email.get("subject", "")).lower():
            continue
        for m in re.finditer(r"^- *4(\d{1,2})[：:]\s*(.+)$", str(email["body"]), re.M):
            topic = m.group(2).lower()
            name = (
                "Company culture / policy training"
                if "policy" in topic
                else "IT security training"
                if "it" in topic.split("training")[0]
                else "Department orientation"
            )
            sessions.append((f"2026-04-{int(m.group(1)):02d}", name))
    return sessions


def solve(call: Call) -> str:
    """Build per-hire onboarding checklists and the consolidated preparation report."""
    people = [
        call("crm_get_customer", customer_id=c["customer_id"])
        for c in call("crm_list_customers")["customers"]
    ]
    hires = [p for p in people if p.get("status") == "pending" and p.get("deal_stage") == "onboarding"]
    headers = call("gmail_list_messages", days_back=30)["messages"]
    emails = [call("gmail_get_message", message_id=m["message_id"]) for m in headers]
    sessions = _training(emails)

    lines = [
        "# New Hire Onboarding Preparation Report",
        "",
        f"New hires starting next week: {len(hires)}. Training schedule from the training team: "
        + "; ".join(f"{d} {s}" for d, s in sessions)
        + ".",
        "",
        "| Employee | ID | Department | CRM notes | Start date | Mentor |",
        "|---|---|---|---|---|---|",
    ]
    plans = []
    open_items: list[str] = []
    for hire in hires:
        name, dept = hire["name"], hire.get("company") or hire.get("industry")
        mentors = [
            p
            for p in people
            if p is not hire
            and p.get("status") == "active"
            and name.replace(" ", "").lower() in str(p.get("notes", "")).replace(" ", "").lower()
            and "mentor" in str(p.get("notes", "")).lower()
        ]
        mentor = (
            ", ".join(
                f"{p.get('name') or _name_from_email(str(p.get('email', '')))} ({p['customer_id']})"
                for p in mentors
            )
            or "not yet assigned"
        )
        start = _start_date(str(hire.get("notes", "")))
        role = str(hire.get("notes", "")) or "n/a"
        lines.append(f"| {name} | {hire['customer_id']} | {dept} | {role} | {start} | {mentor} |")

        specific, unclear = [], []
        for email in emails:
            if name not in f"{email.get('subject', '')} {email.get('body', '')}":
                continue
            for number, text in _numbered(str(email["body"])):
                item = _request(text)
                if item and item not in specific:
                    specific.append(item)
                elif not item:
                    unclear.append(f"{email['message_id']} item {number} ('{text or 'blank'}')")
        missed = [f"{d} {s}" for d, s in sessions if d < start]
        plans.append((hire, name, dept, start, mentor, specific, unclear, missed))
        if unclear:
            open_items.append(
                f"{name}: request details unreadable or missing in {'; '.join(unclear)}; confirm "
                "with the recruiter / hiring manager."
            )
        if missed:
            open_items.append(
                f"{name} starts {start} and misses {', '.join(missed)}; schedule make-up sessions."
            )
        if not mentors:
            open_items.append(f"{name}: buddy/mentor assignment pending approval from the department head.")

    for hire, name, dept, start, mentor, specific, unclear, _ in plans:
        lines += [
            "",
            f"## {name} ({hire['customer_id']}), {dept}, starts {start}",
            "",
            "**IT setup**",
            "- [ ] Laptop imaged and delivered before day one",
            f"- [ ] Corporate email account ({hire.get('email', 'to be created')})",
            "- [ ] Network / VPN / system access",
        ]
        lines += [f"- [ ] {item}" for item in specific if item not in ("Department mentor",)]
        lines += [
            "",
            "**HR paperwork**",
            "- [ ] Employment contract signed",
            "- [ ] Tax forms and bank details",
            "- [ ] Benefits enrollment",
            "- [ ] Access badge photo and issue",
            "",
            "**Department orientation**",
            f"- [ ] {dept} team introduction and orientation on the first day (department session "
            f"{', '.join(d for d, s in sessions if 'orientation' in s.lower())})",
            "",
            "**Buddy / mentor**",
            f"- [ ] Mentor: {mentor}",
            "",
            "**First-week training plan**",
        ]
        lines += [
            f"- [ ] {d}: {s}" + (" (before start date: make-up session needed)" if d < start else "")
            for d, s in sessions
        ]
        lines.append(f"- [ ] Role-specific system training for {dept} tools during week one")
        if unclear:
            lines.append("- Open: " + "; ".join(unclear))

    lines += ["", "## Missing information and pending approvals", ""]
    lines += [f"- {item}" for item in open_items] or ["- None"]
    lines += [
        "",
        "## Consolidated summary",
        "",
        f"- {len(hires)} hires: " + ", ".join(f"{p[1]} ({p[2]}, {p[3]})" for p in plans) + ".",
        "- Common to all: laptop, corporate email, access badge, contract/tax/benefits paperwork, company "
        "culture and IT security training.",
        "- IT must complete accounts and permissions at least one day before each start date.",
    ]
    return "\n".join(lines)
