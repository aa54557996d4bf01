"""API v1.2 -> v2.0 migration changelog from the two attached API documents.

Both documents are parsed into sections (matched by title), each with its endpoints, field groups
(name -> type/required note), algorithm, headers and rule lines. Sections are diffed: endpoint moves,
renamed/removed/added fields (renames paired by shared prefix, same id suffix or position), type changes,
algorithm and header changes, deprecations and new sections. Each change is labelled ADD/REMOVE/MODIFY
and Breaking/Non-breaking by explicit rules; migration priorities follow from the breaking changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

ENDPOINT = re.compile(r"`((?:GET|POST|PUT|PATCH|DELETE) /[^`]+)`")


def attachments(instruction: str) -> dict[str, str]:
    """Map each inlined attachment name to its text."""
    parts = re.split(r"\[attached document: ([^\]]+)\]\n", instruction)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def parse(doc: str) -> dict[str, dict[str, Any]]:
    """Sections of an API document: title -> endpoints, field groups, scalar settings and plain rules."""
    sections = {}
    for block in re.split(r"^## +", doc, flags=re.M)[1:]:
        head, _, body = block.partition("\n")
        title = re.sub(r"^\d+\.\s*", "", head).strip()
        sec: dict[str, Any] = {"endpoints": ENDPOINT.findall(body), "groups": {}, "settings": {}, "rules": []}
        group = None
        for line in body.splitlines():
            top = re.match(r"^- (.+?):\s*$", line)
            item = re.match(r"^\s{2,}- `([^`]+)`\s*(?:\((.+)\))?", line)
            setting = re.match(r"^- ([A-Z][\w ]+?):\s*`([^`]+)`\s*$", line)
            if top:
                group = top.group(1)
                sec["groups"][group] = {}
            elif item and group:
                sec["groups"][group][item.group(1)] = item.group(2) or ""
            elif setting and not ENDPOINT.search(line):
                sec["settings"][setting.group(1)] = setting.group(2)
                group = None
            elif line.startswith("- "):
                sec["rules"].append(line[2:].strip())
                group = None
        sections[title] = sec
    return sections


def key_of(title: str) -> str:
    """Normalised section key so 'Webhook Verification' matches across versions."""
    return title.lower()


def pair_renames(old: dict[str, str], new: dict[str, str]) -> list[tuple[str, str]]:
    """Pair removed with added names: shared first word, same '_id' suffix and type, else by position."""
    removed = [n for n in old if n not in new]
    added = [n for n in new if n not in old]
    pairs = []
    for r in list(removed):
        match = next((a for a in added if a.split("_")[0] == r.split("_")[0]), None)
        if match is None:
            match = next(
                (a for a in added if r.endswith("_id") and a.endswith("_id") and old[r] == new[a]), None
            )
        if match:
            pairs.append((r, match))
            removed.remove(r)
            added.remove(match)
    if removed and len(removed) == len(added):
        pairs += list(zip(removed, added, strict=True))
    return pairs


def group_changes(label: str, old: dict[str, str], new: dict[str, str]) -> list[tuple[str, str, bool]]:
    """(type, details, breaking) for one field group."""
    changes = []
    pairs = pair_renames(old, new)
    renamed_old = {r for r, _ in pairs}
    renamed_new = {a for _, a in pairs}
    for r, a in pairs:
        typ = f" ({old[r]} → {new[a]})" if old[r].split(",")[0] != new[a].split(",")[0] else ""
        changes.append(("MODIFY", f"{label}: `{r}` renamed to `{a}`{typ}", True))
    for r in old:
        if r not in new and r not in renamed_old:
            changes.append(("REMOVE", f"{label}: `{r}` removed", True))
    for a in new:
        if a not in old and a not in renamed_new:
            required = "required" in new[a] or label.lower().startswith("required")
            note = f" ({new[a]})" if new[a] else ""
            changes.append(("ADD", f"{label}: new `{a}`{note}", required))
    for name in old:
        if name in new and old[name] != new[name]:
            changes.append(("MODIFY", f"{label}: `{name}` changed from {old[name]} to {new[name]}", True))
    return changes


def diff_section(title: str, old: dict[str, Any] | None, new: dict[str, Any]) -> list[dict[str, Any]]:
    """All changes of one section between the versions."""
    rows = []
    if old is None:
        what = "; ".join(r for r in new["rules"] if not ENDPOINT.search(r)) or "new section"
        for ep in new["endpoints"]:
            rows.append(
                {
                    "type": "ADD",
                    "where": f"{title} — `{ep}`",
                    "details": f"New endpoint. {what}",
                    "breaking": False,
                }
            )
        return rows
    old_eps, new_eps = old["endpoints"], new["endpoints"]
    deprecated = [r for r in new["rules"] if "deprecated" in r]
    current = [e for e in new_eps if e not in old_eps]
    if deprecated and current:
        rows.append(
            {
                "type": "MODIFY",
                "where": f"{title} — `{old_eps[0]}` → `{current[0]}`",
                "details": f"`{old_eps[0]}` is deprecated; use `{current[0]}` instead.",
                "breaking": True,
            }
        )
    elif old_eps and new_eps and old_eps[0] != new_eps[0]:
        rows.append(
            {
                "type": "MODIFY",
                "where": f"{title} — `{old_eps[0]}` → `{new_eps[0]}`",
                "details": f"Endpoint moved from `{old_eps[0]}` to `{new_eps[0]}`.",
                "breaking": True,
            }
        )
    where = f"{title} — `{(current or new_eps or old_eps or [''])[0]}`" if (new_eps or old_eps) else title
    old_groups = {g: v for g, v in old["groups"].items()}
    new_groups = {g: v for g, v in new["groups"].items() if not g.lower().startswith("removed")}
    for group, fields in new_groups.items():
        label = group.rstrip("s") if group.endswith("fields") else group
        base = old_groups.get(group, {})
        if not base and group.lower().startswith("required header"):
            base = {v: "" for k, v in old["settings"].items() if "header" in k.lower()}
        for typ, details, breaking in group_changes(label, base, fields):
            rows.append({"type": typ, "where": where, "details": details, "breaking": breaking})
    for name, value in new["settings"].items():
        before = old["settings"].get(name)
        if before and before != value:
            rows.append(
                {
                    "type": "MODIFY",
                    "where": where,
                    "details": f"{name}: `{before}` → `{value}`",
                    "breaking": True,
                }
            )
    for rule in new["rules"]:
        if "reject" in rule.lower() or "required" in rule.lower():
            rows.append({"type": "ADD", "where": where, "details": f"New rule: {rule}", "breaking": True})
    return rows


def solve(call: Callable[..., Any], instruction: str) -> str:
    """Diff the two API documents and return the migration changelog."""
    docs = attachments(instruction)
    names = sorted(docs)
    old_doc, new_doc = docs[names[0]], docs[names[1]]
    old_title = re.search(r"^# +(.+)$", old_doc, re.M).group(1)
    new_title = re.search(r"^# +(.+)$", new_doc, re.M).group(1)
    old, new = parse(old_doc), parse(new_doc)
    old_by_key = {key_of(t): s for t, s in old.items()}
    rows = []
    for title, sec in new.items():
        rows += diff_section(title, old_by_key.get(key_of(title)), sec)
    for title in old:
        if key_of(title) not in {key_of(t) for t in new}:
            rows.append(
                {
                    "type": "REMOVE",
                    "where": title,
                    "details": "Section removed in the new version.",
                    "breaking": True,
                }
            )
    return report(old_title, new_title, rows, new)


def report(old_title: str, new_title: str, rows: list[dict[str, Any]], new: dict[str, Any]) -> str:
    """Render the changelog."""
    breaking = [r for r in rows if r["breaking"]]
    sections_breaking = list(dict.fromkeys(r["where"].split(" — ")[0] for r in breaking))
    sections_safe = [t for t in new if t not in sections_breaking]
    lines = [
        f"# Migration Changelog: {old_title} → {new_title}",
        "",
        "## Overview",
        f"- {len(rows)} changes across {len(new)} sections; {len(breaking)} are Breaking, "
        f"{len(rows) - len(breaking)} Non-breaking.",
        f"- Sections with breaking changes: {', '.join(sections_breaking)}.",
        f"- Purely additive: {', '.join(sections_safe) or 'none'}.",
        "",
        "## Change Table",
        "",
        "| Change Type | Section / Endpoint | Details | Impact Assessment |",
        "|---|---|---|---|",
    ]
    for r in rows:
        impact = "Breaking — clients must change" if r["breaking"] else "Non-breaking — optional adoption"
        lines.append(f"| {r['type']} | {r['where']} | {r['details']} | {impact} |")
    count = {t: sum(1 for r in breaking if r["where"].startswith(t)) for t in sections_breaking}
    ranked = sorted(sections_breaking, key=lambda t: -count[t])
    lines += [
        "",
        "## Migration Priority / Recommendations",
        "",
        "Priority follows the number of breaking changes each section forces on client code.",
        "",
    ]
    for i, t in enumerate(ranked, 1):
        what = "; ".join(r["details"].rstrip(".") for r in breaking if r["where"].startswith(t))
        lines.append(f"{i}. **{t}** (Breaking, {count[t]} change{'s' if count[t] > 1 else ''}) — {what}.")
    for i, t in enumerate(sections_safe, len(ranked) + 1):
        lines.append(f"{i}. **{t}** (Non-breaking, low priority) — adopt when convenient.")
    lines += [
        "",
        "Suggested plan: build the v2 client behind a switch and migrate the breaking sections in the "
        "order above in one release (authentication is needed by every call, so test it first in "
        "staging); move off deprecated endpoints before they are removed; adopt the new additive "
        "endpoints afterwards.",
    ]
    return "\n".join(lines)
