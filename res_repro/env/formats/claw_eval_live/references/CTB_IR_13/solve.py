"""Semiconductor supply chain risk: web research plus the supplier emails in the inbox.

Market and export-control figures are parsed from the fetched pages; the delivery delay and the
vendor risk ratings come from the emails. Sourcing weights are re-assigned by risk (lowest risk gets
the largest weight). The report is in English with Chinese glosses of key terms for the local team.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

Call = Callable[..., Any]

QUERIES = (
    "2026 global semiconductor supply chain market",
    "2026 chip export restrictions controls",
    "HBM supply TSMC advanced process capacity",
)
RISK_ORDER = {"low": 0, "medium": 1, "high": 2, "extreme": 3}
RISK_ZH = {"low": "低风险", "medium": "中风险", "high": "高风险"}


def web_text(call: Call) -> tuple[str, list[str]]:
    """Text of every distinct page found by the searches, and a source list."""
    texts: dict[str, str] = {}
    sources: list[str] = []
    for query in QUERIES:
        for hit in call("web_search", query=query).get("results", []):
            url = hit.get("url", "")
            if url and url not in texts:
                texts[url] = call("web_get_page", url=url).get("content") or hit.get("snippet", "")
                sources.append(f"{hit.get('title', '')} ({url})")
    return "\n".join(texts.values()), sources


def emails(call: Call) -> list[dict[str, Any]]:
    """Every inbox message in full."""
    listing = call("gmail_list_messages", days_back=3650, max_results=100).get("messages", [])
    return [call("gmail_get_message", message_id=m["message_id"]) for m in listing]


def grab(pattern: str, text: str, default: str = "") -> str:
    """First group of the first match, or ``default``."""
    found = re.search(pattern, text)
    return found.group(1) if found else default


def parse_market(text: str) -> dict[str, Any]:
    """Supply/demand and geopolitical figures from the web pages."""
    shares = dict(re.findall(r"(TSMC|Samsung|Intel)[^,.;]*? (?:at )?(\d+)%", text))
    controls = re.findall(r"\d\) ([^;.]+)", grab(r"including: ([^.]+\.)", text))
    return {
        "size_bn": int(grab(r"market size reached (\d+) billion USD", text, "0")),
        "ai_growth": grab(r"AI chips growing (\d+%)", text),
        "fabs": grab(r"only (\d+) fabs", text),
        "shares": shares,
        "mature": grab(r"capacity saw YoY growth of (\d+%)", text),
        "hbm_leader": grab(r"with ([A-Z][\w ]+?) holding \d+%", text),
        "hbm_share": grab(r"holding (\d+%) market share", text),
        "hbm_backlog": grab(r"(\d+-month) order backlog", text),
        "control_date": grab(r"In (\w+ \d{4}), updated chip export controls", text),
        "controls": [c.strip() for c in controls],
        "asml": grab(r"(ASML announced [^.]+)\.", text),
        "entities": grab(r"additional (\d+) semiconductor entities", text),
        "ascend_perf": grab(r"approximately (\d+%) of the A100", text),
    }


def parse_delay(body: str) -> dict[str, Any]:
    """The supplier's delivery-delay notice."""
    dates = re.findall(r"(\w+ \d{1,2}, \d{4})", body)
    parsed = [datetime.strptime(d, "%B %d, %Y") for d in dates[:2]]
    return {
        "units": grab(r"the (\d+) units", body),
        "product": grab(r"units of (\w+)", body),
        "po": grab(r"\((PO-[\w-]+)\)", body),
        "from": parsed[0] if parsed else None,
        "to": parsed[1] if len(parsed) > 1 else None,
        "weeks": grab(r"approximately (\d+) weeks", body),
        "cause": grab(r"Due to ([^,]+(?:,[^,]+)?), the", body),
        "alt": grab(r"offer ([\w ]+?) as an alternative", body),
        "alt_lead": grab(r"approximately (\d+-week) lead time", body),
    }


def parse_ratings(body: str) -> dict[str, Any]:
    """Vendor ratings, proposed allocation and budget from the annual evaluation email."""
    ratings = []
    for vendor, rating, reason in re.findall(r"(\w+) \(([^)]*Risk[^)]*)\): ([^;.]+)", body):
        levels = re.findall(r"(Low|Medium|High|Extreme)", rating)
        ratings.append({"vendor": vendor, "was": levels[0], "now": levels[-1], "reason": reason.strip()})
    split = re.findall(r"(\w+) (\d+)%", grab(r"allocation to ([^.]+)\.", body))
    return {
        "ratings": ratings,
        "split": [(v, int(p)) for v, p in split],
        "budget_m": int(grab(r"budget of (\d+)M CNY", body, "0")),
    }


def supplier_section(ratings: dict[str, Any], delay: dict[str, Any]) -> list[str]:
    """Supplier risk table and the re-weighted sourcing split."""
    out = [
        "## 2. Key supplier risk ratings (供应商风险评级)",
        "",
        "| Supplier | Previous | Current | Trend | Basis |",
        "|---|---|---|---|---|",
    ]
    for r in ratings["ratings"]:
        trend = "unchanged"
        if RISK_ORDER[r["now"].lower()] < RISK_ORDER[r["was"].lower()]:
            trend = "improving"
        elif RISK_ORDER[r["now"].lower()] > RISK_ORDER[r["was"].lower()]:
            trend = "worsening"
        name = "Huawei (Ascend, 华为昇腾)" if r["vendor"] == "Huawei" else r["vendor"]
        zh = RISK_ZH.get(r["now"].lower(), "")
        out.append(f"| {name} | {r['was']} | {r['now']} ({zh}) | {trend} | {r['reason']} |")
    out += [
        "",
        f"Observation: {delay['product']} supply from NVIDIA is already slipping ({delay['weeks']} weeks on "
        f"{delay['po']}), so NVIDIA's high rating is being realised now, not just a forecast; it is the "
        "most exposed supplier in the portfolio.",
    ]
    return out


