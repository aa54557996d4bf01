"""Helpers shared by the operators that change Harbor environments.

Targets. An operator changes either a file the task itself uses (one the instruction, the original
reference solution or the workspace's ``[metadata.file_graph]`` names, or one under a folder they name;
those the reference names are preferred, since changing them is what breaks the parent's reference) or,
with dependency composition on, an artifact of an earlier change: a workspace file that the dependency
graph names as ``file:/app/<path>``. An artifact is chosen whenever one fits, so changes chain; edges into
an earlier artifact are marked ``composed: ...``.

Artifacts. Every change keeps its own files apart from the task's: new top-level names carrying a
six-hex-digit tag (``NOTES-3fa2c1.md``, ``parts-3fa2c1/``) and tools in ``bin/``. Notes open with
``key: value`` lines that the reference preludes read, so a later change to a note, a manifest or a tool
breaks the earlier prelude that relies on it, as it would break an agent.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import stat
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from res_repro.env.formats.harbor import BASE_SOLVE, SOLVE, HarborDraft
from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph, Edge
from res_repro.res.operators.base import Altered, Operator

APP = "/app"
TIER_WEIGHTS = {"read": 2, "named": 1}  # how the task's own targets are drawn; see Pools
TAG = {"type": "string", "pattern": r"^[0-9a-f]{6}$"}
HEX_KEY = {"type": "string", "pattern": r"^([0-9a-f]{2}){2,16}$"}
RELATIVE_PATH = {"type": "string", "minLength": 1, "pattern": r"^(?!/)(?!(.*/)?\.\.(/|$))[^\n\t]+$"}
TOOL_PATH = {"type": "string", "pattern": r"^(bin|\.tools)/[a-z]+-[0-9a-f]{6}$"}
OUR_TOOL = re.compile(r"^[a-z]+-[0-9a-f]{6}$")
Accept = Callable[[Path], bool]  # whether an operator can change the file at this path
TAGGED = re.compile(r"(^|/)[^/]*[-.][0-9a-f]{6}([./]|$)")  # a path component carrying a change's tag


def workspace_files(draft: HarborDraft) -> list[str]:
    """Regular files of the workspace, relative to /app, sorted."""
    return sorted(
        p.relative_to(draft.workspace).as_posix()
        for p in draft.workspace.rglob("*")
        if p.is_file() and not p.is_symlink() and ".git" not in p.parts
    )


def node(rel: str) -> str:
    """The graph node of a workspace file."""
    return f"file:{APP}/{rel}"


def new_tag(rng: random.Random) -> str:
    """A seeded six-hex-digit tag that names one change's artifacts."""
    return f"{rng.getrandbits(24):06x}"


def random_key(rng: random.Random) -> str:
    """A seeded XOR key of two to six non-zero bytes, in hex."""
    return bytes(rng.randint(1, 255) for _ in range(rng.randint(2, 6))).hex()


