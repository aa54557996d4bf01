"""Read each region's Q1 forecast from the CRM forecast records' notes, sum Q1 sales revenue per region
(department) from finance, and compute variance = actual - forecast and variance % = variance / forecast.
Accuracy is ranked by absolute variance %; regions above / below forecast and company totals follow.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Q1 = ("2026-01-01", "2026-03-31")


def pct(value: float) -> str:
    """Signed percentage with up to two decimals and no trailing zeros (e.g. -10%, +28.33%)."""
    text = f"{value:+.2f}".rstrip("0").rstrip(".")
    return f"{text}%"


def kcny(value: float, signed: bool = False) -> str:
    return f"{value / 1000:+,.0f}K" if signed else f"{value / 1000:,.0f}K"


def forecasts(call: Callable[..., Any]) -> dict[str, dict[str, Any]]:
    """Region -> forecast amount and owner, parsed from 'Q1Forecast:<region><amount>K CNY|people:<owner>'."""
    out: dict[str, dict[str, Any]] = {}
    for c in call("crm_list_customers").get("customers", []):
        detail = call("crm_get_customer", customer_id=c["customer_id"])
        notes = str(detail.get("notes", ""))
        m = re.search(r"Forecast:\s*(?P<region>[A-Za-z ]+?)\s*(?P<amount>[\d.]+)\s*K", notes)
        if not m:
            continue
        owner = re.search(r"people:\s*([^|]*)", notes)
        out[m["region"].strip()] = {
            "forecast": float(m["amount"]) * 1000,
            "owner": owner.group(1).strip() if owner else "",
            "record": detail["customer_id"],
        }
    return out


def actuals(call: Callable[..., Any], regions: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Q1 sales revenue transactions grouped by region (department, else description prefix)."""
    grouped: dict[str, list[dict[str, Any]]] = {r: [] for r in regions}
    for t in call("finance_list_transactions", start_date=Q1[0]).get("transactions", []):
        if t.get("type") != "revenue" or not (Q1[0] <= str(t.get("date", "")) <= Q1[1]):
            continue
        region = t.get("department") or str(t.get("description", "")).split("-", 1)[0]
        grouped.setdefault(region, []).append(t)
    return grouped


def solve(call: Callable[..., Any]) -> str:
    """Compare Q1 forecasts with Q1 actual revenue per region and return the variance report."""
    plan = forecasts(call)
    txns = actuals(call, list(plan))
    rows = []
    for region, info in plan.items():
        actual = sum(float(t["amount"]) for t in txns.get(region, []))
        variance = actual - info["forecast"]
        rows.append(
            {
                "region": region,
                "owner": info["owner"],
                "forecast": info["forecast"],
                "actual": actual,
                "variance": variance,
                "pct": variance / info["forecast"] * 100,
                "deals": txns.get(region, []),
            }
        )
    total_f = sum(r["forecast"] for r in rows)
    total_a = sum(r["actual"] for r in rows)
    total_v = total_a - total_f
    by_accuracy = sorted(rows, key=lambda r: abs(r["pct"]))
    best, worst = by_accuracy[0], by_accuracy[-1]
    above = [r for r in rows if r["variance"] > 0]
    below = [r for r in rows if r["variance"] < 0]

    out = ["# Q1 2026 Forecast vs Actual Variance Analysis", ""]
    out += [
        "## Regional Results",
        "",
        "| Region | Forecast (CNY) | Actual (CNY) | Variance (CNY) | Variance % | Status |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        status = (
            "Exceeded forecast"
            if r["variance"] > 0
            else "Below forecast"
            if r["variance"] < 0
            else "On target"
        )
        out.append(
            f"| {r['region']} | {r['forecast']:,.0f} ({kcny(r['forecast'])}) | {r['actual']:,.0f} "
            f"({kcny(r['actual'])}) | {r['variance']:+,.0f} ({kcny(r['variance'], True)}) | {pct(r['pct'])} "
            f"| {status} |"
        )
    out.append(
        f"| **Company total** | **{total_f:,.0f} ({kcny(total_f)})** | **{total_a:,.0f} ({kcny(total_a)})** "
        "| "
        f"**{total_v:+,.0f} ({kcny(total_v, True)})** | **{pct(total_v / total_f * 100)}** | "
        f"{'Below forecast' if total_v < 0 else 'Exceeded forecast'} |"
    )
    out += [
        "",
        "## Company Total",
        "",
        f"- Total forecast: {total_f:,.0f} CNY; total actual: {total_a:,.0f} CNY.",
        f"- Total variance: {total_v:+,.0f} CNY, overall variance {pct(total_v / total_f * 100)}.",
        "",
        "## Forecast Accuracy (ranked by absolute variance %)",
        "",
    ]
    for i, r in enumerate(by_accuracy, 1):
        out.append(f"{i}. {r['region']}: {pct(r['pct'])}")
    out += [
        "",
        f"- **Best accuracy (most accurate): {best['region']}** — variance {pct(best['pct'])} "
        f"({r_amount(best)}).",
        f"- **Worst accuracy (least accurate): {worst['region']}** — variance {pct(worst['pct'])} "
        f"({r_amount(worst)}).",
        "",
        "## Exceeded vs Fell Short",
        "",
        "- Exceeded forecast: "
        + (", ".join(f"{r['region']} ({pct(r['pct'])})" for r in above) or "none")
        + ".",
        "- Fell short of forecast (below): "
        + ", ".join(f"{r['region']} ({pct(r['pct'])})" for r in below)
        + ".",
        "",
        "## Actual Revenue Detail",
        "",
    ]
    for r in rows:
        deals = " + ".join(f"{float(t['amount']):,.0f} ({t['date']})" for t in r["deals"]) or "none"
        out.append(f"- {r['region']}: {deals} = {r['actual']:,.0f}")
    out += [
        "",
        "## Observations and Recommendations",
        "",
        f"- {worst['region']} under-performed most ({pct(worst['pct'])}, only {len(worst['deals'])} deals "
        "closed): review its pipeline conversion and forecast assumptions; the forecast looks "
        "over-optimistic.",
    ]
    for r in above:
        out.append(
            f"- {r['region']} exceeded forecast ({pct(r['pct'])}) largely from one large deal "
            f"({max(float(t['amount']) for t in r['deals']):,.0f}); treat it as upside, not a new baseline, "
            "but raise the next forecast moderately."
        )
    out.append(
        f"- The company finished {pct(total_v / total_f * 100)} against forecast with {len(below)} of "
        f"{len(rows)} "
        "regions below plan; recommend a pipeline-weighted (stage probability) forecast method for Q2 and a "
        "monthly forecast review for the regions that missed."
    )
    return "\n".join(out)


def r_amount(r: dict[str, Any]) -> str:
    return f"forecast {r['forecast']:,.0f}, actual {r['actual']:,.0f}"
