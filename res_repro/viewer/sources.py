"""What a view shows, read from a run folder, a lineage store or an episode store.

A run folder (``runs/<experiment>/runs/<time>/``) gives its tables (``*.csv``), its episodes
(``episodes.jsonl``) and the lineage nodes it used (``lineages.jsonl``), whose environments are read from
the lineage store of the cache the run used (found by walking up from the run folder to ``.cache/``, or
given). A lineage store (``.cache/lineages``) or an episode store (``.cache/episodes``) shows everything in
it, with its sibling store beside it.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from res_repro.errors import UserInputError
from res_repro.reporting.tables import Table as ResultTable
from res_repro.res.lineage import ENV_DIR, MANIFEST, LineageStore
from res_repro.storage import CORRUPT

RUN_FILES = ("episodes.jsonl", "lineages.jsonl")
EPISODE_KEYS = ("episode_id", "task_id", "agent", "environment")  # what the pages need of an episode record
NODE_KEYS = ("node_id", "seed_task_id")  # and of a lineage manifest
LINEAGES, EPISODES = "lineages", "episodes"


@dataclass
class Table:
    """One CSV table of a run: its name, columns and rows, each row its cells in column order (a table may
    name two columns alike, such as each metric's ``95% CI`` and ``paper``, so cells are read by
    position, never by header)."""

    name: str
    columns: list[str]
    rows: list[list[str]]
    title: str = ""  # the heading and notes of the Markdown written beside the CSV, when there is one
    notes: list[str] = field(default_factory=list)

    def first(self, row: list[str], column: str) -> str | None:
        """The cell of ``row`` under the first column named ``column`` (None when there is none)."""
        if column not in self.columns:
            return None
        index = self.columns.index(column)
        return row[index] if index < len(row) else ""


@dataclass
class ViewSource:
    """Everything one view shows: tables, episode records, and the lineage store with the nodes to show."""

    label: str
    tables: list[Table] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    lineage_root: Path | None = None
    node_ids: set[str] | None = None  # the run's nodes; None: every node in the store
    seed_ids: set[str] | None = None  # the seed tasks of those nodes; None: every seed in the store
    display_names: dict[str, str] = field(default_factory=dict)  # a model's display name -> agent key
    # manifests read so far, by seed: a view is a snapshot, and the pages ask for each seed several times
    _read: dict[str, list[dict[str, Any]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def relabelled(self, label: str) -> ViewSource:
        """The same view under another label, keeping the manifests read so far."""
        copy = replace(self, label=label)
        copy._read.update(self._read)
        return copy

    def seeds(self) -> list[str]:
        """The seed tasks with at least one node to show."""
        if self.lineage_root is None or not self.lineage_root.is_dir():
            return []
        names = (p.name for p in self.lineage_root.iterdir()) if self.seed_ids is None else self.seed_ids
        return sorted(s for s in names if self.manifests(s))

    def manifests(self, seed: str) -> list[dict[str, Any]]:
        """The node manifests of a seed shown here, by depth (read as written; nothing is rebuilt)."""
        if seed not in self._read:
            self._read[seed] = self._read_manifests(seed)
        return self._read[seed]

    def _read_manifests(self, seed: str) -> list[dict[str, Any]]:
        assert self.lineage_root is not None
        found = []
        for path in sorted((self.lineage_root / seed).glob(f"*/{MANIFEST}")):
            if CORRUPT in path.parent.name:  # a damaged node moved aside by the store
                continue
            manifest = _record(path.read_text(encoding="utf-8"), str(path), NODE_KEYS)
            if self.node_ids is None or manifest["node_id"] in self.node_ids:
                found.append(manifest)
        return sorted(found, key=lambda m: (m["depth"], m["node_id"]))

    def rejections(self, seed: str) -> list[dict[str, Any]]:
        """The rejected candidates of a seed whose parent is shown here."""
        assert self.lineage_root is not None
        shown = {m["node_id"] for m in self.manifests(seed)}
        return [r for r in LineageStore(self.lineage_root).rejections(seed) if r["parent_id"] in shown]

    def env_dir(self, seed: str, node_id: str) -> Path:
        """A node's environment folder in the lineage store."""
        assert self.lineage_root is not None
        return self.lineage_root / seed / node_id / ENV_DIR


