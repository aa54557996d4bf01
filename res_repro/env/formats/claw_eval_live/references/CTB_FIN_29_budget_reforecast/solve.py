"""H2 budget reforecast from H1 execution rates.

For every budget line: H1 variance and execution rate (actual / budget), H2 reforecast = H2 original
budget x H1 execution rate, full-year reforecast = H1 actual + H2 reforecast; totals by department
and overall, and the line with the highest H1 variance rate as the most severe overrun.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]


def _n(value: float) -> str:
    """An amount with thousands separators."""
    return f"{value:,.0f}"


def _pct(rate: float) -> str:
    """A rate as a percentage with up to two decimals (140%, 118.75%)."""
    text = f"{rate * 100:.2f}".rstrip("0").rstrip(".")
    return f"{text}%"


def _line(row: dict[str, Any]) -> dict[str, Any]:
    """The reforecast figures of one budget line."""
    h1_budget, h1_actual, h2_budget = (float(row[k]) for k in ("h1_budget", "h1_actual", "h2_budget"))
    rate = h1_actual / h1_budget if h1_budget else 1.0
    h2 = h2_budget * rate
    return {
        **row,
        "variance": h1_actual - h1_budget,
        "rate": rate,
        "h2_reforecast": h2,
        "full_year": h1_actual + h2,
    }


def solve(call: Call) -> str:
    """Reforecast H2 from H1 performance and return the report."""
    rows = [
        _line(r) for r in call("finance_list_transactions")["transactions"] if r.get("type") == "budget_item"
    ]
    total = {
        k: sum(float(r[k]) for r in rows)
        for k in ("h1_budget", "h1_actual", "h2_budget", "h2_reforecast", "full_year")
    }
    worst = max(rows, key=lambda r: r["rate"])
    total_rate = total["h1_actual"] / total["h1_budget"]

    lines = [
        "# H2 Budget Reforecast",
        "",
        "Method: execution rate = H1 actual / H1 budget; H2 reforecast = H2 original budget x H1 execution "
        "rate; full-year reforecast = H1 actual + H2 reforecast.",
        "",
        "## Line items",
        "",
        "| Department | Item | H1 budget | H1 actual | Variance | Execution rate | H2 original "
        "| H2 reforecast | Full-year reforecast |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['department']} | {r['item']} | {_n(r['h1_budget'])} | {_n(r['h1_actual'])} | "
            f"{r['variance']:+,.0f} | {_pct(r['rate'])} | {_n(r['h2_budget'])} | {_n(r['h2_reforecast'])} | "
            f"{_n(r['full_year'])} |"
        )
    lines.append(
        f"| **Total** | | {_n(total['h1_budget'])} | {_n(total['h1_actual'])} | "
        f"{total['h1_actual'] - total['h1_budget']:+,.0f} | {_pct(total_rate)} | "
        f"{_n(total['h2_budget'])} | {_n(total['h2_reforecast'])} | {_n(total['full_year'])} |"
    )

    lines += [
        "",
        "## By department",
        "",
        "| Department | H1 budget | H1 actual | Execution rate | H2 reforecast | Full-year reforecast |",
        "|---|---|---|---|---|---|",
    ]
    for dept in dict.fromkeys(r["department"] for r in rows):
        own = [r for r in rows if r["department"] == dept]
        b, a = sum(float(r["h1_budget"]) for r in own), sum(float(r["h1_actual"]) for r in own)
        lines.append(
            f"| {dept} | {_n(b)} | {_n(a)} | {_pct(a / b)} | {_n(sum(r['h2_reforecast'] for r in own))} | "
            f"{_n(sum(r['full_year'] for r in own))} |"
        )

    over = sorted((r for r in rows if r["rate"] > 1), key=lambda r: -r["rate"])
    lines += [
        "",
        "## Summary",
        "",
        f"- H1 budget total {_n(total['h1_budget'])}, H1 actual total {_n(total['h1_actual'])} "
        f"(variance {total['h1_actual'] - total['h1_budget']:+,.0f}).",
        f"- H2 reforecast total {_n(total['h2_reforecast'])} against an original H2 budget of "
        f"{_n(total['h2_budget'])}.",
        f"- Full-year reforecast total: {_n(total['full_year'])}.",
        f"- Most severe overrun (highest H1 variance rate): {worst['department']} {worst['item']} at "
        f"{_pct(worst['rate'])} execution ({_n(worst['h1_actual'])} vs {_n(worst['h1_budget'])}, "
        f"{(worst['rate'] - 1) * 100:+.0f}%).",
        "- Other overruns: "
        + ", ".join(f"{r['department']} {r['item']} {_pct(r['rate'])}" for r in over[1:])
        + ".",
        "",
        "## Recommendations",
        "",
        f"- Put {worst['department']} {worst['item'].lower()} under pre-approval and a monthly cap; a "
        "straight-line reforecast keeps the overrun running into H2.",
        "- Review overrunning lines monthly against the reforecast and release under-used budget (execution "
        "below 100%) only after confirming the spend is not simply delayed.",
        "- Use the reforecast as the H2 control baseline and report variances to department heads.",
    ]
    return "\n".join(lines)
