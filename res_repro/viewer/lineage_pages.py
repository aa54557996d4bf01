"""The pages of one seed's lineage: ``seeds/<seed>.html`` (the lineage drawn as a tree E0..Ek with its
rejected candidates, and the deepest environment's dependency graph) and ``nodes/<seed>/<node>.html`` (a
node's changes in words, checks, dependency graph, episodes and diff against its parent)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Protocol

from res_repro.viewer.changes import changes_behind
from res_repro.viewer.diff import tree_diff
from res_repro.viewer.graphs import dependency_graph, lineage_tree
from res_repro.viewer.sources import ViewSource


class Render(Protocol):
    """Writes one page: its file name under the bundle, its template, its depth below the root, values."""

    def __call__(self, name: str, template: str, depth: int, **values: Any) -> None: ...


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


def write_lineage(
    source: ViewSource, seed: str, by_node: dict[str, list[dict[str, Any]]], render: Render
) -> None:
    """The pages of one seed's lineage: the tree, and one page per node."""
    lineage = _lineage(source, seed)
    manifests = [m for m, _ in lineage["nodes"]]
    deepest = max(manifests, key=lambda m: m["depth"])
    tree = lineage_tree(
        lineage["nodes"],
        {m["node_id"]: f"../nodes/{seed}/{m['node_id']}.html" for m in manifests},
        f"lineage of {seed}",
    )
    deepest_graph = dependency_graph(
        deepest["graph"],
        changes_behind(manifests, deepest["node_id"]),
        None,
        f"dependency graph of {seed} E{deepest['depth']}",
        "../",
    )
    render(
        f"seeds/{seed}.html", "seed.html", 1, lineage=lineage, tree=tree, deepest=deepest, graph=deepest_graph
    )
    known = {m["node_id"] for m in manifests}
    for manifest, rejections in lineage["nodes"]:
        parent = manifest["parent_id"] if manifest["parent_id"] in known else None
        diff = tree_diff(
            source.env_dir(seed, parent) if parent else None, source.env_dir(seed, manifest["node_id"])
        )
        changes = changes_behind(manifests, manifest["node_id"])
        graph = dependency_graph(
            manifest["graph"],
            changes,
            manifest["node_id"],
            f"dependency graph of {seed} E{manifest['depth']}",
            "../../",
        )
        render(
            f"nodes/{seed}/{manifest['node_id']}.html",
            "node.html",
            2,
            manifest=manifest,
            changes=[c for c in changes if c.node_id == manifest["node_id"]],
            rejections=rejections,
            diff=diff,
            graph=graph,
            episodes=by_node.get(manifest["node_id"], []),
        )
