"""The lineage store: every environment of a lineage as a self-contained directory with a manifest.

Layout: ``<root>/<seed task id>/<node id>/env/`` (the task directory, loadable like any other) and
``manifest.json`` beside it (parent, depth, the operators applied here and since E0, the dependency
graph, check results, proposer cost, target outcomes, the content hash of ``env/``, and a hash of the
node's identity: id, parent, depth, changes, graph, content hash). The manifest is written last,
atomically, so a node without one is unfinished and is rebuilt; a node whose manifest is damaged
(truncated, emptied) is moved aside as ``<node id>.corrupt-<timestamp>`` and rebuilt, and one edited by
hand (its env/ or its identity) is refused with one line. Candidates that failed a
check are kept as records under ``<root>/<seed task id>/.rejected/`` (their change, every check
result). Node ids are hashes of the parent id and the change, so rerunning the same configuration finds
and reuses finished nodes.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from res_repro.env.errors import TaskFormatError
from res_repro.env.formats import load_task_dir
from res_repro.env.task import Task, hash_tree
from res_repro.evaluation.episode import LineagePlace
from res_repro.res.graph import DependencyGraph
from res_repro.res.operators.base import Application
from res_repro.storage import CORRUPT, quarantine, read_json_record, record_fields, write_json_atomic

MANIFEST = "manifest.json"
ENV_DIR = "env"
GROWN = ".grown"  # growth key -> accepted child id, so reruns skip re-proposing
REJECTED = ".rejected"  # rejected candidates: their change and check results
UNACCEPTED = ".unaccepted"  # growth key -> what proposing cost when no child was accepted
IDENTITY_HASH = "identity_hash"
IDENTITY = (
    "node_id", "seed_task_id", "kind", "parent_id", "depth", "applications", "history", "graph",
    "content_hash", "context",
)  # fmt: skip


@dataclass
class Manifest:
    """Everything recorded about one node."""

    node_id: str
    seed_task_id: str
    kind: str  # the task format of env/
    parent_id: str | None
    depth: int
    applications: list[Application]  # this node's own change
    history: list[Application]  # every change since E0, oldest first
    graph: DependencyGraph
    content_hash: str
    checks: list[dict[str, Any]] = field(default_factory=list)
    proposer: dict[str, Any] = field(default_factory=dict)
    target: list[dict[str, Any]] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)  # what the format needs to load env/ (a checkout)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict, with the hash of what identifies the node (:func:`identity_hash`)."""
        data = record_fields(self)
        data["applications"] = [a.to_dict() for a in self.applications]
        data["history"] = [a.to_dict() for a in self.history]
        data["graph"] = self.graph.to_dict()
        data[IDENTITY_HASH] = identity_hash(data)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Manifest:
        """Rebuild a manifest written by :meth:`to_dict`."""
        data = {key: value for key, value in data.items() if key != IDENTITY_HASH}
        return cls(
            **{
                **data,
                "applications": [Application.from_dict(a) for a in data["applications"]],
                "history": [Application.from_dict(a) for a in data["history"]],
                "graph": DependencyGraph.from_dict(data["graph"]),
            }
        )


