"""What a lineage store holds, summarised (``res-repro lineages STORE``): the accepted changes by family,
operator and depth; how many composed on an earlier change, and on what; and how far each seed grew.

The store is read as written, manifest by manifest (``<seed>/<node>/manifest.json``) with each seed's
rejected candidates (``<seed>/.rejected/``): nothing is loaded, verified against ``env/`` or rebuilt, so
summarising never changes the store, and a Claw-Eval-Live store reads without its checkout. Everything
stored is counted, whatever run grew it (a store shared by runs with other settings holds their nodes too).

- An **accepted change** is one operator application of an accepted child (a node below the root); its
  family, operator and depth are the application's and its node's.
- A change **composes** when it consumed an earlier change's artifact (:attr:`Application.composes`). The
  artifact is the end of its ``composed:`` edge that an earlier change of the lineage had put in the
  graph. It is **task content** when it is a record holding the task's data (``record:``: a directory
  entry of a party the records name, an attachment holding a moved field) or a file of its workspace
  (``file:``) that an earlier change touched, and a **harness-added** artifact otherwise (a record of the
  machinery changes add, such as a vault secret, a codec or an alias map, and ``token:``, ``session:``,
  ``tool:``, ``bulk:``, ``alias:``, ``job:``, ...). The records composed on are also counted by service
  and collection.
- A seed is **unscaled** when it has no accepted child. The store keeps no stop reason of its own, so the
  reason is read from what it records: the last rejected candidate's first failed check and its detail (no
  valid child within the revision budget), or, for a record without a change, its detail alone (no
  operator applies: ``nothing_applies``; the seed's own reference fails: ``invalid_seed``); else, when the
  target's attempts at the seed are recorded and none fulfilled the task, that the target failed (stores
  grown before every seed got a child); else that no candidate was recorded.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from res_repro.errors import UserInputError
from res_repro.reporting.tables import Table
from res_repro.res.graph import GOAL, OBSERVATION
from res_repro.res.lineage import IDENTITY_HASH, MANIFEST, REJECTED, Manifest, identity_hash
from res_repro.res.operators.base import Application, Family
from res_repro.res.operators.tool_common import holds_task_data
from res_repro.storage import CORRUPT, DAMAGED_RECORD

TASK_CONTENT = ("record", "file")  # kinds of graph node that are task content (records, workspace files)
EXPECTED = "a lineage store (<seed task>/<node>/manifest.json, e.g. .cache/lineages)"
DETAIL_CHARS = 160  # a rejection's detail in the table (the JSON keeps all of it)


@dataclass(frozen=True)
class Change:
    """One accepted change: where it sits, what it is, and the earlier artifacts it composed on."""

    seed: str
    node_id: str
    depth: int
    operator: str
    family: str
    composed_on: tuple[str, ...] = ()  # graph nodes of earlier changes it consumed; empty: not composed

    @property
    def composes(self) -> bool:
        """Whether it built on an earlier change's artifact."""
        return bool(self.composed_on)

    @property
    def on(self) -> str | None:
        """What it composed on: ``task content``, ``harness-added``, ``both``, or None when not composed."""
        if not self.composed_on:
            return None
        content = {is_task_content(node) for node in self.composed_on}
        return "both" if len(content) == 2 else "task content" if content == {True} else "harness-added"


@dataclass(frozen=True)
class Seed:
    """One seed task of the store: its nodes, how deep it grew, and why not when it grew nothing."""

    seed: str
    children: int  # accepted children (nodes below the root)
    depth: int  # the deepest node's depth
    depth_1: bool  # whether it has a child at depth 1
    reason: dict[str, Any] | None = None  # why it has no child (None when it has one)