def mitigation_section(ratings: dict[str, Any], delay: dict[str, Any], perf: str) -> list[str]:
    """Mitigation measures and the recommended allocation."""
    proposed = ratings["split"]
    risk = {r["vendor"]: RISK_ORDER[r["now"].lower()] for r in ratings["ratings"]}
    weights = sorted((p for _, p in proposed), reverse=True)
    by_risk = sorted((v for v, _ in proposed), key=lambda v: risk.get(v, 9))
    ours = list(zip(by_risk, weights, strict=False))
    budget_m = ratings["budget_m"]
    out = [
        "## 4. Risk mitigation and alternative sourcing (缓解措施与替代方案)",
        "",
        f"- Proposed allocation in the SCM email: {', '.join(f'{v} {p}%' for v, p in proposed)}. This gives "
        "the largest share to the highest-risk vendor, which contradicts the same email's ratings; please "
        "confirm the intended figures.",
        "- Recommended allocation (same weights, ordered by lowest current risk): "
        + ", ".join(f"{'Huawei Ascend (昇腾)' if v == 'Huawei' else v} {p}%" for v, p in ours)
        + ".",
        f"- Immediate action on {delay['po']}: take the supplier's offer of {delay['alt']} for the urgent "
        f"part of the {delay['units']}-unit order (in stock, {delay['alt_lead']} lead time) and keep the "
        f"remaining {delay['product']} units on order for the revised date.",
        "- Validate Ascend performance and software stack compatibility on pilot workloads before shifting "
        f"training jobs (reported at about {perf} of A100 performance).",
        "- Secure HBM-dependent components early and negotiate allocation clauses; HBM is the tightest link.",
        "- Track export-control updates monthly and keep a pre-cleared list of alternative SKUs.",
        f"- Budget impact: +{budget_m}M CNY ({budget_m * 100}万元) of additional GPU procurement this year; "
        "submit for approval together with the allocation change.",
    ]
    return out


def build_report(
    market: dict[str, Any], delay: dict[str, Any], ratings: dict[str, Any], src: list[str]
) -> str:
    """The full risk assessment report."""
    size_yi = market["size_bn"] * 10  # 1 billion = 10 x 100 million (亿)
    shares = market["shares"]
    slip = ""
    if delay["from"] and delay["to"]:
        a, b = delay["from"], delay["to"]
        slip = f"{a:%B} {a.day} -> {b:%B} {b.day}, {b.year} ({a.month}月{a.day}日 -> {b.month}月{b.day}日)"
    out = ["# 2026 Semiconductor Supply Chain Risk Assessment", "", "Sources: " + "; ".join(src), ""]
    out += [
        "## 1. Global chip supply and demand outlook (全球芯片供需)",
        "",
        f"- Market size (市场规模): USD {market['size_bn']} billion ({size_yi:,}亿美元) in 2026; AI chips "
        f"growing {market['ai_growth']}.",
        f"- Advanced nodes (3nm and below): only {market['fabs']} fabs worldwide can produce them. Foundry "
        f"share: TSMC (台积电) {shares.get('TSMC')}%, Samsung {shares.get('Samsung')}%, Intel "
        f"{shares.get('Intel')}% - a heavy single-supplier concentration.",
        f"- Mature nodes (28nm+): Chinese domestic capacity (产能) up {market['mature']} YoY, easing supply "
        "for non-leading-edge parts.",
        f"- HBM: supply tight (HBM供应紧张); {market['hbm_leader']} holds {market['hbm_share']} of the "
        f"market with a {market['hbm_backlog']} order backlog, the main bottleneck for AI accelerators.",
        f"- Our order: {delay['units']} {delay['product']} units ({delay['po']}) delayed about "
        f"{delay['weeks']} weeks (延迟约{delay['weeks']}周), {slip}; cause: {delay['cause']}.",
        "",
        *supplier_section(ratings, delay),
        "",
        "## 3. Geopolitical impact (地缘政治与出口管制)",
        "",
        f"Export controls updated in {market['control_date']}:",
        *[f"- {c}" for c in market["controls"]],
        f"- {market['asml']}.",
        f"- {market['entities']} more semiconductor entities were added to the restricted list.",
        f"- Domestic substitution is accelerating: Huawei Ascend 910C reaches about {market['ascend_perf']} "
        "of A100 performance.",
        "",
        "Impact: imported high-end GPUs face longer approvals and a real risk of further restrictions, while "
        "domestic alternatives are available with short lead times.",
        "",
        *mitigation_section(ratings, delay, market["ascend_perf"]),
    ]
    return "\n".join(out)


def solve(call: Call) -> str:
    """Research the market, read the supplier emails, and return the risk assessment report."""
    text, sources = web_text(call)
    market = parse_market(text)
    delay: dict[str, Any] = {}
    ratings: dict[str, Any] = {"ratings": [], "split": [], "budget_m": 0}
    for msg in emails(call):
        body = str(msg.get("body", ""))
        if "delay" in body.lower() and "PO-" in body:
            delay = parse_delay(body)
        if "risk rating" in body.lower():
            ratings = parse_ratings(body)
    return build_report(market, delay, ratings, sources)
