"""The view as static HTML pages (Jinja2 templates): one folder that a browser, a local server or MLflow's
artifact view opens.

Pages: ``index.html`` (the run's tables, each row linked to the episodes behind it, and the seeds),
``groups/<id>.html`` (the episodes of one agent in one environment), ``episodes/<id>.html`` (one
trajectory), ``seeds/<seed>.html`` (a lineage as a tree E0..Ek with rejected candidates) and
``nodes/<seed>/<node>.html`` (a node's change, checks and diff against its parent).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from res_repro.viewer.diff import tree_diff
from res_repro.viewer.sources import Table, ViewSource

TEMPLATES = Path(__file__).parent / "templates"
CONDITION_COLUMNS = ("environment", "condition")


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]), keep_trailing_newline=True
    )
    env.filters["pretty"] = lambda value: json.dumps(value, indent=2, default=str, ensure_ascii=False)
    return env


def group_id(agent: str, environment: str) -> str:
    """The file name of the page of one agent's episodes in one environment."""
    return hashlib.sha256(f"{agent}\0{environment}".encode()).hexdigest()[:12]


def _row_group(table: Table, row: list[str], source: ViewSource, groups: set[tuple[str, str]]) -> str | None:
    """The episode group behind a table row: its agent (a model's display name mapped to its key) and its
    environment column (a marker in parentheses dropped), when the run has such episodes."""
    shown = table.first(row, "agent") or ""
    agent = source.display_names.get(shown, shown)
    condition = next((table.first(row, c) for c in CONDITION_COLUMNS if c in table.columns), None)
    if condition is None:
        return None
    key = (agent, condition.split(" (")[0].strip())
    return group_id(*key) if key in groups else None


def _table_view(table: Table, source: ViewSource, groups: set[tuple[str, str]]) -> dict[str, Any]:
    return {
        "name": table.name,
        "columns": table.columns,
        "rows": [{"cells": row, "group": _row_group(table, row, source, groups)} for row in table.rows],
    }


def _lineage(source: ViewSource, seed: str) -> dict[str, Any]:
    """A seed's nodes as a tree (children under their parent) with the rejections under their parent."""
    manifests = source.manifests(seed)
    rejected: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rejection in source.rejections(seed):
        rejected[rejection["parent_id"]].append(rejection)
    children: dict[str | None, list[dict[str, Any]]] = defaultdict(list)
    ids = {m["node_id"] for m in manifests}
    for manifest in manifests:
        parent = manifest["parent_id"] if manifest["parent_id"] in ids else None
        children[parent].append(manifest)
    order: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []

    def visit(parent: str | None) -> None:
        for manifest in children.get(parent, []):
            order.append((manifest, rejected.get(manifest["node_id"], [])))
            visit(manifest["node_id"])

    visit(None)
    return {"seed": seed, "nodes": order}


def write_bundle(source: ViewSource, out: Path) -> Path:
    """Write every page of ``source`` under ``out``; return the index page."""
    env = _environment()
    out.mkdir(parents=True, exist_ok=True)

    def render(name: str, template: str, depth: int, **values: Any) -> None:
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        page = env.get_template(template).render(root="../" * depth, label=source.label, **values)
        path.write_text(page, encoding="utf-8")

    episodes = source.episodes
    by_group: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    by_node: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for episode in episodes:
        by_group[(episode["agent"], episode["environment"])].append(episode)
        if episode.get("node_id"):
            by_node[episode["node_id"]].append(episode)
    seeds = source.seeds()
    tables = [_table_view(t, source, set(by_group)) for t in source.tables]
    groups = [
        {"id": group_id(*key), "agent": key[0], "environment": key[1], "n": len(group)}
        for key, group in by_group.items()
    ]
    render("index.html", "index.html", 0, tables=tables, seeds=seeds, groups=groups, n_episodes=len(episodes))
    for key, group in by_group.items():
        render(
            f"groups/{group_id(*key)}.html", "group.html", 1, agent=key[0], environment=key[1], episodes=group
        )
    for episode in episodes:
        render(f"episodes/{episode['episode_id']}.html", "episode.html", 1, episode=episode)
    for seed in seeds:
        lineage = _lineage(source, seed)
        render(f"seeds/{seed}.html", "seed.html", 1, lineage=lineage)
        known = {m["node_id"] for m, _ in lineage["nodes"]}
        for manifest, rejections in lineage["nodes"]:
            parent = manifest["parent_id"] if manifest["parent_id"] in known else None
            diff = tree_diff(
                source.env_dir(seed, parent) if parent else None, source.env_dir(seed, manifest["node_id"])
            )
            render(
                f"nodes/{seed}/{manifest['node_id']}.html",
                "node.html",
                2,
                manifest=manifest,
                rejections=rejections,
                diff=diff,
                episodes=by_node.get(manifest["node_id"], []),
            )
    return out / "index.html"