@dataclass
class LineageSummary:
    """The summary of one store (see the module docstring); :meth:`to_dict` is the ``--json`` output."""

    store: str
    seeds: list[Seed]
    changes: list[Change] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """Counts, shares and rates as plain JSON types (rates and shares are fractions, None over zero)."""
        total = len(self.changes)
        composed = [c for c in self.changes if c.composes]
        on = Counter(c.on for c in composed)
        return {
            "store": self.store,
            "changes": total,
            "children": sum(s.children for s in self.seeds),
            "by_family": {
                family: {
                    "changes": len(mine),
                    "share": _rate(len(mine), total),
                    "composed": sum(c.composes for c in mine),
                    "composition_rate": _rate(sum(c.composes for c in mine), len(mine)),
                }
                for family, mine in self._by(lambda c: c.family, _families(self.changes)).items()
            },
            "by_operator": {
                operator: {
                    "family": mine[0].family,
                    "changes": len(mine),
                    "share": _rate(len(mine), total),
                    "composed": sum(c.composes for c in mine),
                }
                for operator, mine in self._by(lambda c: c.operator, self._operators()).items()
            },
            "by_depth": {
                str(depth): {"changes": len(mine), "composed": sum(c.composes for c in mine)}
                for depth, mine in self._by(lambda c: c.depth).items()
            },
            "composition": {
                "composed": len(composed),
                "rate": _rate(len(composed), total),
                "on_task_content": on["task content"],
                "on_harness_added": on["harness-added"],
                "on_both": on["both"],
                "by_node_kind": _counts(node_kind(n) for c in composed for n in set(c.composed_on)),
                "records_by_collection": _counts(
                    record_collection(n)
                    for c in composed
                    for n in set(c.composed_on)
                    if node_kind(n) == "record"
                ),
            },
            "seeds": {
                "count": len(self.seeds),
                "with_depth_1_child": sum(s.depth_1 for s in self.seeds),
                "depth_reached": {s.seed: s.depth for s in self.seeds},
                "unscaled": [{"seed": s.seed, **s.reason} for s in self.seeds if s.reason is not None],
            },
        }

    def _operators(self) -> list[str]:
        """The operators of the changes, by family (in :func:`_families` order) then name."""
        rank = {family: i for i, family in enumerate(_families(self.changes))}
        family_of = {c.operator: c.family for c in self.changes}
        return sorted(family_of, key=lambda op: (rank[family_of[op]], op))

    def _by(self, key: Any, order: Iterable[Any] = ()) -> dict[Any, list[Change]]:
        """The changes grouped by ``key``: the keys of ``order`` first (kept when empty), then the rest
        sorted."""
        groups: dict[Any, list[Change]] = {k: [] for k in order}
        for change in sorted(self.changes, key=key):
            groups.setdefault(key(change), []).append(change)
        return groups

    def to_markdown(self) -> str:
        """The summary as Markdown: a headline, then one table each for families, operators, depths,
        composition and seeds."""
        data = self.to_dict()
        seeds, composition = data["seeds"], data["composition"]
        unscaled = seeds["unscaled"]
        lines = [
            f"## Lineage store {self.store}",
            "",
            f"{seeds['count']} seed(s), {seeds['with_depth_1_child']} with a child at depth 1, "
            f"{len(unscaled)} unscaled; {data['children']} accepted children, {data['changes']} accepted "
            f"change(s), {composition['composed']} composed on an earlier change "
            f"({_percent(composition['rate'])}).",
            "",
        ]
        families = Table(
            "Accepted changes by family", ["family", "changes", "share", "composed", "composition rate"]
        )
        for family, row in data["by_family"].items():
            rate = _percent(row["composition_rate"])
            families.add_row(family, row["changes"], _percent(row["share"]), row["composed"], rate)
        operators = Table(
            "Accepted changes by operator", ["operator", "family", "changes", "share", "composed"]
        )
        for operator, row in data["by_operator"].items():
            operators.add_row(
                operator, row["family"], row["changes"], _percent(row["share"]), row["composed"]
            )
        depths = Table("Accepted changes by depth", ["depth", "changes", "composed"])
        for depth, row in data["by_depth"].items():
            depths.add_row(depth, row["changes"], row["composed"])
        composed = Table(
            "Composition: what composed changes built on", ["built on", "changes", "of composed"]
        )
        for label, key in (("task content", "on_task_content"), ("harness-added", "on_harness_added")):
            composed.add_row(
                label, composition[key], _percent(_rate(composition[key], composition["composed"]))
            )
        if composition["on_both"]:
            both = composition["on_both"]
            composed.add_row("both", both, _percent(_rate(both, composition["composed"])))
        kinds = ", ".join(f"{kind}: {count}" for kind, count in composition["by_node_kind"].items())
        records = ", ".join(f"{name}: {n}" for name, n in composition["records_by_collection"].items())
        composed.notes = [
            "task content: a record holding the task's data (record:, e.g. the directory entry of a party "
            "the records name) or a file of its workspace (file:) that an earlier change touched; "
            "harness-added: the machinery earlier changes added (vault secrets, codecs, alias maps, tokens, "
            "sessions, tools)"
        ]
        if kinds:
            composed.notes.append(f"artifacts composed on, by kind: {kinds}")
        if records:
            composed.notes.append(f"records composed on, by service/collection: {records}")
        seeds_table = Table("Seeds", ["seed", "children", "depth reached", "unscaled: why"])
        for seed in self.seeds:
            why = "" if seed.reason is None else _cell(seed.reason["reason"])
            seeds_table.add_row(seed.seed, seed.children, seed.depth, why)
        tables = [families, operators, depths, composed, seeds_table]
        return "\n".join([*lines, *(t.to_markdown() for t in tables)])


