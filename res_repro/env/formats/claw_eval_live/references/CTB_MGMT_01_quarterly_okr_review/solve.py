"""Q1 OKR review: parse each department's OKR document, score every KR, and read the task board.

Achievement = actual / target, or target / actual for "<=" KRs (lower is better). A department's score
is the mean KR achievement (also shown capped at 100%). Best = highest score, most in need of
improvement = lowest. KRs under 100% get a root cause from their metric type and the open tasks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

KR_LINE = re.compile(r"KR(\d+): (.*?) \(Q1 actual: (.*?)\)")
NUMBER = re.compile(r"(?<![A-Za-z\d.,])(\d[\d,]*(?:\.\d+)?)\s*(million)?")

# metric keyword -> (likely cause, Q2 action)
CAUSES = (
    (
        "incident",
        "reliability: more P0 incidents than budgeted points to gaps in change control and alerting",
        "SRE practices: post-mortems for every P0, change freeze windows, better alerting and runbooks",
    ),
    (
        "availability",
        "reliability: downtime from the incidents pulled availability below target",
        "add redundancy for the services behind the incidents and track an error budget weekly",
    ),
    (
        "release",
        "delivery capacity: planned releases slipped, with work still open at quarter end",
        "re-plan the release train, cut scope per release and clear the open release tasks first",
    ),
    (
        "delivery cycle",
        "delivery flow: long cycle time from large batches and waiting in review/test",
        "smaller batches, WIP limits and automated testing to shorten the cycle",
    ),
    (
        "registered users",
        "acquisition volume: brand reach is not converting into sign-ups",
        "tie campaigns to sign-up funnels and A/B test landing pages",
    ),
    (
        "acquisition cost",
        "channel efficiency: spend is going to channels with expensive leads",
        "shift budget to the cheapest converting channels and cap CAC per channel",
    ),
    (
        "conversion",
        "lead quality and follow-up: leads are not nurtured to conversion",
        "joint lead scoring with Sales and faster follow-up SLAs",
    ),
    (
        "crm",
        "process discipline: CRM records are incomplete",
        "make CRM fields mandatory at stage changes and review completeness weekly",
    ),
)


def value(text: str) -> float:
    """First number in the text, scaled for 'million'."""
    found = NUMBER.search(text)
    if not found:
        return 0.0
    number = float(found.group(1).replace(",", ""))
    return number * 1_000_000 if found.group(2) else number


def parse_okr(content: str) -> dict[str, Any]:
    """Department, head and KR list of one OKR document."""
    dept = re.search(r"Department: (.+)", content)
    head = re.search(r"Head: (.+)", content)
    krs: list[dict[str, Any]] = []
    objective = ""
    for line in content.splitlines():
        line = line.strip()
        if re.match(r"O\d+:", line):
            objective = line
            continue
        found = KR_LINE.search(line)
        if not found:
            continue
        text, actual_text = found.group(2), found.group(3)
        lower_is_better = "<=" in text
        target_text = text.split("<=")[-1] if lower_is_better else text.split(">=")[-1]
        target, actual = value(target_text), value(actual_text)
        rate = (target / actual if lower_is_better else actual / target) * 100 if target and actual else 0.0
        krs.append(
            {
                "id": f"{objective.split(':')[0]}-KR{found.group(1)}",
                "text": text,
                "actual": actual_text,
                "rate": rate,
                "lower": lower_is_better,
            }
        )
    return {
        "dept": dept.group(1).strip() if dept else "?",
        "head": head.group(1).strip() if head else "",
        "krs": krs,
    }


def pct(rate: float) -> str:
    """'112%' for whole numbers, else one decimal (two when one would round a shortfall up to 100)."""
    text = f"{rate:.2f}" if 99.95 <= rate < 100 else f"{rate:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


def root_cause(kr: dict[str, Any], open_tasks: list[dict[str, Any]]) -> tuple[str, str]:
    """(cause, Q2 recommendation) for an underperforming KR."""
    lower = kr["text"].lower()
    for key, cause, action in CAUSES:
        if key in lower:
            word = key.split()[0]
            related = [t for t in open_tasks if word in (t["title"] + t["description"]).lower()]
            if related:
                listed = ", ".join(f"'{t['title']}' (due {t['due_date']})" for t in related)
                cause += "; still open: " + listed
            return cause, action
    return "execution shortfall against the plan", "review the plan and owner for this KR in Q2 planning"


def build_report(depts: list[dict[str, Any]], tasks: list[dict[str, Any]]) -> str:
    """The OKR review report."""
    for d in depts:
        rates = [k["rate"] for k in d["krs"]]
        d["score"] = sum(rates) / len(rates)
        d["capped"] = sum(min(r, 100.0) for r in rates) / len(rates)
        d["met"] = sum(1 for r in rates if r >= 100)
    ranked = sorted(depts, key=lambda d: d["score"], reverse=True)
    best, worst = ranked[0], ranked[-1]
    out = ["# Q1 OKR Review (COO)", "", "## Overall achievement by department", ""]
    out += ["| Rank | Department | Head | Score (mean KR) | Score (capped at 100%) | KRs met |"]
    out += ["|---|---|---|---|---|---|"]
    for i, d in enumerate(ranked, 1):
        out.append(
            f"| {i} | {d['dept']} | {d['head']} | {pct(d['score'])} | {pct(d['capped'])} | "
            f"{d['met']}/{len(d['krs'])} |"
        )
    out += ["", "Achievement = actual / target; for '<=' KRs (lower is better) it is target / actual.", ""]
    out += ["## KR achievement rates", ""]
    for d in ranked:
        out += [f"### {d['dept']}", "", "| KR | Key result | Actual | Achievement | Status |"]
        out += ["|---|---|---|---|---|"]
        for k in d["krs"]:
            status = "Exceeded" if k["rate"] > 100 else "Met" if k["rate"] == 100 else "Miss"
            status = "Near miss" if 99.5 <= k["rate"] < 100 else status
            out.append(f"| {k['id']} | {k['text']} | {k['actual']} | {pct(k['rate'])} | {status} |")
        out.append("")
    misses = {d["dept"]: [k for k in d["krs"] if k["rate"] < 100] for d in ranked}
    out += [
        "## Best-performing and most-in-need departments",
        "",
        f"- Best: **{best['dept']}** - top score {pct(best['score'])}, {best['met']} of {len(best['krs'])} "
        "KRs met or exceeded; "
        + (
            "only miss: " + ", ".join(f"{k['id']} ({pct(k['rate'])})" for k in misses[best["dept"]])
            if misses[best["dept"]]
            else "no misses"
        )
        + ".",
        f"- Most in need of improvement: **{worst['dept']}** - lowest score {pct(worst['score'])}, "
        f"{len(misses[worst['dept']])} KRs below target; weakest KR "
        + min(((k["id"], k["rate"], k["text"]) for k in worst["krs"]), key=lambda x: x[1])[2]
        + f" at {pct(min(k['rate'] for k in worst['krs']))}.",
        "",
        "## Task board check",
        "",
    ]
    for d in ranked:
        mine = [t for t in tasks if t.get("assignee") == d["dept"]]
        done = [t for t in mine if t.get("status") in ("done", "completed")]
        pending = [t for t in mine if t not in done]
        line = f"- {d['dept']}: {len(done)} done, {len(pending)} outstanding"
        if pending:
            line += " (" + "; ".join(f"{t['title']}, due {t['due_date']}" for t in pending) + ")"
        out.append(line + ".")
    open_tasks = [t for t in tasks if t.get("status") not in ("done", "completed")]
    out += ["", "## Root cause analysis and Q2 recommendations", ""]
    out += ["| Department | KR | Achievement | Root cause | Q2 recommendation |", "|---|---|---|---|---|"]
    for d in ranked:
        for k in sorted(misses[d["dept"]], key=lambda k: k["rate"]):
            cause, action = root_cause(k, [t for t in open_tasks if t.get("assignee") == d["dept"]])
            out.append(f"| {d['dept']} | {k['id']} {k['text']} | {pct(k['rate'])} | {cause} | {action} |")
    out += [
        "",
        f"Q2 priorities: {worst['dept']} first, on "
        + " and ".join(k["text"] for k in sorted(misses[worst["dept"]], key=lambda k: k["rate"])[:2])
        + "; "
        + "; ".join(
            f"{d['dept']} on " + ", ".join(k["text"] for k in misses[d["dept"]])
            for d in ranked[:-1]
            if misses[d["dept"]]
        )
        + f". {best['dept']} sets the pace and should share its practices. Review progress monthly.",
    ]
    return "\n".join(out)


def solve(call: Call) -> str:
    """Read the OKR documents and the task board, score every KR and return the review."""
    docs = call("notes_list_documents", max_results=50)
    items = docs.get("notes") or docs.get("documents") or []
    depts = []
    for item in items:
        doc = call("notes_get_document", note_id=item["note_id"])
        if "OKR" in str(doc.get("title", "")) or "KR1" in str(doc.get("content", "")):
            depts.append(parse_okr(str(doc.get("content", ""))))
    listing = call("todo_list_tasks", max_results=100).get("tasks", [])
    tasks = [call("todo_get_task", task_id=t["task_id"]) for t in listing]
    return build_report([d for d in depts if d["krs"]], tasks)
