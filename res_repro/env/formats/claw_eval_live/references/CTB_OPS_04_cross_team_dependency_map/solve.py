"""Cross-team dependency map from the team emails and the to-do list.

Dependencies ("depends on", "requires ... to", "wait for/on", "have ... complete", "blocked by") and
date estimates are parsed from each email; each team's planned date is its task due date. Delays
propagate downstream: estimate = max(own estimate, upstream estimate + planned gap). The bottleneck
is the team whose work reaches the most downstream teams; the critical path is the longest late chain.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

Call = Callable[..., Any]

ALIASES = {"database": "dba", "product manager": "pm", "product requirements document": "pm"}
DATE = r"((?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2})"
LAUNCH = "payment launch"


def to_date(text: str, year: int) -> date:
    """'March 29' -> date(year, 3, 29)."""
    return datetime.strptime(f"{text} {year}", "%B %d %Y").date()


def team(name: str, teams: set[str]) -> str | None:
    """Normalise a phrase ('the database team', 'ops@company.com') to a team id."""
    key = name.lower().replace("@company.com", "").replace(" team", "").strip()
    key = ALIASES.get(key, key)
    return key if key in teams else None


class Graph:
    """Teams, dependency edges (upstream -> downstream with a reason) and dates."""

    def __init__(self, teams: set[str]) -> None:
        self.teams = teams | {LAUNCH}
        self.edges: dict[tuple[str, str], str] = {}
        self.estimate: dict[str, date] = {}
        self.notes: dict[str, list[str]] = {}

    def add(self, up: str | None, down: str | None, why: str) -> None:
        if up and down and up != down:
            self.edges.setdefault((up, down), why.strip(" .,"))

    def ups(self, node: str) -> list[str]:
        return [u for (u, d) in self.edges if d == node]

    def downs(self, node: str) -> list[str]:
        return [d for (u, d) in self.edges if u == node]

    def reach(self, node: str) -> set[str]:
        seen: set[str] = set()
        stack = self.downs(node)
        while stack:
            n = stack.pop()
            if n not in seen:
                seen.add(n)
                stack += self.downs(n)
        return seen


def read_email(g: Graph, msg: dict[str, Any], year: int) -> None:
    """Add the dependencies and dates stated in one email."""
    sender = team(str(msg.get("from", "")).split("@")[0], g.teams)
    body = str(msg.get("body", ""))
    subject = str(msg.get("subject", ""))
    blocked_launch = "launch" in subject.lower() and "blocked" in subject.lower()
    for x, what in re.findall(r"depends on the ([\w ]+?) team (completing [^(.]+)", body):
        g.add(team(x, g.teams), sender, what)
    for x, what in re.findall(r"requires? the ([\w ]+?)(?: team)? to ([^.]+)", body):
        g.add(team(x, g.teams), sender, what)
    for x, what in re.findall(r"wait for the (\w+) team to ([^(.]+)", body):
        g.add(team(x, g.teams), sender, what)
    for x in re.findall(r"have the (\w+) team complete", body):
        g.add(sender, team(x, g.teams), f"adapt to the change in '{subject}'")
    if blocked_launch:
        for line in body.splitlines():
            found = re.search(r"\d\. (.+?) \(waiting on ([\w.@]+)\)", line)
            if found:
                g.add(team(found.group(2), g.teams), LAUNCH, found.group(1))
                g.notes.setdefault(team(found.group(2), g.teams) or "", []).append(found.group(1))
        target = re.search(rf"Target launch date is {DATE}", body)
        if target:
            g.estimate.setdefault(f"{LAUNCH}:due", to_date(target.group(1), year))
    slip = re.search(
        rf"Originally planned for {DATE} completion, now estimated to be delayed to {DATE}", body
    )
    if slip and sender:
        g.estimate[sender] = to_date(slip.group(2), year)
        g.notes.setdefault(sender, []).append(f"planned {slip.group(1)}, now {slip.group(2)}")
    for who, when in re.findall(rf"\(([\w.]+)@company\.com committed to {DATE}\)", body):
        g.estimate.setdefault(who, to_date(when, year))
    own = re.search(rf"(?:mockups|work|delivery) (?:are|is) estimated for {DATE} completion", body)
    if own and sender:
        g.estimate[sender] = to_date(own.group(1), year)
        g.notes.setdefault(sender, []).append(f"now estimated for {own.group(1)}")
    prd = re.search(
        rf"product requirements document is still under review, expected to be finalized on {DATE}", body
    )
    if prd:
        g.estimate.setdefault("pm", to_date(prd.group(1), year))
        g.notes.setdefault("pm", []).append(f"requirements document still in review until {prd.group(1)}")


def propagate(g: Graph, due: dict[str, date]) -> dict[str, date]:
    """Expected finish per team: own estimate (or due date), pushed by late upstream work."""
    finish: dict[str, date] = {}

    def visit(node: str) -> date:
        if node in finish:
            return finish[node]
        own = g.estimate.get(node) or due.get(node) or g.estimate.get(f"{node}:due")
        best = own
        for up in g.ups(node):
            up_finish = visit(up)
            gap = (due[node] - due[up]).days if node in due and up in due else 0
            pushed = date.fromordinal(up_finish.toordinal() + max(gap, 0))
            best = pushed if best is None or pushed > best else best
        finish[node] = best or date.min
        return finish[node]

    for node in g.teams:
        visit(node)
    return finish


def chains(g: Graph) -> list[list[str]]:
    """All root-to-leaf paths."""
    roots = [t for t in g.teams if g.downs(t) and not g.ups(t)]
    out: list[list[str]] = []

    def walk(path: list[str]) -> None:
        nxt = g.downs(path[-1])
        if not nxt:
            out.append(path)
        for n in nxt:
            walk([*path, n])

    for r in sorted(roots):
        walk([r])
    return out


def solve(call: Call) -> str:
    """Read the tasks and emails, build the dependency map and return the analysis."""
    listing = call("todo_list_tasks", status="all").get("tasks", [])
    tasks = [call("todo_get_task", task_id=t["task_id"]) for t in listing]
    msgs = [
        call("gmail_get_message", message_id=m["message_id"])
        for m in call("gmail_list_messages", days_back=3650, max_results=100).get("messages", [])
    ]
    year = int(min(t["due_date"] for t in tasks)[:4])
    teams = {t["assignee"].split("@")[0] for t in tasks}
    for m in msgs:
        teams.add(str(m.get("from", "")).split("@")[0])
        teams |= set(re.findall(r"([a-z]+)@company\.com", str(m.get("body", ""))))
    g = Graph(teams)
    for m in msgs:
        read_email(g, m, year)
    task_of = {t["assignee"].split("@")[0]: t for t in tasks}
    due = {k: date.fromisoformat(t["due_date"]) for k, t in task_of.items()}
    if f"{LAUNCH}:due" in g.estimate:
        due[LAUNCH] = g.estimate[f"{LAUNCH}:due"]
    finish = propagate(g, due)
    slip = {n: (finish[n] - due[n]).days for n in due if n in finish}
    return report(g, task_of, due, finish, slip)


def label(node: str, task_of: dict[str, dict[str, Any]]) -> str:
    """'dba (User Table Database Migration)'."""
    return f"{node} ({task_of[node]['title']})" if node in task_of else node


def report(
    g: Graph,
    task_of: dict[str, dict[str, Any]],
    due: dict[str, date],
    finish: dict[str, date],
    slip: dict[str, int],
) -> str:
    """The dependency analysis report."""
    paths = chains(g)
    reach = {t: g.reach(t) for t in g.teams}
    bottleneck = max(g.teams, key=lambda t: (len(reach[t]), slip.get(t, 0)))
    critical = max(paths, key=lambda p: (max(slip.get(n, 0) for n in p), len(p)))
    out = ["# Cross-Team Dependency Analysis", "", "## 1. Dependency map (upstream -> downstream)", ""]
    for (u, d), why in sorted(g.edges.items()):
        out.append(f"- {u} -> {d}: {d} depends on {u} ({why})")
    out += ["", "## 2. Dependency chains", ""]
    leaves: dict[str, list[list[str]]] = {}
    for p in paths:
        leaves.setdefault(p[-1], []).append(p)
    n = 1
    for leaf, group in leaves.items():
        single = [p for p in group if len(p) > 2]
        for p in single:
            out.append(f"{n}. " + " -> ".join(label(x, task_of) for x in p))
            n += 1
        short = [p for p in group if len(p) <= 2]
        if short:
            out.append(
                f"{n}. " + " + ".join(sorted(p[0] for p in short)) + f" -> {leaf} (all must finish first)"
            )
            n += 1
    out += ["", "## 3. Critical blocking chains (who blocks whom)", ""]
    for node in sorted(g.teams, key=lambda t: -len(reach[t])):
        if not g.downs(node):
            continue
        status = task_of[node]["status"] if node in task_of else "no task on the board"
        late = f", {slip[node]} days late" if slip.get(node, 0) > 0 else ""
        out.append(
            f"- {node} ({status}{late}) is blocking: {', '.join(sorted(g.downs(node)))}; "
            f"downstream impact reaches {len(reach[node])} team(s)/milestones."
        )
    out += ["", "## 4. Delay risks", "", "| Team / milestone | Planned | Expected | Delay | Cause |"]
    out += ["|---|---|---|---|---|"]
    for node in sorted(due, key=lambda n: due[n]):
        s = slip.get(node, 0)
        cause = "; ".join(g.notes.get(node, []))
        late_ups = [u for u in g.ups(node) if finish.get(u) and finish[u] > due.get(u, finish[u])]
        if late_ups:
            cause = (cause + "; " if cause else "") + "cascade from late upstream " + ", ".join(late_ups)
        flag = f"+{s} days" if s > 0 else "on plan"
        out.append(
            f"| {label(node, task_of)} | {due[node]:%b %d} | {finish[node]:%b %d} | {flag} | {cause or '-'} |"
        )
    out += [
        "",
        "Delay propagation: a late upstream task pushes every downstream task by the same amount (the "
        "planned gap between their due dates is kept), so one slip cascades down the whole chain.",
        "",
        "## 5. Bottleneck and critical path",
        "",
        f"- Critical path: {' -> '.join(critical)} (longest chain carrying the largest delay; expected end "
        f"{finish[critical[-1]]:%B %d} vs plan {due.get(critical[-1], finish[critical[-1]]):%B %d}).",
        f"- Bottleneck team: **{bottleneck}** - its work is upstream of "
        f"{', '.join(sorted(reach[bottleneck]))}, so it sits on more than one chain at once.",
        "",
        "## 6. Recommendations to unblock (priority order)",
        "",
    ]
    order = sorted([t for t in g.teams if g.downs(t)], key=lambda t: (-len(reach[t]), -slip.get(t, 0)))
    for i, t in enumerate(order, 1):
        unblocks = ", ".join(sorted(g.downs(t)))
        work = (
            f"'{task_of[t]['title']}'"
            if t in task_of
            else "the pending input ("
            + "; ".join(g.notes.get(t) or [why for (u, _), why in g.edges.items() if u == t])
            + ")"
        )
        level = "P0" if i <= 2 else "P1" if i <= 4 else "P2"
        line = f"{i}. [{level}] {t}: finish {work} first; it unblocks {unblocks}"
        line += f" ({len(reach[t])} downstream items)." if len(reach[t]) > 1 else "."
        if slip.get(t, 0) > 0 and not [u for u in g.ups(t) if slip.get(u, 0) > 0]:
            line += f" Recover the {slip[t]}-day slip with extra people or overlapping steps."
        out.append(line)
    out += [
        f"{len(order) + 1}. Run work in parallel where possible: downstream teams start against agreed API "
        "contracts and draft mockups instead of waiting for final hand-offs.",
        f"{len(order) + 2}. Hold a daily cross-team dependency stand-up until the critical path is back on "
        "plan, and re-confirm the launch date once the upstream dates are firm.",
    ]
    return "\n".join(out)
