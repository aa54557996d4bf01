"""The view as static HTML pages (Jinja2 templates): one folder that a browser, a local server or MLflow's
artifact view opens, with its stylesheet beside the pages and no script that needs a server.

Pages: ``index.html`` (the run's tables with their notes, each row linked to the episodes behind it, and
the seeds), ``groups/<id>.html`` (the episodes of one agent in one environment), ``agents/<id>.html``
(one agent's tasks, original against scaled), ``pairs/<id>.html`` (one agent on one task in both
environments, turn by turn), ``episodes/<id>.html`` (one trajectory), ``seeds/<seed>.html`` (a lineage
drawn as a tree E0..Ek with rejected candidates, and its deepest environment's dependency graph) and
``nodes/<seed>/<node>.html`` (a node's changes in words, checks, dependency graph and diff).
"""

from __future__ import annotations

import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

from res_repro.viewer import readable
from res_repro.viewer.changes import parameters, sentence
from res_repro.viewer.lineage_pages import write_lineage
from res_repro.viewer.pairs import ORIGINAL, Pair, page_id, pairs
from res_repro.viewer.sources import Table, ViewSource

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"
CONDITION_COLUMNS = ("environment", "condition")


def group_id(agent: str, environment: str) -> str:
    """The file name of the page of one agent's episodes in one environment."""
    return page_id(agent, environment)


def _code(text: str) -> Markup:
    """Text with its `backticked` spans set as code (everything escaped)."""
    pieces = str(escape(text)).split("`")
    return Markup("".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(pieces)))


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]), keep_trailing_newline=True
    )
    env.filters.update(
        pretty=readable.pretty,
        long_texts=readable.long_texts,
        number=readable.number,
        code=_code,
        sentence=sentence,
        parameters=parameters,
    )
    return env


def _row_link(
    table: Table, row: list[str], source: ViewSource, links: dict[tuple[str, str], str]
) -> str | None:
    """Where a table row leads: its agent (a model's display name mapped to its key) in its environment
    column (a marker in parentheses dropped), when the run has such episodes."""
    shown = table.first(row, "agent") or ""
    agent = source.display_names.get(shown, shown)
    condition = next((table.first(row, c) for c in CONDITION_COLUMNS if c in table.columns), None)
    if condition is None:
        return None
    return links.get((agent, condition.split(" (")[0].strip()))


def _links(by_group: dict[tuple[str, str], list[Any]], paired: list[Pair]) -> dict[tuple[str, str], str]:
    """Each (agent, environment)'s page: the agent's paired tasks when that environment is in a pair
    (the original and the scaled rows of a table both lead there), else its episodes."""
    links = {key: f"groups/{group_id(*key)}.html" for key in by_group}
    for pair in paired:
        agent = pair.scaled["agent"]
        for environment in (ORIGINAL, pair.scaled["environment"]):
            links[(agent, environment)] = f"agents/{page_id(agent)}.html"
    return links


def write_bundle(source: ViewSource, out: Path) -> Path:
    """Write every page of ``source`` under ``out``; return the index page."""
    env = _environment()
    out.mkdir(parents=True, exist_ok=True)
    for path in STATIC.iterdir():
        shutil.copyfile(path, out / path.name)

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
    paired = pairs(episodes, {seed: source.manifests(seed) for seed in seeds})
    by_agent: dict[str, list[Pair]] = defaultdict(list)
    for pair in paired:
        by_agent[pair.scaled["agent"]].append(pair)
    links = _links(by_group, paired)
    tables = [
        {"table": t, "rows": [{"cells": row, "link": _row_link(t, row, source, links)} for row in t.rows]}
        for t in source.tables
    ]
    groups = [
        {"id": group_id(*key), "agent": key[0], "environment": key[1], "n": len(group)}
        for key, group in by_group.items()
    ]
    agents = [{"id": page_id(agent), "agent": agent, "n": len(found)} for agent, found in by_agent.items()]
    render(
        "index.html",
        "index.html",
        0,
        tables=tables,
        seeds=seeds,
        groups=groups,
        agents=agents,
        n_episodes=len(episodes),
    )
    for key, group in by_group.items():
        render(
            f"groups/{group_id(*key)}.html", "group.html", 1, agent=key[0], environment=key[1], episodes=group
        )
    for agent, found in by_agent.items():
        environments = sorted({p.scaled["environment"] for p in found})
        groups_of = {e: group_id(agent, e) for e in [ORIGINAL, *environments]}
        render(f"agents/{page_id(agent)}.html", "agent.html", 1, agent=agent, pairs=found, groups=groups_of)
    for pair in paired:
        render(f"pairs/{pair.id}.html", "pair.html", 1, pair=pair, agent_page=page_id(pair.scaled["agent"]))
    pair_of = {p.scaled["episode_id"]: p.id for p in paired} | {
        p.original["episode_id"]: p.id for p in paired
    }
    for episode in episodes:
        render(
            f"episodes/{episode['episode_id']}.html",
            "episode.html",
            1,
            episode=episode,
            pair=pair_of.get(episode["episode_id"]),
        )
    for seed in seeds:
        write_lineage(source, seed, by_node, render)
    return out / "index.html"
