"""Operators that change Harbor (terminal and workspace) environments through files and commands.

The library spans three families, split by module: information access (here and
:mod:`~res_repro.res.operators.harbor_access`), resource relations
(:mod:`~res_repro.res.operators.harbor_relations`) and execution dependencies
(:mod:`~res_repro.res.operators.harbor_execution`). :data:`HARBOR_OPERATORS` lists them all.
"""

from __future__ import annotations

import gzip
import io
import random
import tarfile
from typing import Any, ClassVar

from res_repro.env.formats.harbor import HarborDraft
from res_repro.res.graph import DependencyGraph, Edge
from res_repro.res.operators.base import Family, Operator
from res_repro.res.operators.harbor_access import EncodeFile, SplitParts, TranscodeText
from res_repro.res.operators.harbor_common import (
    RELATIVE_PATH,
    HarborOperator,
    listed,
    moved,
    node,
    pick_files,
    restored,
)
from res_repro.res.operators.harbor_execution import BrokenHelper, OutputLock, SetupGate
from res_repro.res.operators.harbor_relations import AliasChain, IncludeFragments, OpaqueRename, StaleCopies


class ArchiveInputs(HarborOperator):
    """Input files move into a gzipped tarball; the reference unpacks it first."""

    name = "archive_inputs"
    family = Family.INFORMATION_ACCESS
    description = "Moves some workspace files into a .tar.gz archive in /app; they must be extracted first."
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "files": {"type": "array", "items": RELATIVE_PATH, "minItems": 1, "uniqueItems": True},
            "archive": {"type": "string", "pattern": r"^[A-Za-z0-9_.-]+\.tar\.gz$"},
        },
        "required": ["files", "archive"],
        "additionalProperties": False,
    }

    def propose(
        self, draft: HarborDraft, graph: DependencyGraph, rng: random.Random
    ) -> dict[str, Any] | None:
        """Pick one to three task files, or earlier artifacts."""
        files = pick_files(draft, graph, rng)
        if files is None:
            return None
        return {"files": files, "archive": f"inputs-{rng.getrandbits(24):06x}.tar.gz"}

    def apply(self, draft: HarborDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Pack the files (deterministically) and delete the originals."""
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for name in params["files"]:
                source = draft.workspace / name
                info = tar.gettarinfo(str(source), arcname=name)
                info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                with source.open("rb") as handle:
                    tar.addfile(info, handle)
        (draft.workspace / params["archive"]).write_bytes(gzip.compress(buffer.getvalue(), mtime=0))
        for name in params["files"]:
            (draft.workspace / name).unlink()
        draft.add_prelude(self.name, f"cd /app && tar -xzf {params['archive']}\n")
        archive = params["archive"]
        return listed(archive) + [
            edge
            for name in params["files"]
            for edge in restored(graph, name, [(node(archive), "extracted from the archive")], self.name)
        ]

    def applied(self, draft: HarborDraft, params: dict[str, Any]) -> str | None:
        """The archive exists and the originals are gone."""
        return moved(draft, [params["archive"]], params["files"])


HARBOR_OPERATORS: tuple[Operator, ...] = (
    ArchiveInputs(),
    EncodeFile(),
    SplitParts(),
    TranscodeText(),
    OpaqueRename(),
    StaleCopies(),
    AliasChain(),
    IncludeFragments(),
    SetupGate(),
    OutputLock(),
    BrokenHelper(),
)