def is_task_content(node: str) -> bool:
    """True for a graph node that is task content: a workspace file, or a record holding the task's data
    (not the machinery a change added, such as a vault secret, a codec or an alias map)."""
    kind = node_kind(node)
    if kind == "record":
        return holds_task_data(record_collection(node))
    return kind in TASK_CONTENT


def node_kind(node: str) -> str:
    """The kind of a dependency-graph node: its prefix (``record`` of ``record:crm/customers/C1``)."""
    return node.partition(":")[0] if ":" in node else node


def record_collection(node: str) -> str:
    """The service and collection of a ``record:`` node (``crm/customers`` of ``record:crm/customers/C1``)."""
    return "/".join(node.partition(":")[2].partition("#")[0].split("/")[:2])


def composed_on(manifest: Manifest, index: int) -> tuple[str, ...]:
    """The earlier artifacts that the node's ``index``-th application consumed, one per ``composed:`` edge:
    the edge's end that an earlier change of the lineage (or an earlier application of the node) had put
    in the graph, the prerequisite when both or neither had."""
    application = manifest.applications[index]
    if not application.composes:
        return ()
    own = len(manifest.applications)
    before = [*manifest.history[: max(len(manifest.history) - own, 0)], *manifest.applications[:index]]
    earlier = {end for a in before for e in a.edges for end in (e.prerequisite, e.dependent)}
    earlier -= {OBSERVATION, GOAL}
    found = []
    for edge in application.edges:
        if not edge.how.startswith("composed:"):
            continue
        artifact = edge.dependent if edge.prerequisite not in earlier and edge.dependent in earlier else None
        found.append(artifact or edge.prerequisite)
    return tuple(found)


def summarise(root: Path) -> LineageSummary:
    """The summary of the lineage store at ``root``; a folder that is not one, or a manifest or rejection
    record that cannot be read, raises :class:`UserInputError` naming the file and what was expected."""
    seeds, changes = [], []
    for folder in _seed_folders(root):
        manifests = [_manifest(path) for path in _manifest_paths(folder)]
        children = [m for m in manifests if m.parent_id is not None]
        for manifest in children:
            for index, application in enumerate(manifest.applications):
                changes.append(_change(manifest, index, application))
        reason = None if children else _unscaled_reason(folder, manifests)
        depth = max(m.depth for m in manifests)
        depth_1 = any(m.depth == 1 for m in children)
        seeds.append(Seed(folder.name, len(children), depth, depth_1, reason))
    return LineageSummary(str(root), seeds, changes)


def _change(manifest: Manifest, index: int, application: Application) -> Change:
    return Change(
        manifest.seed_task_id,
        manifest.node_id,
        manifest.depth,
        application.operator,
        application.family,
        composed_on(manifest, index),
    )


def _seed_folders(root: Path) -> list[Path]:
    """The seed folders of the store (each with at least one node manifest), or one line saying why
    ``root`` is not a store."""
    if not root.exists():
        raise UserInputError(f"{root}: not found; expected {EXPECTED}")
    if not root.is_dir():
        raise UserInputError(f"{root}: not a folder; expected {EXPECTED}")
    seeds = [p for p in sorted(root.iterdir()) if p.is_dir() and _manifest_paths(p)]
    if not seeds:
        raise UserInputError(f"{root}: holds no node manifest; expected {EXPECTED}")
    return seeds


def _manifest_paths(seed: Path) -> list[Path]:
    """The node manifests of a seed folder, leaving out its records (.grown, .rejected, .staging) and the
    nodes the store moved aside as damaged."""
    return sorted(
        node / MANIFEST
        for node in seed.iterdir()
        if not node.name.startswith(".") and CORRUPT not in node.name and (node / MANIFEST).is_file()
    )


