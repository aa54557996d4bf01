"""Join the strategic accounts from CRM (annual contract, renewal date, satisfaction tag) with their emails
(matched by sender domain) and finance records (revenue minus credits). Four 1-10 dimension scores come
from explicit rules (revenue share, tag + email sentiment, renewal proximity / threats / complaints,
upsell history + new budgets) and a weighted health score; the report flags risks and expansion deals.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

WEIGHTS = {"financial": 0.25, "satisfaction": 0.25, "renewal": 0.30, "expansion": 0.20}
TAG_SCORE = {"high": 8, "medium": 6, "low": 4}
POSITIVE = ("worked great", "improved", "no issues", "can sign")
NEGATIVE = ("not been satisfied", "not satisfied", "gone down", "complaint", "cost us", "slow")
THREAT = ("switch to", "switching to", "another vendor")
COMPLAINT = ("outage", "gone down", "not been satisfied", "slow", "complaint")


def clamp(v: float) -> int:
    return int(max(1, min(10, round(v))))


def parse_notes(notes: str) -> dict[str, str]:
    fields = {}
    for part in notes.split("|"):
        if ":" in part:
            k, v = part.split(":", 1)
            fields[k.strip().lower()] = v.strip()
    return fields


def gather(call: Callable[..., Any]) -> list[dict[str, Any]]:
    accounts = [
        call("crm_get_customer", customer_id=c["customer_id"])
        for c in call("crm_list_customers").get("customers", [])
    ]
    listing = call("gmail_list_messages", days_back=120).get("messages", [])
    mails = [call("gmail_get_message", message_id=m["message_id"]) for m in listing]
    txns = call("finance_list_transactions").get("transactions", [])
    rows = []
    for a in accounts:
        notes = str(a.get("notes", ""))
        if "strategic" not in notes.lower() and "key account" not in notes.lower():
            continue
        fields = parse_notes(notes)
        domain = str(a.get("email", "")).split("@")[-1].lower()
        own_mails = [m for m in mails if domain and domain in str(m.get("from", "")).lower()]
        own_txns = [t for t in txns if str(t.get("description", "")).split(" - ")[0].strip() == a["name"]]
        rows.append({"crm": a, "fields": fields, "mails": own_mails, "txns": own_txns})
    return rows


def money_m(v: float) -> str:
    return f"{v / 1e6:.2f}M".replace(".00M", "M")


def analyse(rows: list[dict[str, Any]]) -> None:
    """Add revenue figures, signals and dimension / health scores to every row."""
    as_of = max(date.fromisoformat(str(r["crm"].get("last_contact"))) for r in rows)
    for r in rows:
        inflow = [t for t in r["txns"] if t.get("type") == "revenue"]
        credits = [t for t in r["txns"] if t.get("type") != "revenue"]
        r["gross"] = sum(float(t["amount"]) for t in inflow)
        r["credits"] = sum(float(t["amount"]) for t in credits)
        r["net"] = r["gross"] - r["credits"]
        r["upsells"] = [t for t in inflow if t.get("category") == "upsell"]
        r["services"] = [t for t in inflow if t.get("category") == "service"]
        text = " ".join(str(m.get("body", "")) for m in r["mails"]).lower()
        r["text"] = text
        renewal = date.fromisoformat(r["fields"].get("renewal", as_of.isoformat()))
        r["renewal"] = renewal
        r["days"] = (renewal - as_of).days
        r["threat"] = any(w in text for w in THREAT)
        r["competitor"] = next((n for n in ("SAP", "Oracle", "Salesforce") if n.lower() in text), "")
        r["complaint"] = any(w in text for w in COMPLAINT)
        cut = re.search(r"reduced by (\d+)%", text)
        r["price_cut"] = int(cut.group(1)) if cut else 0
        budget = re.search(r"budget (?:of|is) (?:about |approximately )?([\d.]+) million", text)
        r["new_budget"] = float(budget.group(1)) * 1e6 if budget else 0.0
        loss = re.search(r"cost us at least ([\d,]+)", text)
        r["claimed_loss"] = float(loss.group(1).replace(",", "")) if loss else 0.0
        acv = re.search(r"Annual contract ([\d.]+)M", str(r["crm"].get("notes", "")))
        r["acv"] = float(acv.group(1)) * 1e6 if acv else float(r["crm"].get("deal_value", 0))
    top = max(r["net"] for r in rows) or 1.0
    for r in rows:
        pos = any(w in r["text"] for w in POSITIVE)
        neg = any(w in r["text"] for w in NEGATIVE)
        dims = {
            "financial": clamp(4 + 6 * r["net"] / top),
            "satisfaction": clamp(
                TAG_SCORE.get(r["fields"].get("satisfaction", "").lower(), 6)
                + (1 if pos else 0)
                - (2 if neg else 0)
            ),
            "renewal": clamp(
                10
                - (2 if r["days"] < 60 else 1 if r["days"] < 120 else 0)
                - (2 if r["threat"] else 0)
                - (2 if r["complaint"] else 0)
                - (1 if r["price_cut"] else 0)
            ),
            "expansion": clamp(
                5
                + (2 if r["upsells"] else 0)
                + (
                    1
                    if any("development" in str(t.get("description", "")).lower() for t in r["services"])
                    else 0
                )
                + (3 if r["new_budget"] else 0)
                - (2 if r["threat"] else 0)
            ),
        }
        r["dims"] = dims
        r["health"] = round(sum(dims[k] * w for k, w in WEIGHTS.items()), 1)
        r["status"] = "healthy" if r["health"] >= 7.5 else "watch" if r["health"] >= 5 else "high risk"


def findings(r: dict[str, Any]) -> list[str]:
    out = [
        f"Cumulative revenue {money_m(r['gross'])}"
        + (
            f", less {r['credits']:,.0f} service compensation = net {money_m(r['net'])}"
            if r["credits"]
            else ""
        )
        + (
            "; upsells " + ", ".join(f"{float(t['amount']):,.0f}" for t in r["upsells"])
            if r["upsells"]
            else ""
        )
        + ".",
        f"CRM satisfaction tag: {r['fields'].get('satisfaction', 'n/a')}; renewal {r['renewal']} "
        f"({r['days']} days out).",
    ]
    if r["complaint"]:
        out.append("Complaint in recent email: " + summary_of(r) + ".")
    if r["threat"]:
        out.append(
            "Competitor threat: customer says it may switch"
            + (f" to {r['competitor']}" if r["competitor"] else "")
            + (f" unless the renewal price drops {r['price_cut']}%" if r["price_cut"] else "")
            + "."
        )
    if r["new_budget"]:
        out.append(f"New demand: about {money_m(r['new_budget'])} budget signalled — expansion opportunity.")
        out += [f'Customer\'s words: "{s}"' for s in demand_sentences(r)]
    deadline = re.search(r"by the end of (\w+)", r["text"])
    if deadline:
        out.append(f"Deadline: final proposal requested by the end of {deadline.group(1).title()}.")
    if any(w in r["text"] for w in POSITIVE):
        out.append("Positive sentiment: customer reports good results and is ready to renew.")
    return out


def demand_sentences(r: dict[str, Any]) -> list[str]:
    """Email sentences describing the new demand (those around the budget figure)."""
    body = " ".join(str(m.get("body", "")) for m in r["mails"])
    sentences = re.split(r"(?<=[.!?])\s+", body)
    idx = next((i for i, x in enumerate(sentences) if "budget" in x.lower()), None)
    return [] if idx is None else [x.strip() for x in sentences[max(0, idx - 1) : idx + 1]]


def summary_of(r: dict[str, Any]) -> str:
    parts = []
    times = re.search(r"down (\d+) times", r["text"])
    if times:
        parts.append(f"{times.group(1)} system outages this month")
    if r["claimed_loss"]:
        parts.append(f"claimed loss of at least {r['claimed_loss']:,.0f} yuan")
    if "slow" in r["text"]:
        parts.append("slow response times and feature delivery")
    if "not been satisfied" in r["text"]:
        parts.append("dissatisfied with service quality over the past year")
    return "; ".join(parts) or "service issues"


def actions(r: dict[str, Any]) -> list[str]:
    acts = []
    if r["status"] == "high risk":
        acts.append(f"Executive escalation within the week; renewal is {r['days']} days away.")
    if r["price_cut"]:
        acts.append(
            f"Prepare the final renewal proposal before the deadline: a service-improvement plan with SLA "
            f"commitments instead of a flat {r['price_cut']}% cut (offer a limited concession tied to a "
            "multi-year term)."
        )
    if "outage" in r["text"] or "gone down" in r["text"]:
        acts.append(
            "Send a root-cause analysis and stability plan for the outages, with a dedicated support "
            "engineer, "
            "before renewal talks; consider a service credit."
        )
    if r["new_budget"]:
        acts.append(f"Scope the {money_m(r['new_budget'])} opportunity now (requirements visit, proposal).")
    if r["status"] == "healthy" and not r["threat"]:
        acts.append("Close the renewal early and keep the quarterly business review cadence.")
    return acts


def solve(call: Callable[..., Any]) -> str:
    """Score every strategic account from CRM, email and finance data and return the health report."""
    rows = gather(call)
    analyse(rows)
    rows.sort(key=lambda r: -r["health"])
    total_acv = sum(r["acv"] for r in rows)
    risky = sorted((r for r in rows if r["status"] == "high risk"), key=lambda r: r["days"])
    expand = sorted((r for r in rows if r["new_budget"]), key=lambda r: -r["new_budget"])

    out = ["# Key Account Health Report", ""]
    out += [
        "| Account | Annual contract | Cumulative revenue | Financial | Satisfaction | Renewal risk | "
        "Expansion "
        "| Health score | Status |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        d = r["dims"]
        net = f" (net {money_m(r['net'])})" if r["credits"] else ""
        out.append(
            f"| {r['crm']['name']} | {money_m(r['acv'])} | {money_m(r['gross'])}{net} | {d['financial']} | "
            f"{d['satisfaction']} | {d['renewal']} | {d['expansion']} | **{r['health']}/10** | "
            f"{r['status']} |"
        )
    out += [
        "",
        f"**Total annual contract value: {money_m(total_acv)} ({total_acv:,.0f})** = "
        + " + ".join(money_m(r["acv"]) for r in rows),
        "",
        "Scoring (1-10, higher is healthier): financial = 4 + 6 x net revenue / largest account; "
        "satisfaction = "
        "CRM tag (high 8, medium 6, low 4) +1 positive / -2 negative email; renewal risk = 10 minus 2 if "
        "renewal "
        "< 60 days (1 if < 120), 2 for a competitor / switch threat, 2 for complaints, 1 for a price-cut "
        "demand; "
        "expansion = 5 + 2 upsell history + 1 custom-development spend + 3 new budget - 2 switch threat. "
        "Health = "
        "25% financial + 25% satisfaction + 30% renewal + 20% expansion; >= 7.5 healthy, >= 5 watch, else "
        "high risk.",
        "",
        "## High-Risk Account Alerts (immediate action)",
        "",
        f"{len(risky)} account(s) trigger a high-risk alert, ordered by renewal date (most urgent first):",
        "",
    ]
    for i, r in enumerate(risky, 1):
        urgency = "most urgent" if i == 1 else "urgent"
        out.append(
            f"{i}. **{r['crm']['name']} — high risk, {urgency}** (health {r['health']}/10): renewal "
            f"{r['renewal']} "
            f"({r['days']} days); {money_m(r['acv'])} annual contract at risk; {summary_of(r)}"
            + (f"; threatens to switch to {r['competitor']}" if r["competitor"] else "; may switch vendor")
            + "."
        )
    out += ["", "## Expansion Opportunities (upsell candidates)", ""]
    for r in expand:
        out.append(
            f"- **{r['crm']['name']}** — about {money_m(r['new_budget'])} new budget signalled; health "
            f"{r['health']}/10, expansion score {r['dims']['expansion']}."
        )
    out += ["", "## Account Details", ""]
    for r in rows:
        out += [
            f"### {r['crm']['name']} — {r['status']} ({r['health']}/10)",
            f"- Annual contract: {money_m(r['acv'])}; cumulative revenue: {money_m(r['gross'])}; account "
            "manager "
            f"{r['fields'].get('account manager', 'n/a')}.",
            "- Dimension scores: " + ", ".join(f"{k} {v}" for k, v in r["dims"].items()) + ".",
            "- Key findings:",
            *[f"  - {f}" for f in findings(r)],
            "- Action recommendations:",
            *[f"  - {a}" for a in actions(r)],
            "",
        ]
    return "\n".join(out)
