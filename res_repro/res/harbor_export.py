"""Scaled environments out as a Harbor dataset: one task directory per exported node, named uniquely.

The source is a lineage store (``.cache/lineages`` after a run, or any folder of them) or a folder of
Harbor tasks. From a store, the last node of each lineage is exported (every node with ``every_node``);
each gets the name ``<org>/<seed>-d<depth>-<content hash>`` and its lineage (seed, depth, node, parent,
operators) under ``[metadata.res_repro]``, so a seed and its children never collide in one dataset.
Lineages of other task formats are skipped and counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from res_repro.env.errors import TaskFormatError
from res_repro.env.formats import load_path
from res_repro.env.formats.harbor import HARBOR
from res_repro.env.formats.harbor.export import package_part, write_harbor_task
from res_repro.res.lineage import MANIFEST, LineageStore, Node

DEFAULT_ORG = "res-repro"


@dataclass
class ExportReport:
    """What an export wrote and what it left out."""

    written: list[Path] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # seed or task -> why


def _stored_seeds(root: Path) -> list[str]:
    return sorted(
        seed.name
        for seed in root.iterdir()
        if seed.is_dir() and any((node / MANIFEST).is_file() for node in seed.iterdir() if node.is_dir())
    )


def _ends(nodes: list[Node]) -> list[Node]:
    """The nodes no other node extends: the last environment of each lineage."""
    parents = {node.manifest.parent_id for node in nodes}
    return [node for node in nodes if node.manifest.node_id not in parents]


def _node_name(org: str, node: Node) -> str:
    manifest = node.manifest
    return f"{org}/{package_part(manifest.seed_task_id)}-d{manifest.depth}-{manifest.content_hash[:10]}"


def _lineage_metadata(node: Node) -> dict[str, object]:
    manifest = node.manifest
    return {
        "seed": manifest.seed_task_id,
        "depth": manifest.depth,
        "node": manifest.node_id,
        "parent": manifest.parent_id or "",
        "operators": [application.operator for application in manifest.history],
        "content_hash": manifest.content_hash,
    }


def is_lineage_store(path: Path) -> bool:
    """True when ``path`` holds stored lineages (``<seed>/<node>/manifest.json``)."""
    return path.is_dir() and bool(_stored_seeds(path))


def export_store(
    source: Path, out: Path, *, org: str = DEFAULT_ORG, every_node: bool = False
) -> ExportReport:
    """Write the Harbor nodes of the lineage store ``source`` under ``out`` (see the module docstring)."""
    store, report = LineageStore(source), ExportReport()
    for seed in _stored_seeds(source):
        nodes = store.nodes(seed)
        if nodes[0].manifest.kind != HARBOR.name:
            report.skipped[seed] = f"a {nodes[0].manifest.kind} task (only Harbor tasks are exported)"
            continue
        for node in nodes if every_node else _ends(nodes):
            name = _node_name(org, node)
            dest = out / name.split("/", 1)[1]
            report.written.append(write_harbor_task(node.task, dest, name, _lineage_metadata(node)))
    return report


def export_tasks(source: Path, out: Path, *, org: str = DEFAULT_ORG) -> ExportReport:
    """Write every Harbor task of the folder ``source`` under ``out``, each named ``<org>/<its name>``."""
    report = ExportReport()
    for task in load_path(source):
        if task.kind != HARBOR.name:
            report.skipped[task.task_id] = f"a {task.kind} task (only Harbor tasks are exported)"
            continue
        name = f"{org}/{package_part(task.task_id)}"
        metadata = {"seed": task.task_id, "depth": 0, "content_hash": task.content_hash}
        report.written.append(write_harbor_task(task, out / name.split("/", 1)[1], name, metadata))
    return report


def export_harbor(
    source: Path, out: Path, *, org: str = DEFAULT_ORG, every_node: bool = False
) -> ExportReport:
    """Export a lineage store or a folder of Harbor tasks to the Harbor dataset folder ``out``."""
    if not source.is_dir():
        raise TaskFormatError(source, None, "not found; expected a lineage store or a folder of Harbor tasks")
    if out.exists() and any(out.iterdir()):
        raise TaskFormatError(out, None, "not empty; expected a new or empty folder for the dataset")
    out.mkdir(parents=True, exist_ok=True)
    if is_lineage_store(source):
        return export_store(source, out, org=org, every_node=every_node)
    return export_tasks(source, out, org=org)
