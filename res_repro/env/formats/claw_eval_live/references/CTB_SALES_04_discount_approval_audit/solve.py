"""Read every email, parse the discount policy email's thresholds (manager / director / VP+ROI bands,
renewal allowance, new-customer cap) and each discount request's customer, price, rate and salesperson.
Each request is checked against the parsed rules (violations first, then the approval band) and the
audit report lists statuses, reasons, counts and recommendations.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any


class Policy:
    """Thresholds parsed from the policy email (defaults only when a line is missing)."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.manager = self._pct(r"≤\s*(\d+)%", 15)
        band = re.search(r"(\d+)%\s*-\s*(\d+)%", body)
        self.director = int(band.group(2)) if band else 30
        self.vp = self._pct(r">\s*(\d+)%", self.director)
        self.renewal_extra = self._pct(r"Renewal\s*(\d+)%", 5)
        self.new_cap = self._pct(r"Upper Limit\s*as\s*(\d+)%", 20)

    def _pct(self, pattern: str, default: int) -> int:
        m = re.search(pattern, self.body)
        return int(m.group(1)) if m else default

    def summary(self) -> list[str]:
        return [
            f"1. Discount <= {self.manager}%: the sales manager can approve.",
            f"2. Discount {self.manager}%-{self.director}%: sales director approval required.",
            f"3. Discount > {self.vp}%: VP approval plus a written ROI justification required.",
            f"4. Existing-customer renewals: +{self.renewal_extra}% allowance on the bands above "
            f"(manager can approve renewals up to {self.manager + self.renewal_extra}%).",
            f"5. New customer, first order: discount capped at {self.new_cap}%.",
        ]


class Request:
    """One discount request parsed from an email."""

    def __init__(self, mail: dict[str, Any]) -> None:
        body = str(mail.get("body", ""))
        subject = str(mail.get("subject", ""))
        self.message_id = mail.get("message_id", "")
        name = subject.split(" - ", 1)[-1].strip()
        self.customer = re.sub(r"(Renewal|Request)$", "", name).strip()
        amounts = [int(x) for x in re.findall(r"(\d+)K", body)]
        self.standard = amounts[0] * 1000 if amounts else 0
        rate = re.search(r"(\d+(?:\.\d+)?)%", body)
        self.rate = float(rate.group(1)) if rate else 0.0
        self.discounted = round(self.standard * (1 - self.rate / 100))
        sign = re.search(r"——\s*([^\n]+)$", body.strip())
        self.salesperson = sign.group(1).strip() if sign else str(mail.get("from", ""))
        self.sender = mail.get("from", "")
        low = body.lower() + " " + subject.lower()
        self.renewal = "renewal" in low
        self.new_customer = bool(re.search(r"new\s*customer", low)) or subject.lower().startswith("new ")
        self.has_roi = "roi" in low or "return on investment" in low
        self.body = body


def evaluate(req: Request, policy: Policy) -> tuple[str, str, str]:
    """(status, required approver, reason) for one request."""
    problems = []
    if req.new_customer and req.rate > policy.new_cap:
        problems.append(f"new-customer first order capped at {policy.new_cap}% but {req.rate:g}% requested")
    if req.rate > policy.vp and not req.has_roi:
        problems.append(
            f"over {policy.vp}% requires VP approval and an ROI justification, and none was provided"
        )
    extra = policy.renewal_extra if req.renewal else 0
    if problems:
        return "Violation", "VP (and reject as submitted)", "; ".join(problems)
    if req.rate > policy.vp:
        return "Needs escalation", "VP", f"{req.rate:g}% is above {policy.vp}%; ROI justification attached"
    if req.rate <= policy.manager + extra:
        why = f"{req.rate:g}% is within the manager limit of {policy.manager + extra}%"
        if extra:
            why += f" ({policy.manager}% + {extra}% renewal allowance for an existing customer)"
        return "Compliant", "Sales manager", why
    return (
        "Needs escalation",
        "Sales director",
        f"{req.rate:g}% is in the {policy.manager}%-{policy.director}% band: above the manager's authority, "
        "director approval needed",
    )


def recommendation(status: str, req: Request, policy: Policy) -> str:
    if status == "Compliant":
        return "Approve at manager level and process."
    if status == "Needs escalation":
        return "Forward to the sales director with the customer justification; hold until signed off."
    steps = []
    if req.new_customer and req.rate > policy.new_cap:
        steps.append(f"reduce to at most {policy.new_cap}% (new-customer cap)")
    if req.rate > policy.vp:
        steps.append("otherwise obtain a written ROI justification and VP approval")
    return "Reject as submitted; " + ", ".join(steps) + f"; remind {req.salesperson} of the policy."


def solve(call: Callable[..., Any]) -> str:
    """Audit every discount request email against the latest policy email and return the report."""
    listing = call("gmail_list_messages", days_back=120).get("messages", [])
    mails = [call("gmail_get_message", message_id=m["message_id"]) for m in listing]
    policy_mails = [m for m in mails if re.search(r"≤\s*\d+%", str(m.get("body", "")))]
    policy_mail = max(policy_mails, key=lambda m: str(m.get("date", "")))
    policy = Policy(policy_mail["body"])
    requests = [
        Request(m) for m in mails if m is not policy_mail and re.search(r"\d+%", str(m.get("body", "")))
    ]
    results = [(r, *evaluate(r, policy)) for r in requests]

    out = ["# Discount Approval Compliance Audit", ""]
    out += [
        f'## Discount Policy (email "{policy_mail.get("subject")}", {str(policy_mail.get("date"))[:10]})',
        "",
        *policy.summary(),
        "",
        "## Per-Request Audit",
        "",
        "| Customer | Standard price | Requested discount | Discounted amount | Salesperson | Approver "
        "needed "
        "| Status |",
        "|---|---|---|---|---|---|---|",
    ]
    for r, status, approver, _ in results:
        out.append(
            f"| {r.customer} | {r.standard:,} CNY | {r.rate:g}% | {r.discounted:,} CNY | {r.salesperson} "
            f"| {approver} | **{status}** |"
        )
    out += ["", "## Findings", ""]
    for r, status, _, reason in results:
        kind = " (existing-customer renewal)" if r.renewal else " (new customer)" if r.new_customer else ""
        out += [
            f"### {r.customer}{kind} — {status}",
            f"- {r.standard:,} CNY at {r.rate:g}% off = {r.discounted:,} CNY; requested by {r.salesperson} "
            f"({r.sender}).",
            f"- Reason: {reason}.",
            f"- Recommendation: {recommendation(status, r, policy)}",
            "",
        ]
    counts = {
        s: sum(1 for _, st, _, _ in results if st == s)
        for s in ("Compliant", "Needs escalation", "Violation")
    }
    out += [
        "## Summary",
        "",
        f"- Compliant: {counts['Compliant']}",
        f"- Needs escalation for approval: {counts['Needs escalation']}",
        f"- Violation: {counts['Violation']}",
        "",
        "## Processing Recommendations",
        "",
        "- Approve the compliant request at manager level.",
        "- Route escalations to the sales director before anything is promised to the customer.",
        "- Reject the violations as submitted; any resubmission above "
        f"{policy.vp}% needs a written ROI case and VP sign-off, and new-customer first orders must stay "
        f"within {policy.new_cap}%.",
        "- Brief the sales team on the updated policy; check discounts against it before quoting.",
    ]
    return "\n".join(out)
