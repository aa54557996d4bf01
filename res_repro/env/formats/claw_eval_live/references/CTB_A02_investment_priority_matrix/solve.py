"""Investment priority assessment of three projects from their cash-flow forecasts and a risk brief.

The forecasts and the risk brief are parsed from the instruction; NPV at 8%, IRR (bisection) and payback
(discounted, with the simple payback as a cross-check) are computed, then the fixed rank-based scoring
rules give financial, risk and composite scores and the priority order.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from typing import Any

RATE = 0.08
RANK_POINTS = (100, 70, 40)
RISK_POINTS = {"Low": 100, "Medium": 70, "High": 40}
WEIGHTS = {"npv": 0.5, "irr": 0.3, "payback": 0.2}
ROLES = ("Primary choice", "Alternate choice", "Deferred")


def attachments(instruction: str) -> dict[str, str]:
    """Map each inlined attachment name to its text."""
    parts = re.split(r"\[attached document: ([^\]]+)\]\n", instruction)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def cash_flows(text: str) -> list[float]:
    """Cash flows by year (year 0 first) from one forecast CSV."""
    rows = sorted(csv.DictReader(io.StringIO(text)), key=lambda r: int(r["year"]))
    return [float(r["net_cash_flow_cny_million"]) for r in rows]


def npv(flows: list[float], rate: float) -> float:
    """Net present value with year 0 undiscounted."""
    return sum(cf / (1 + rate) ** t for t, cf in enumerate(flows))


def irr(flows: list[float]) -> float:
    """Internal rate of return by bisection on the NPV curve."""
    low, high = -0.99, 10.0
    for _ in range(200):
        mid = (low + high) / 2
        if npv(flows, mid) > 0:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def payback(flows: list[float], rate: float) -> float | None:
    """Years until cumulative (discounted when rate > 0) cash flow turns non-negative, interpolated."""
    cumulative = 0.0
    for t, cf in enumerate(flows):
        value = cf / (1 + rate) ** t
        if t > 0 and cumulative < 0 <= cumulative + value:
            return t - 1 + (-cumulative) / value
        cumulative += value
    return None


def rank_points(values: dict[str, float], higher_is_better: bool) -> dict[str, int]:
    """Map each project to 100/70/40 by its rank on one metric."""
    order = sorted(values, key=lambda p: values[p], reverse=higher_is_better)
    return {p: RANK_POINTS[min(i, len(RANK_POINTS) - 1)] for i, p in enumerate(order)}


def risk_levels(brief: str) -> dict[str, str]:
    """Risk conclusion per project section of the risk brief."""
    levels = {}
    for section in re.split(r"^## ", brief, flags=re.M)[1:]:
        name = section.splitlines()[0].strip()
        found = re.search(r"Risk conclusion:\s*`?(High|Medium|Low)", section, re.I)
        if found:
            levels[name] = found.group(1).capitalize()
    return levels


def solve(call: Callable[..., Any], instruction: str) -> str:
    """Compute the metrics and scores and return the investment priority report."""
    docs = attachments(instruction)
    risks = risk_levels(next(v for k, v in docs.items() if k.endswith(".md")))
    projects: dict[str, dict[str, Any]] = {}
    for name, text in sorted(docs.items()):
        found = re.match(r"project_(\w)_forecast\.csv", name)
        if found:
            flows = cash_flows(text)
            label = f"Project {found.group(1).upper()}"
            projects[label] = {
                "flows": flows,
                "npv": round(npv(flows, RATE), 2),
                "irr": round(irr(flows) * 100, 2),
                "payback": round(payback(flows, RATE) or float("inf"), 2),
                "simple": round(payback(flows, 0.0) or float("inf"), 2),
                "risk": risks[label],
            }
    npv_pts = rank_points({p: v["npv"] for p, v in projects.items()}, True)
    irr_pts = rank_points({p: v["irr"] for p, v in projects.items()}, True)
    pb_pts = rank_points({p: v["payback"] for p, v in projects.items()}, False)
    for p, v in projects.items():
        v["financial"] = round(
            WEIGHTS["npv"] * npv_pts[p] + WEIGHTS["irr"] * irr_pts[p] + WEIGHTS["payback"] * pb_pts[p], 1
        )
        v["risk_score"] = RISK_POINTS[v["risk"]]
        v["composite"] = round(v["financial"] * 0.6 + v["risk_score"] * 0.4, 1)
    order = sorted(projects, key=lambda p: -projects[p]["composite"])
    for i, p in enumerate(order):
        projects[p]["role"] = ROLES[min(i, 2)]
        projects[p]["priority"] = i + 1
    return report(projects, order)


def report(projects: dict[str, dict[str, Any]], order: list[str]) -> str:
    """Render the final English report."""
    first, second, last = order[0], order[1], order[-1]
    p1, p2, p3 = projects[first], projects[second], projects[last]
    best_fin = max(projects, key=lambda p: projects[p]["financial"])
    lines = [
        "# Investment Priority Assessment (amounts in million CNY)",
        "",
        "## Executive Summary",
        f"- **Primary choice: {first}** — composite score {p1['composite']:.1f}. {p1['risk']} risk with "
        f"NPV {p1['npv']:,.2f} and IRR {p1['irr']:.2f}%, the best balance of return and risk.",
        f"- **Alternate choice: {second}** — composite score {p2['composite']:.1f}. "
        + (
            f"The strongest financials (NPV {p2['npv']:,.2f}, IRR {p2['irr']:.2f}%) but "
            f"{p2['risk'].lower()} risk."
            if second == best_fin
            else f"NPV {p2['npv']:,.2f}, IRR {p2['irr']:.2f}%, {p2['risk'].lower()} risk."
        ),
        f"- **Deferred: {last}** — lowest composite score {p3['composite']:.1f} (third place); weakest "
        f"financial ranking with {p3['risk'].lower()} risk.",
        "",
        "## Method",
        "- NPV: 5-year cash flows discounted at 8%, year 0 = initial investment.",
        "- IRR: the discount rate at which the 5-year NPV is zero.",
        "- Dynamic payback: years until cumulative discounted (8%) cash flow recovers the investment, "
        "interpolated within the year; the simple (undiscounted) payback is shown for reference.",
        "- Financial score = NPV rank 50% + IRR rank 30% + payback rank 20% (best 100, middle 70, worst 40).",
        "- Risk score from the risk brief: Low 100, Medium 70, High 40.",
        "- Composite score = financial score × 0.6 + risk score × 0.4.",
        "",
        "## Comparison Table",
        "",
        "| Project | NPV @8% | IRR | Payback (dynamic, yrs) | Payback (simple, yrs) | Risk Level | "
        "Financial Score | Risk Score | Composite Score | Priority |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in order:
        v = projects[p]
        lines.append(
            f"| {p} | {v['npv']:,.2f} | {v['irr']:.2f}% | {v['payback']:.2f} | {v['simple']:.2f} | "
            f"{v['risk']} | {v['financial']:.1f} | {v['risk_score']} | {v['composite']:.1f} | "
            f"{v['priority']} — {v['role']} |"
        )
    lines += ["", "## Risk-Return Decision Matrix", ""]
    bands = ["Higher return (financial 100)", "Mid return (financial 70)", "Lower return (financial 40)"]
    lines.append("| Risk \\ Return | " + " | ".join(bands) + " |")
    lines.append("|---|---|---|---|")
    for level in ("Low", "Medium", "High"):
        cells = []
        for points in (100.0, 70.0, 40.0):
            hits = [p for p in order if projects[p]["risk"] == level and projects[p]["financial"] == points]
            cells.append(", ".join(hits) or "—")
        lines.append(f"| {level} risk | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Recommendation Rationale",
        f"1. {first} ({p1['role']}): it combines solid returns with {p1['risk'].lower()} risk, so it "
        f"delivers the most value per unit of risk; it ranks {order.index(first) + 1} on composite score.",
        f"2. {second} ({p2['role']}): its return profile is attractive, but the {p2['risk'].lower()} risk "
        "rating pulls the composite down; keep it ready if the main risks can be mitigated.",
        f"3. {last} ({p3['role']}): lowest composite score; revisit once its execution uncertainty is "
        "reduced or its economics improve.",
        "",
        "## Key Risk Warnings",
    ]
    for p in order:
        v = projects[p]
        lines.append(
            f"- {p} ({v['risk']} risk): IRR margin over the 8% hurdle is {v['irr'] - 8:.2f} points; "
            f"dynamic payback {v['payback']:.2f} years leaves {5 - v['payback']:.2f} years of the 5-year "
            "horizon to earn the NPV, so delays erode value quickly."
        )
    lines.append(
        "- Scores are rank-based: close results on one metric still differ by 30 points, so re-check the "
        "ranking if forecasts change."
    )
    return "\n".join(lines)
