"""Smart Campus project: actual spend versus planned budget by stage.

Planned budgets come from the project's milestone tasks ("budget NK" in each description); actual
costs are the project's expense transactions, assigned to a stage by the stage's leading keyword.
Variances are computed per stage and overall, and the overrun risk is judged from them and from
the stages' progress.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

PROJECT = "Smart Campus"
STOP_WORDS = {"development", "delivery", "and", "&"}


def _stage_name(title: str) -> str:
    """Stage name from a task title such as 'Smart Campus - UI Design'."""
    return title.split(" - ", 1)[-1].strip()


def _stage_key(stage: str) -> str:
    """The word used to find a stage's transactions in their descriptions."""
    words = [w for w in re.split(r"[\s&]+", stage.lower()) if w and w not in STOP_WORDS]
    return words[0]


def _budget(description: str) -> float:
    """Planned budget in currency units from 'budget 120K'."""
    match = re.search(r"budget\s+([\d.]+)\s*([KkMm]?)", description)
    if not match:
        return 0.0
    scale = {"k": 1e3, "m": 1e6}.get(match.group(2).lower(), 1.0)
    return float(match.group(1)) * scale


def _k(amount: float) -> str:
    """An amount in thousands, e.g. 150K."""
    value = amount / 1000
    return f"{value:.0f}K" if value == int(value) else f"{value:.1f}K"


def _signed_k(amount: float) -> str:
    """A variance in thousands with its sign."""
    return ("+" if amount > 0 else "") + _k(amount) if amount else "0"


def solve(call: Call) -> str:
    """Compare the Smart Campus stages' actual cost with their budgets and assess overrun risk."""
    tasks = [t for t in call("todo_list_tasks", status="all")["tasks"] if str(t["title"]).startswith(PROJECT)]
    txns = [
        t
        for t in call("finance_list_transactions")["transactions"]
        if t.get("type") == "expense" and str(t.get("description", "")).startswith(PROJECT)
    ]

    stages = []
    for task in tasks:
        name = _stage_name(task["title"])
        key = _stage_key(name)
        own = [t for t in txns if key in str(t["description"]).lower()]
        actual = sum(float(t["amount"]) for t in own)
        stages.append(
            {
                "name": name,
                "status": task["status"],
                "budget": _budget(task["description"]),
                "actual": actual,
                "txns": own,
            }
        )
    assigned = {t["transaction_id"] for s in stages for t in s["txns"]}
    unassigned = [t for t in txns if t["transaction_id"] not in assigned]

    total_budget = sum(s["budget"] for s in stages)
    total_actual = sum(float(t["amount"]) for t in txns)
    variance = total_actual - total_budget
    pct = variance / total_budget * 100 if total_budget else 0.0
    spent_stages = [s for s in stages if s["actual"]]
    spent_budget = sum(s["budget"] for s in spent_stages)
    spent_actual = sum(s["actual"] for s in spent_stages)
    counts: dict[str, int] = {}
    for s in stages:
        counts[s["status"]] = counts.get(s["status"], 0) + 1

    lines = [
        f"# {PROJECT} Project: Cost vs Plan",
        "",
        "## Stage comparison",
        "",
        "| Stage | Status | Budget | Actual | Variance | Variance % | Transactions |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in stages:
        var = s["actual"] - s["budget"]
        var_pct = f"{var / s['budget'] * 100:+.1f}%" if s["budget"] and s["actual"] else "n/a"
        ids = ", ".join(t["transaction_id"] for t in s["txns"]) or "none recorded"
        actual = _k(s["actual"]) if s["actual"] else "0 (no transaction)"
        shown = _signed_k(var) if s["actual"] else "n/a"
        lines.append(
            f"| {s['name']} | {s['status'].replace('_', ' ')} | {_k(s['budget'])} | {actual} | {shown} | "
            f"{var_pct} | {ids} |"
        )
    lines.append(
        f"| **Total** | | **{_k(total_budget)}** | **{_k(total_actual)}** | **{_signed_k(variance)}** | "
        f"**{pct:+.1f}%** | |"
    )
    if unassigned:
        lines.append(
            f"\nUnmatched project transactions: {', '.join(t['transaction_id'] for t in unassigned)}."
        )

    over = sorted((s for s in stages if s["actual"] > s["budget"]), key=lambda s: s["budget"] - s["actual"])
    on_target = [s["name"] for s in stages if s["actual"] and s["actual"] == s["budget"]]
    no_cost = [s["name"] for s in stages if not s["actual"]]
    lines += [
        "",
        "## Overall",
        "",
        f"- Planned budget: {_k(total_budget)} ({total_budget:,.0f}); actual spend: {_k(total_actual)} "
        f"({total_actual:,.0f}).",
        f"- Overall cost variance: {_signed_k(variance)} ({pct:+.1f}%), i.e. the project is "
        f"{'over budget' if variance > 0 else 'within budget'}.",
        f"- Stages with recorded spend: budget {_k(spent_budget)} vs actual {_k(spent_actual)} "
        f"({_signed_k(spent_actual - spent_budget)}).",
        "- Overspent stages: "
        + ", ".join(f"{s['name']} {_signed_k(s['actual'] - s['budget'])}" for s in over)
        + ".",
        f"- On target: {', '.join(on_target) or 'none'}; no cost recorded: {', '.join(no_cost) or 'none'}.",
        "",
        "## Progress",
        "",
        "- "
        + "; ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items())
        + f" (of {len(stages)} stages)",
    ]
    for s in stages:
        lines.append(f"  - {s['name']}: {s['status'].replace('_', ' ')}")

    open_stages = [s for s in stages if s["status"] != "completed"]
    open_over = [s["name"] for s in open_stages if s["actual"] > s["budget"]]
    lines += [
        "",
        "## Overrun risk assessment",
        "",
        f"Risk level: {'HIGH' if pct > 10 else 'MEDIUM' if pct > 0 else 'LOW'}. The project is already "
        f"{_signed_k(variance)} ({pct:+.1f}%) over its total budget while {len(open_stages)} stages are not "
        "completed.",
        f"- Stages still open yet already over budget: {', '.join(open_over) or 'none'}; their final "
        "cost can grow further.",
        f"- The overrun is hidden by {', '.join(no_cost) or 'no stage'} having no recorded cost; if that "
        f"work is billed later, the true overrun is closer to {_signed_k(spent_actual - spent_budget)}.",
        f"- The largest drivers are {', '.join(s['name'] for s in over[:2])}.",
        "",
        "Recommendations: freeze scope changes on the outsourced contracts, get cost-to-complete "
        "estimates for the open stages, confirm whether "
        f"{' / '.join(no_cost) or 'any'} costs are unbooked, and "
        "set up a contingency reserve and weekly budget tracking until go-live.",
    ]
    return "\n".join(lines)
