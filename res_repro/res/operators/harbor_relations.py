"""Resource-relation operators for Harbor environments: which resource is the right one, and where."""

from __future__ import annotations

import csv
import io
import os
import random
from pathlib import PurePosixPath
from typing import Any, ClassVar

from res_repro.env.formats.harbor import HarborDraft
from res_repro.res.graph import DependencyGraph, Edge
from res_repro.res.operators.base import Family
from res_repro.res.operators.harbor_common import (
    RELATIVE_PATH,
    TAG,
    HarborOperator,
    digest,
    is_text,
    listed,
    missing,
    moved,
    new_tag,
    node,
    notes,
    perturbed,
    pick_file,
    pick_files,
    put,
    put_text,
    python_prelude,
    restored,
    short_id,
    take,
)

RENAME_BACK = """\
import csv

with open({manifest!r}, newline="", encoding="utf-8") as handle:
    for row in csv.DictReader(handle):
        data = open(os.path.join({folder!r}, row["object"]), "rb").read()
        restore(row["path"], data, int(row["mode"], 8))
"""


class OpaqueRename(HarborOperator):
    """Files are renamed to opaque ids in one folder; a manifest CSV maps each id to its path."""

    name = "opaque_rename"
    family = Family.RESOURCE_RELATIONS
    description = (
        "Moves one to three workspace files to objects-<tag>/<opaque id>; MANIFEST-<tag>.csv "
        "(columns object,path,mode) maps each id back to the path where the file belongs."
    )
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "files": {"type": "array", "items": RELATIVE_PATH, "minItems": 1, "uniqueItems": True},
            "tag": TAG,
        },
        "required": ["files", "tag"],
        "additionalProperties": False,
    }

    def propose(
        self, draft: HarborDraft, graph: DependencyGraph, rng: random.Random
    ) -> dict[str, Any] | None:
        """Pick one to three files from one pool."""
        files = pick_files(draft, graph, rng)
        return None if files is None else {"files": files, "tag": new_tag(rng)}

    def apply(self, draft: HarborDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Move the files, write the manifest, and move them back in the reference."""
        rows = io.StringIO()
        writer = csv.writer(rows, lineterminator="\n")
        writer.writerow(["object", "path", "mode"])
        edges = listed(self._manifest(params))
        for rel in params["files"]:
            data, mode = take(draft, rel)
            stored = self._object(params, rel)
            put(draft, stored, data)
            writer.writerow([PurePosixPath(stored).name, rel, f"{mode:04o}"])
            edges += listed(stored) + restored(
                graph,
                rel,
                [(node(stored), "renamed to an opaque id"), (node(self._manifest(params)), "the manifest")],
                self.name,
            )
        put_text(draft, self._manifest(params), rows.getvalue())
        code = RENAME_BACK.format(manifest=self._manifest(params), folder=f"objects-{params['tag']}")
        draft.add_prelude(self.name, python_prelude(code))
        return edges

    def applied(self, draft: HarborDraft, params: dict[str, Any]) -> str | None:
        """The manifest and every object exist, and the originals are gone."""
        objects = [self._object(params, rel) for rel in params["files"]]
        return moved(draft, [self._manifest(params), *objects], params["files"])

    @staticmethod
    def _object(params: dict[str, Any], rel: str) -> str:
        return f"objects-{params['tag']}/{short_id(params['tag'], rel)}"

    @staticmethod
    def _manifest(params: dict[str, Any]) -> str:
        return f"MANIFEST-{params['tag']}.csv"


PICK_CURRENT = """\
import hashlib

m = meta({record!r})
folder = m["copies"]
current = [
    name
    for name in sorted(os.listdir(folder))
    if hashlib.sha256(open(os.path.join(folder, name), "rb").read()).hexdigest() == m["sha"]
]
assert current, "no copy matches the recorded checksum"
restore(m["file"], open(os.path.join(folder, current[0]), "rb").read(), int(m["mode"], 8))
"""


def copy_names(base: str) -> list[str]:
    """Names a stale copy of a file called ``base`` might have, the plain name first."""
    path = PurePosixPath(base)
    stem, suffix = (path.stem, path.suffix) if path.stem else (base, "")
    return [base, f"{base}.bak", f"{stem}_old{suffix}", f"{base}.orig", f"{stem}.v2{suffix}"]


class StaleCopies(HarborOperator):
    """A file is replaced by several near-identical copies; a checksum record says which is current."""

    name = "stale_copies"
    family = Family.RESOURCE_RELATIONS
    description = (
        "Replaces a workspace file by 3-5 near-identical copies in backup-<tag>/ (name.bak, name_old, "
        "...); only the one matching the SHA-256 in CHECKSUMS-<tag>.txt is current and belongs back."
    )
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "file": RELATIVE_PATH,
            "copies": {"type": "integer", "minimum": 3, "maximum": 5},
            "current": {"type": "integer", "minimum": 0, "maximum": 4},
            "tag": TAG,
        },
        "required": ["file", "copies", "current", "tag"],
        "additionalProperties": False,
    }

    def validate(self, params: dict[str, Any]) -> str | None:
        """The schema, and ``current`` naming one of the copies."""
        problem = super().validate(params)
        if problem is None and params["current"] >= params["copies"]:
            return f"{self.name}: current: must be below copies ({params['copies']})"
        return problem

    def propose(
        self, draft: HarborDraft, graph: DependencyGraph, rng: random.Random
    ) -> dict[str, Any] | None:
        """Pick a non-empty file, how many copies, and which one is current."""
        target = pick_file(draft, graph, rng, accept=lambda path: path.stat().st_size > 0)
        if target is None:
            return None
        copies = rng.randint(3, 5)
        return {"file": target, "copies": copies, "current": rng.randrange(copies), "tag": new_tag(rng)}

    def apply(self, draft: HarborDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Write the copies and the checksum record, and restore the current copy in the reference."""
        data, mode = take(draft, params["file"])
        copies = self._copies(params)
        for index, rel in enumerate(copies):
            put(draft, rel, data if index == params["current"] else perturbed(data, index + 1))
        record = self._record(params)
        meta = {
            "file": params["file"],
            "sha": digest(data),
            "mode": f"{mode:04o}",
            "copies": f"backup-{params['tag']}",
        }
        prose = (
            f"/app/{params['file']} was replaced by the copies in /app/backup-{params['tag']}/. They "
            "differ, and only the one whose SHA-256 equals `sha` above is current; the others are stale "
            f"and must not be used. Put the current copy back at /app/{params['file']}, byte for byte, "
            "before using it."
        )
        put_text(draft, record, notes("Which copy is current", meta, prose))
        draft.add_prelude(self.name, python_prelude(PICK_CURRENT.format(record=record)))
        current = copies[params["current"]]
        return listed(record, current) + restored(
            graph,
            params["file"],
            [(node(current), "the current copy"), (node(record), "the checksum picks the current copy")],
            self.name,
        )

    def applied(self, draft: HarborDraft, params: dict[str, Any]) -> str | None:
        """The record and the copies exist, and the original is gone."""
        return moved(draft, [self._record(params), *self._copies(params)], [params["file"]])

    @staticmethod
    def _copies(params: dict[str, Any]) -> list[str]:
        names = copy_names(PurePosixPath(params["file"]).name)[: params["copies"]]
        return [f"backup-{params['tag']}/{name}" for name in names]

    @staticmethod
    def _record(params: dict[str, Any]) -> str:
        return f"CHECKSUMS-{params['tag']}.txt"


FOLLOW_LINK = """\
m = meta({note!r})
restore(m["file"], open(os.path.realpath(m["link"]), "rb").read(), int(m["mode"], 8))
"""


class AliasChain(HarborOperator):
    """A file's content hides behind a chain of symlinks, beside a link to an outdated version."""

    name = "alias_chain"
    family = Family.RESOURCE_RELATIONS
    description = (
        "Moves a workspace file's content into a hidden blob reached through a chain of 1-3 relative "
        "symlinks from links-<tag>/<name>; links-<tag>/<name>.prev leads to an outdated version. "
        "NOTES-<tag>.md says which link is live."
    )
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "file": RELATIVE_PATH,
            "hops": {"type": "integer", "minimum": 1, "maximum": 3},
            "tag": TAG,
        },
        "required": ["file", "hops", "tag"],
        "additionalProperties": False,
    }

    def propose(
        self, draft: HarborDraft, graph: DependencyGraph, rng: random.Random
    ) -> dict[str, Any] | None:
        """Pick a file and the length of the chain."""
        target = pick_file(draft, graph, rng)
        return None if target is None else {"file": target, "hops": rng.randint(1, 3), "tag": new_tag(rng)}

    def apply(self, draft: HarborDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Store the blobs, lay the links, write the note, and copy the live version back in the reference."""
        data, mode = take(draft, params["file"])
        live, old = self._blob(params, "live"), self._blob(params, "prev")
        put(draft, live, data)
        put(draft, old, perturbed(data, 1))
        chain = self._chain(params)
        for here, there in zip(chain, [*chain[1:], live], strict=True):
            self._link(draft, here, there)
        self._link(draft, f"{chain[0]}.prev", old)
        note = self._notes(params)
        meta = {"file": params["file"], "link": chain[0], "mode": f"{mode:04o}"}
        prose = (
            f"The live version of /app/{params['file']} is reached through the link /app/{chain[0]} "
            "(which may lead through further links); the `.prev` link beside it leads to an outdated "
            f"version. Copy the live version back to /app/{params['file']} as a regular file, with the "
            "mode above, before using it."
        )
        put_text(draft, note, notes("Where the live version is", meta, prose))
        draft.add_prelude(self.name, python_prelude(FOLLOW_LINK.format(note=note)))
        return [
            *listed(note),
            Edge(node(note), node(live), "the note names the link that leads to it"),
            *restored(graph, params["file"], [(node(live), "the live version behind the links")], self.name),
        ]

    def applied(self, draft: HarborDraft, params: dict[str, Any]) -> str | None:
        """The note, the blobs and the links exist, the chain resolves, and the original is gone."""
        chain, live = self._chain(params), self._blob(params, "live")
        problem = moved(draft, [self._notes(params), live, *chain], [params["file"]])
        if problem:
            return problem
        same = os.path.samefile(draft.workspace / chain[0], draft.workspace / live)
        return None if same else "the chain does not lead to the live version"

    @staticmethod
    def _link(draft: HarborDraft, here: str, there: str) -> None:
        """A relative symlink at ``here`` pointing to ``there`` (both relative to /app)."""
        path = draft.workspace / here
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(os.path.relpath(draft.workspace / there, path.parent))

    @staticmethod
    def _chain(params: dict[str, Any]) -> list[str]:
        """The links from the entry point onwards, one folder deeper each hop."""
        name = PurePosixPath(params["file"]).name
        folders = [f"links-{params['tag']}", *(f".r{i}" for i in range(1, params["hops"]))]
        return ["/".join([*folders[: i + 1], name]) for i in range(params["hops"])]

    @staticmethod
    def _blob(params: dict[str, Any], which: str) -> str:
        return f".blobs-{params['tag']}/{short_id(params['tag'], params['file'], which)}"

    @staticmethod
    def _notes(params: dict[str, Any]) -> str:
        return f"NOTES-{params['tag']}.md"


EXPAND = """\
m = meta({note!r})
directive = ("<<include " + m["fragment"] + ">>\\n").encode()
data = open(m["file"], "rb").read()
assert data.count(directive) == 1, "the include directive is missing"
with open(m["file"], "wb") as out:
    out.write(data.replace(directive, open(m["fragment"], "rb").read()))
"""


class IncludeFragments(HarborOperator):
    """The second half of a text file moves to a fragment that an include line in the file refers to."""

    name = "include_fragments"
    family = Family.RESOURCE_RELATIONS
    description = (
        "Moves the tail of a text file into fragments-<tag>/; the file keeps its head and a line "
        "`<<include PATH>>` that stands for the fragment. NOTES-<tag>.md explains the directive."
    )
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "file": RELATIVE_PATH,
            "cut": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "tag": TAG,
        },
        "required": ["file", "cut", "tag"],
        "additionalProperties": False,
    }

    def propose(
        self, draft: HarborDraft, graph: DependencyGraph, rng: random.Random
    ) -> dict[str, Any] | None:
        """Pick a text file of at least two lines and where to cut it (near the top for an artifact,
        whose leading ``key: value`` lines are what an earlier reference reads)."""
        target = pick_file(draft, graph, rng, accept=lambda path: is_text(path, min_lines=2))
        if target is None:
            return None
        cuts = (0.1,) if node(target) in graph.nodes else (0.25, 0.4, 0.5, 0.6, 0.75)
        return {"file": target, "cut": rng.choice(cuts), "tag": new_tag(rng)}

    def apply(self, draft: HarborDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Split the file at a line boundary, write the note, and expand the directive in the reference."""
        path = draft.workspace / params["file"]
        lines = path.read_bytes().splitlines(keepends=True)
        cut = min(max(1, round(len(lines) * params["cut"])), len(lines) - 1)
        fragment = self._fragment(params)
        put(draft, fragment, b"".join(lines[cut:]))
        path.write_bytes(b"".join(lines[:cut]) + f"<<include {fragment}>>\n".encode())
        note = self._notes(params)
        meta = {"file": params["file"], "fragment": fragment}
        prose = (
            f"Part of /app/{params['file']} lives in another file: its line `<<include {fragment}>>` "
            f"stands for the whole content of /app/{fragment}. Replace that line, newline included, by "
            "that content to rebuild the file in place before using it."
        )
        put_text(draft, note, notes("Included fragment", meta, prose))
        draft.add_prelude(self.name, python_prelude(EXPAND.format(note=note)))
        return listed(note, fragment) + restored(
            graph,
            params["file"],
            [(node(fragment), "its included tail"), (node(note), "the note explains the directive")],
            self.name,
        )

    def applied(self, draft: HarborDraft, params: dict[str, Any]) -> str | None:
        """The note and the fragment exist and the file holds the directive."""
        absent = missing(draft, self._notes(params), self._fragment(params), params["file"])
        if absent:
            return absent
        directive = f"<<include {self._fragment(params)}>>\n".encode()
        return None if directive in (draft.workspace / params["file"]).read_bytes() else "no directive"

    @staticmethod
    def _fragment(params: dict[str, Any]) -> str:
        return f"fragments-{params['tag']}/{PurePosixPath(params['file']).name}"

    @staticmethod
    def _notes(params: dict[str, Any]) -> str:
        return f"NOTES-{params['tag']}.md"