def identity_hash(data: dict[str, Any]) -> str:
    """The hash of a manifest's fields that identify the node and place it in its lineage (everything but
    the records a rerun may add: checks, proposer cost, target outcomes)."""
    blob = json.dumps({key: data[key] for key in IDENTITY}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass
class Node:
    """A stored environment: its directory, its manifest and its task."""

    path: Path
    manifest: Manifest
    task: Task

    @property
    def env_dir(self) -> Path:
        """The task directory of this environment."""
        return self.path / ENV_DIR

    @property
    def place(self) -> LineagePlace:
        """Where this node sits in its lineage (copied onto the records of episodes run on it)."""
        return LineagePlace(self.manifest.seed_task_id, self.manifest.node_id, self.manifest.depth)


def node_id(parent_id: str | None, seed_task_hash: str, applications: list[Application]) -> str:
    """A stable id from the parent and the change (the root's from the seed task's content)."""
    blob = json.dumps(
        {"parent": parent_id, "seed": seed_task_hash, "change": [a.to_dict() for a in applications]},
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


class LineageStore:
    """Nodes on disk under ``root``, grouped by seed task."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def node_path(self, seed_task_id: str, nid: str) -> Path:
        """Where a node lives."""
        return self.root / seed_task_id / nid

    def load(self, seed_task_id: str, nid: str) -> Node | None:
        """A finished node, its content verified; None when absent or unfinished."""
        path = self.node_path(seed_task_id, nid)
        manifest_path = path / MANIFEST
        if not manifest_path.is_file():
            if path.is_dir():  # nodes are published whole (see save): a folder without one is damage
                quarantine(path, f"no {MANIFEST} (a damaged node)")
            return None
        read = read_json_record(
            manifest_path, lambda data: (data, Manifest.from_dict(data)), quarantined=path
        )
        if read is None:
            return None
        data, manifest = read
        if IDENTITY_HASH not in data:  # written before manifests carried it: rebuilt, as a damaged one
            quarantine(path, f"{MANIFEST} has no {IDENTITY_HASH} (written by an older version)")
            return None
        if data[IDENTITY_HASH] != identity_hash(data):
            raise TaskFormatError(
                manifest_path,
                IDENTITY_HASH,
                "does not match the node's id, parent, depth and changes: the manifest was edited by hand",
            )
        actual = hash_tree(path / ENV_DIR)
        if actual != manifest.content_hash:
            raise TaskFormatError(
                manifest_path,
                "content_hash",
                f"does not match env/ ({actual[:12]}...): the node was edited by hand",
            )
        return self._node(path, manifest)

    @staticmethod
    def _node(path: Path, manifest: Manifest) -> Node:
        """The node at ``path`` with its environment loaded as a task of the manifest's kind."""
        task = load_task_dir(
            path / ENV_DIR,
            benchmark=f"res:{manifest.seed_task_id}",
            kind=manifest.kind,
            context=manifest.context,
        )
        return Node(path, manifest, task)

    def save(self, env_dir: Path, manifest: Manifest) -> Node:
        """Publish a finished environment with its manifest by renaming its whole folder into place.

        ``env_dir`` must be the ``env`` folder inside a scratch folder from :meth:`workspace`. The
        rename is atomic, so readers (other processes of a parallel multirun included) see either the
        complete node or none; when another process published the same node first, its copy (built
        from the same parent and change) is kept.
        """
        staging = env_dir.parent
        manifest.content_hash = hash_tree(env_dir)
        write_json_atomic(staging / MANIFEST, manifest.to_dict())
        final = self.node_path(manifest.seed_task_id, manifest.node_id)
        final.parent.mkdir(parents=True, exist_ok=True)
        if final.is_dir() and not (final / MANIFEST).is_file():
            quarantine(final, f"no {MANIFEST} (a damaged node)")
        try:
            os.rename(staging, final)
        except OSError:
            if not (final / MANIFEST).is_file():
                raise
            loaded = self.load(manifest.seed_task_id, manifest.node_id)  # the other process's copy
            assert loaded is not None
            return loaded
        return self._node(final, manifest)  # just hashed and written: nothing to verify

    def update(self, node: Node) -> None:
        """Rewrite a node's manifest (after target outcomes are added)."""
        write_json_atomic(node.path / MANIFEST, node.manifest.to_dict())

    def remember_child(self, seed_task_id: str, key: str, nid: str) -> None:
        """Record that growing under ``key`` (parent, depth, settings, proposer) accepted node ``nid``."""
        write_json_atomic(self.root / seed_task_id / GROWN / f"{key}.json", {"node_id": nid})

    def recall_child(self, seed_task_id: str, key: str) -> Node | None:
        """The node accepted earlier under ``key`` (verified like any load); None when not recorded."""
        path = self.root / seed_task_id / GROWN / f"{key}.json"
        nid = read_json_record(path, lambda data: str(data["node_id"])) if path.is_file() else None
        return None if nid is None else self.load(seed_task_id, nid)

    def record_rejection(self, seed_task_id: str, rejection: dict[str, Any]) -> None:
        """Keep a rejected candidate (parent, depth, revision, change, check results), named by its content
        so a rerun that rejects the same candidate rewrites the same record."""
        key = hashlib.sha256(json.dumps(rejection, sort_keys=True, default=str).encode()).hexdigest()[:16]
        write_json_atomic(self.root / seed_task_id / REJECTED / f"{key}.json", rejection, durable=False)

    def record_unaccepted(self, seed_task_id: str, key: str, record: dict[str, Any]) -> None:
        """Keep what growing under ``key`` cost when it accepted no child (parent, depth, proposer cost and
        why), so a table counts every proposer call; a rerun under the same key rewrites it."""
        write_json_atomic(self.root / seed_task_id / UNACCEPTED / f"{key}.json", record, durable=False)

    def unaccepted(self, seed_task_id: str, key: str) -> dict[str, Any] | None:
        """The record :meth:`record_unaccepted` kept under ``key``, or None."""
        path = self.root / seed_task_id / UNACCEPTED / f"{key}.json"
        return read_json_record(path, dict) if path.is_file() else None

    def rejections(self, seed_task_id: str) -> list[dict[str, Any]]:
        """Every rejected candidate kept for a seed task, by depth then revision."""
        folder = self.root / seed_task_id / REJECTED
        found = [json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*.json")]
        return sorted(found, key=lambda r: (r.get("depth", 0), r.get("revision", 0), r.get("parent_id", "")))

    def workspace(self, seed_task_id: str) -> Path:
        """A fresh scratch folder for building a candidate (removed by the caller)."""
        folder = self.root / seed_task_id / ".staging"
        folder.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(dir=folder))

    def nodes(self, seed_task_id: str) -> list[Node]:
        """Every finished node of a seed task, by depth."""
        folder = self.root / seed_task_id
        found = (
            [
                self.load(seed_task_id, p.name)
                for p in folder.iterdir()
                if (p / MANIFEST).is_file() and CORRUPT not in p.name
            ]
            if folder.is_dir()
            else []
        )
        return sorted((n for n in found if n is not None), key=lambda n: n.manifest.depth)