def digest(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex."""
    return hashlib.sha256(data).hexdigest()


def short_id(*parts: str) -> str:
    """A stable opaque twelve-hex-digit id derived from ``parts``."""
    return digest("\0".join(parts).encode())[:12]


class HarborOperator(Operator):
    """An operator on Harbor drafts. It composes when a file it changes (``file``, ``files`` or ``path``) is
    one the dependency graph already names: an earlier change's artifact or a file it restores."""

    kind = "harbor"

    def altered(self, params: dict[str, Any]) -> Altered:
        """The files it changes: ``files``, ``file`` and ``path`` (its helper ``tool`` is a new file)."""
        return Altered(
            files=(*params.get("files", ()), *(params[key] for key in ("file", "path") if key in params))
        )

    def composes(self, params: dict[str, Any], graph: DependencyGraph) -> bool:
        """True when a target file of the params is a node of ``graph``."""
        return any(node(rel) in graph.nodes for rel in self.altered(params).files)


# -- what the task uses -------------------------------------------------------------------------------


def read_file_text(path: Path) -> str:
    """A file's text, or "" when it is absent."""
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""


def reference_text(draft: HarborDraft) -> str:
    """The original reference solution's text."""
    return read_file_text(draft.root / (BASE_SOLVE if (draft.root / BASE_SOLVE).is_file() else SOLVE))


def task_text(draft: HarborDraft) -> str:
    """The instruction, the original reference solution and the workspace file graph, as one text."""
    graph_paths = "\n".join(f"{APP}/{name}" for name in file_graph_names(draft))
    return "\n".join([read_file_text(draft.root / "instruction.md"), reference_text(draft), graph_paths])


def file_graph_names(draft: HarborDraft) -> list[str]:
    """Every path named by the task's ``[metadata.file_graph]`` (keys and values), sorted."""
    text = read_file_text(draft.root / "task.toml")
    graph = tomllib.loads(text).get("metadata", {}).get("file_graph", {}) if text else {}
    names = set(graph)
    for value in graph.values():
        names.update(value if isinstance(value, list) else [])
    return sorted(str(name) for name in names)


def mentioned(rel: str, text: str) -> bool:
    """True when ``text`` names the file, its /app path, or a folder above it as an /app path."""
    if rel in text or f"{APP}/{rel}" in text:
        return True
    parts = rel.split("/")
    return any(f"{APP}/{'/'.join(parts[:i])}" in text for i in range(1, len(parts)))


def own_files(draft: HarborDraft) -> list[str]:
    """Workspace files that are the task's own: no path component carries a change's tag."""
    return [rel for rel in workspace_files(draft) if not TAGGED.search(rel)]


def artifact_files(draft: HarborDraft, graph: DependencyGraph) -> list[str]:
    """Workspace files that the dependency graph names: artifacts of earlier changes."""
    nodes = graph.nodes
    return [rel for rel in workspace_files(draft) if node(rel) in nodes]


# -- choosing targets ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pools:
    """Targets in three tiers. ``artifacts``: earlier changes' artifacts (composition), chosen whenever
    there is one, so a change builds on an earlier one when it can; otherwise ``read`` (the task's files
    that its original reference solution names) or ``named`` (its other files, all of them when the task
    names none), drawn with :data:`TIER_WEIGHTS` among the non-empty ones.
    """

    read: list[str]
    named: list[str]
    artifacts: list[str]

    def choose(self, rng: random.Random) -> list[str]:
        """One tier, or [] when every tier is empty."""
        if self.artifacts:
            return self.artifacts
        tiers = [
            (pool, TIER_WEIGHTS[name]) for name, pool in (("read", self.read), ("named", self.named)) if pool
        ]
        if not tiers:
            return []
        return rng.choices([pool for pool, _ in tiers], weights=[weight for _, weight in tiers])[0]


def pools(draft: HarborDraft, graph: DependencyGraph, accept: Accept | None = None) -> Pools:
    """The task's files and earlier artifacts that ``accept`` (a predicate on the path) allows."""

    def ok(rel: str) -> bool:
        return accept is None or accept(draft.workspace / rel)

    artifacts = [rel for rel in artifact_files(draft, graph) if ok(rel)]
    own = [rel for rel in own_files(draft) if rel not in artifacts]
    text, solve = task_text(draft), reference_text(draft)
    used = [rel for rel in own if mentioned(rel, text)] or own
    read = [rel for rel in used if mentioned(rel, solve) and ok(rel)]
    named = [rel for rel in used if rel not in read and ok(rel)]
    return Pools(read, named, artifacts)


def pick_file(
    draft: HarborDraft, graph: DependencyGraph, rng: random.Random, accept: Accept | None = None
) -> str | None:
    """One target file (an earlier artifact or a task file), or None when none is acceptable."""
    pool = pools(draft, graph, accept).choose(rng)
    return rng.choice(pool) if pool else None


def pick_files(
    draft: HarborDraft, graph: DependencyGraph, rng: random.Random, most: int = 3
) -> list[str] | None:
    """One to ``most`` target files from the same pool, sorted, or None when there are none."""
    pool = pools(draft, graph).choose(rng)
    if not pool:
        return None
    return sorted(rng.sample(pool, k=min(len(pool), rng.randint(1, most))))


# -- edges ----------------------------------------------------------------------------------------------


def listed(*rels: str) -> list[Edge]:
    """Edges saying that new artifacts can be seen in /app from the start."""
    return [Edge(OBSERVATION, node(rel), "listed in /app") for rel in rels]


def restored(graph: DependencyGraph, rel: str, sources: list[tuple[str, str]], operator: str) -> list[Edge]:
    """Edges from each (source node, how) to the file ``rel``, which leads on to the goal.

    When the graph already names the file it is an earlier change's artifact: the edges are marked
    ``composed:`` and its existing edges lead on to the goal. Otherwise the file is an input of the task.
    """
    composed = node(rel) in graph.nodes
    edges = [
        Edge(source, node(rel), f"composed: {operator} on an earlier artifact; {how}" if composed else how)
        for source, how in sources
    ]
    if not composed:
        edges.append(Edge(node(rel), GOAL, "an input of the task"))
    return edges


# -- files ------------------------------------------------------------------------------------------------


def file_mode(path: Path) -> int:
    """The permission bits of a file."""
    return stat.S_IMODE(path.stat().st_mode)


def put(draft: HarborDraft, rel: str, data: bytes, mode: int = 0o644) -> None:
    """Write a workspace file (parents created) with ``mode``."""
    path = draft.workspace / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(mode)


def put_text(draft: HarborDraft, rel: str, text: str, mode: int = 0o644) -> None:
    """Write a UTF-8 workspace file."""
    put(draft, rel, text.encode(), mode)


def take(draft: HarborDraft, rel: str) -> tuple[bytes, int]:
    """Remove a workspace file and return its bytes and mode."""
    path = draft.workspace / rel
    data, mode = path.read_bytes(), file_mode(path)
    path.unlink()
    return data, mode


def free_name(draft: HarborDraft, rel: str) -> bool:
    """True when nothing (file, folder or link) exists at ``rel`` in the workspace."""
    return not os.path.lexists(draft.workspace / rel)


def missing(draft: HarborDraft, *rels: str) -> str | None:
    """What of ``rels`` is absent from the workspace, or None."""
    absent = [rel for rel in rels if not os.path.lexists(draft.workspace / rel)]
    return f"missing: {absent}" if absent else None


def moved(draft: HarborDraft, new: list[str], old: list[str]) -> str | None:
    """None when every ``new`` path exists and no ``old`` one does, else what is wrong."""
    absent = missing(draft, *new)
    if absent:
        return absent
    left = [rel for rel in old if os.path.lexists(draft.workspace / rel)]
    return f"still in place: {left}" if left else None


def tools_folder(draft: HarborDraft) -> str:
    """``bin`` unless the task has its own ``bin`` folder, then ``.tools``."""
    folder = draft.workspace / "bin"
    if not folder.exists() or all(OUR_TOOL.match(p.name) for p in folder.iterdir()):
        return "bin"
    return ".tools"


def is_text(path: Path, *, min_lines: int = 1) -> bool:
    """True for a UTF-8 file without NUL or CR bytes and with at least ``min_lines`` newlines."""
    data = path.read_bytes()
    if b"\0" in data or b"\r" in data or data.count(b"\n") < min_lines:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def xor(data: bytes, key: bytes) -> bytes:
    """``data`` XORed with ``key`` repeated (its own inverse)."""
    stream = (key * (len(data) // len(key) + 1))[: len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(data), "big")


def notes(title: str, meta: dict[str, str], prose: str) -> str:
    """A note: a title, ``key: value`` lines that preludes read, and prose for the reader."""
    lines = [f"# {title}", "", *(f"{k}: {v}" for k, v in meta.items()), "", prose.strip(), ""]
    return "\n".join(lines)


def python_prelude(*blocks: str) -> str:
    """A prelude that runs the code ``blocks`` with Python 3 in /app, after :data:`PRELUDE_HELPERS`."""
    body = "\n".join(block.strip() + "\n" for block in (PRELUDE_HELPERS, *blocks))
    return f"cd {APP}\npython3 - <<'PY'\n{body}PY\n"


# Defined in every Python prelude: meta() reads a note's key: value lines, restore() writes a file back.
PRELUDE_HELPERS = """\
import os
import re


def meta(path):
    return dict(re.findall(r"^([a-z]+): (.+)$", open(path, encoding="utf-8").read(), re.MULTILINE))


def restore(rel, data, mode):
    folder = os.path.dirname(rel)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(rel, "wb") as out:
        out.write(data)
    os.chmod(rel, mode)
"""


def perturbed(data: bytes, index: int) -> bytes:
    """A deterministic near-copy of ``data`` that differs from it (a stale version)."""
    lines = data.splitlines(keepends=True)
    kind = index % 3
    if len(lines) >= 2 and kind == 0:
        drop = (index * 7919) % len(lines)
        candidate = b"".join(lines[:drop] + lines[drop + 1 :])
    elif len(lines) >= 2 and kind == 1:
        dup = (index * 104729) % len(lines)
        candidate = b"".join([*lines[: dup + 1], lines[dup], *lines[dup + 1 :]])
    else:
        digits = [i for i, b in enumerate(data) if 48 <= b <= 57]
        if digits:
            at = digits[(index * 31) % len(digits)]
            candidate = data[:at] + bytes([48 + (data[at] - 47) % 10]) + data[at + 1 :]
        else:
            at = (index * 7919) % max(len(data), 1)
            candidate = data[:at] + bytes([data[at] ^ (index % 255 + 1)]) + data[at + 1 :] if data else b"\n"
    return candidate if candidate != data else data + b"\n" * (index + 1)