def _record(text: str, where: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """One JSON record holding ``keys``; anything else is one line naming ``where`` and what was expected."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserInputError(
            f"{where}: not JSON ({exc.msg}); expected a record with {', '.join(keys)}"
        ) from None
    if not isinstance(record, dict) or not all(key in record for key in keys):
        raise UserInputError(f"{where}: not a record with {', '.join(keys)}")
    return record


def _jsonl(path: Path, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as handle:
        return [_record(line, f"{path}:{n}", keys) for n, line in enumerate(handle, start=1) if line.strip()]


def _tables(run: Path) -> list[Table]:
    """Each CSV table, with the heading and notes of the Markdown beside it."""
    tables = []
    for path in sorted(run.glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            header, *rows = list(csv.reader(handle)) or [[]]
        width = len(header)
        markdown = path.with_suffix(".md")
        title, notes = (
            ResultTable.heading_and_notes(markdown.read_text(encoding="utf-8"))
            if markdown.is_file()
            else ("", [])
        )
        tables.append(Table(path.stem, header, [(row + [""] * width)[:width] for row in rows], title, notes))
    return tables


def _display_names(run: Path) -> dict[str, str]:
    """Model display names of the run's config (``.hydra/config.yaml``) mapped to their agent keys."""
    config = run / ".hydra" / "config.yaml"
    if not config.is_file():
        return {}
    models = (yaml.safe_load(config.read_text(encoding="utf-8")) or {}).get("models") or {}
    return {str(m["name"]): key for key, m in models.items() if isinstance(m, dict) and "name" in m}


def _cache_above(run: Path) -> Path | None:
    """The nearest ``.cache`` folder above a run folder that holds a lineage store."""
    for folder in run.resolve().parents:
        if (folder / ".cache" / LINEAGES).is_dir():
            return folder / ".cache"
    return None


def _store_episodes(root: Path) -> list[dict[str, Any]]:
    return [
        _record(p.read_text(encoding="utf-8"), str(p), EPISODE_KEYS) for p in sorted(root.glob("*/*.json"))
    ]


def newest_run(runs_dir: Path) -> Path:
    """The most recently written run folder under ``runs_dir``."""
    found = [p.parent for name in RUN_FILES for p in runs_dir.glob(f"**/{name}")]
    if not found:
        raise UserInputError(f"{runs_dir}: no run folder found (expected one with {' or '.join(RUN_FILES)})")
    return max(found, key=lambda p: p.stat().st_mtime)


def _is_lineage_store(folder: Path) -> bool:
    return any(folder.glob(f"*/*/{MANIFEST}"))


def resolve_source(target: Path, cache_dir: Path | None = None) -> ViewSource:
    """What ``target`` (a run folder, a lineage store or an episode store) shows; ``cache_dir`` is the
    cache whose lineage store holds a run's environments (default: the ``.cache`` above the run)."""
    if not target.is_dir():
        raise UserInputError(f"{target}: not a folder; expected a run folder, a lineage or an episode store")
    if any((target / name).is_file() for name in RUN_FILES) or any(target.glob("*.csv")):
        cache = cache_dir or _cache_above(target)
        nodes = _jsonl(target / "lineages.jsonl", NODE_KEYS)
        return ViewSource(
            label=str(target),
            tables=_tables(target),
            episodes=_jsonl(target / "episodes.jsonl", EPISODE_KEYS),
            lineage_root=cache / LINEAGES if cache else None,
            node_ids={m["node_id"] for m in nodes},
            seed_ids={m["seed_task_id"] for m in nodes},
            display_names=_display_names(target),
        )
    if _is_lineage_store(target):
        episodes = target.parent / EPISODES
        return ViewSource(
            label=str(target),
            episodes=_store_episodes(episodes) if episodes.is_dir() else [],
            lineage_root=target,
        )
    if _is_episode_store(target):
        lineages = target.parent / LINEAGES
        return ViewSource(
            label=str(target),
            episodes=_store_episodes(target),
            lineage_root=lineages if lineages.is_dir() else None,
        )
    if any(next(target.glob(f"**/{name}"), None) for name in RUN_FILES):  # a project, runs/, runs/<exp>...
        return resolve_source(newest_run(target), cache_dir)
    for inner in (target / ".cache" / LINEAGES, target / LINEAGES):  # a project without runs, or its cache
        if _is_lineage_store(inner):
            return resolve_source(inner)
    raise UserInputError(
        f"{target}: neither a run folder ({', '.join(RUN_FILES)}, *.csv), a folder of runs, a lineage or an "
        "episode store, nor a project folder holding a .cache"
    )


def _is_episode_store(folder: Path) -> bool:
    """Whether ``folder`` holds episode records as an episode store keeps them (``ab/ab....json``)."""
    return any(p.name.startswith(p.parent.name) and len(p.parent.name) == 2 for p in folder.glob("*/*.json"))