def _json(path: Path, expected: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, OSError) as exc:
        raise UserInputError(f"{path}: unreadable ({_first_line(exc)}); expected {expected}") from None


def _manifest(path: Path) -> Manifest:
    """The manifest at ``path``, or one line naming it and what a node manifest holds."""
    expected = "a node manifest (JSON with node_id, parent_id, depth, applications, history, graph)"
    data = _json(path, expected)
    try:
        manifest = Manifest.from_dict(data)
        edited = IDENTITY_HASH in data and data[IDENTITY_HASH] != identity_hash(data)
    except DAMAGED_RECORD as exc:
        raise UserInputError(
            f"{path}: damaged ({type(exc).__name__}: {_first_line(exc)}); expected {expected}"
        ) from None
    if edited:
        raise UserInputError(
            f"{path}: {IDENTITY_HASH} does not match the node's fields; the manifest was edited"
        )
    return manifest


def _rejections(seed: Path) -> list[dict[str, Any]]:
    """The seed's rejected candidates, by depth then revision (as :meth:`LineageStore.rejections`)."""
    expected = "a rejected candidate's record (JSON with parent_id, depth, revision, steps, checks)"
    found = []
    for path in sorted((seed / REJECTED).glob("*.json")):
        record = _json(path, expected)
        if not isinstance(record, dict):
            raise UserInputError(f"{path}: not a JSON object; expected {expected}")
        found.append(record)
    return sorted(found, key=lambda r: (r.get("depth", 0), r.get("revision", 0), str(r.get("parent_id", ""))))


def _unscaled_reason(seed: Path, manifests: Sequence[Manifest]) -> dict[str, Any]:
    """Why a seed with no accepted child has none (see the module docstring), as ``stop`` (the stopping
    rule it amounts to), ``reason`` (one line) and the rejection's fields when one is the reason."""
    roots = {m.node_id for m in manifests if m.parent_id is None}
    rejections = _rejections(seed)
    mine = [r for r in rejections if r.get("parent_id") in roots] or rejections
    if mine:
        last = mine[-1]
        operators = [str(step.get("operator")) for step in last.get("steps", ()) if isinstance(step, dict)]
        failed = [c for c in last.get("checks", ()) if isinstance(c, dict) and not c.get("passed")]
        check = str(failed[0].get("name", "a check")) if failed else None
        detail = str(failed[0].get("detail") or "failed") if failed else "rejected"
        said = f"{check}: {_first_line(detail)}" if check else detail
        if not operators and check:  # nothing to change, or a seed whose own reference fails
            stop = "nothing_applies" if check == "applies" else "invalid_seed"
            return {"stop": stop, "reason": detail, "check": check, "detail": detail}
        return {
            "stop": "no_valid_child",
            "reason": f"last candidate ({'+'.join(operators) or 'no operator'}, depth {last.get('depth')}, "
            f"revision {last.get('revision', 0)}) failed {said}",
            "check": check,
            "detail": detail,
            "operators": operators,
            "depth": last.get("depth"),
            "revision": last.get("revision", 0),
        }
    attempts = [o for m in manifests if m.parent_id is None for o in m.target if "fulfilled" in o]
    if attempts and not any(o["fulfilled"] for o in attempts):
        reason = (
            f"the target fulfilled the seed task in none of its {len(attempts)} attempt(s); nothing was grown"
        )
        return {"stop": "target_failed", "reason": reason}
    return {
        "stop": "none_recorded",
        "reason": "no rejected candidate recorded (none reached the checks, or none was proposed)",
    }


def _families(changes: Sequence[Change]) -> list[str]:
    """Every family of the library, then any other a manifest names."""
    known = [family.value for family in Family]
    return known + sorted({c.family for c in changes} - set(known))


def _counts(items: Iterable[str]) -> dict[str, int]:
    return dict(sorted(Counter(items).items()))


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _percent(rate: float | None) -> str:
    return "n/a" if rate is None else f"{100 * rate:.1f}%"


def _first_line(value: object) -> str:
    lines = str(value).strip().splitlines()
    return lines[0] if lines else ""


def _cell(text: str) -> str:
    """``text`` fit for a table cell: one line, pipes escaped, at most :data:`DETAIL_CHARS` characters."""
    text = _first_line(text).replace("|", "\\|")
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 3] + "..."
