"""Operators that change Harbor (terminal and workspace) environments through files and commands."""

from __future__ import annotations

import io
import random
import tarfile
from typing import Any, ClassVar

from res_repro.res.drafts import HarborDraft
from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph, Edge
from res_repro.res.operators.base import Family, Operator


def workspace_files(draft: HarborDraft) -> list[str]:
    """Regular files of the workspace, relative to /app, sorted."""
    return sorted(
        p.relative_to(draft.workspace).as_posix()
        for p in draft.workspace.rglob("*")
        if p.is_file() and not p.is_symlink() and ".git" not in p.parts
    )


class ArchiveInputs(Operator):
    """Input files move into a gzipped tarball; the reference unpacks it first."""

    name = "archive_inputs"
    family = Family.INFORMATION_ACCESS
    kind = "harbor"
    description = "Moves some workspace files into a .tar.gz archive in /app; they must be extracted first."
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "files": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "archive": {"type": "string", "pattern": r"^[A-Za-z0-9_.-]+\.tar\.gz$"},
        },
        "required": ["files", "archive"],
        "additionalProperties": False,
    }

    def propose(
        self, draft: HarborDraft, graph: DependencyGraph, rng: random.Random
    ) -> dict[str, Any] | None:
        """Pick one to three workspace files."""
        files = [f for f in workspace_files(draft) if not f.endswith(".tar.gz")]
        if not files:
            return None
        chosen = sorted(rng.sample(files, k=min(len(files), rng.choice((1, 2, 3)))))
        return {"files": chosen, "archive": f"inputs-{rng.getrandbits(24):06x}.tar.gz"}

    def apply(self, draft: HarborDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Pack the files (deterministically) and delete the originals."""
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
            for name in params["files"]:
                source = draft.workspace / name
                info = tar.gettarinfo(str(source), arcname=name)
                info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                with source.open("rb") as handle:
                    tar.addfile(info, handle)
        (draft.workspace / params["archive"]).write_bytes(_stable_gzip(buffer.getvalue()))
        for name in params["files"]:
            (draft.workspace / name).unlink()
        draft.add_prelude(self.name, f"cd /app && tar -xzf {params['archive']}\n")
        archive = f"file:/app/{params['archive']}"
        return [Edge(OBSERVATION, archive, "listed in /app")] + [
            edge
            for name in params["files"]
            for edge in (
                Edge(archive, f"file:/app/{name}", "extracted from the archive"),
                Edge(f"file:/app/{name}", GOAL, "an input of the task"),
            )
        ]

    def applied(self, draft: HarborDraft, params: dict[str, Any]) -> str | None:
        """The archive exists and the originals are gone."""
        if not (draft.workspace / params["archive"]).is_file():
            return "the archive is missing"
        left = [f for f in params["files"] if (draft.workspace / f).exists()]
        return f"files still in place: {left}" if left else None


def _stable_gzip(data: bytes) -> bytes:
    """Zero the gzip header's timestamp so the same content gives the same bytes."""
    return data[:4] + b"\x00\x00\x00\x00" + data[8:]


HARBOR_OPERATORS: tuple[Operator, ...] = (ArchiveInputs(),)
