"""Bundles rendered once per content: a run whose tables, episodes and lineage nodes match an earlier
run's copies that run's pages (rendered with a stand-in for the label, which names the run folder)
instead of rendering them again."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from contextlib import suppress
from dataclasses import asdict
from functools import cache
from pathlib import Path

from markupsafe import escape

from res_repro.sandbox.owner import OWNER_FILE, current_owner, label_is_stale
from res_repro.viewer.bundle import write_bundle
from res_repro.viewer.sources import ViewSource

LABEL_STAND_IN = "RES-REPRO-VIEW-LABEL-7f3a"  # no character that HTML escaping changes
PARTIAL = ".partial-"  # a bundle being rendered, labelled with its owner until it is renamed in place
VIEWER_DIR = Path(__file__).parent


@cache
def _viewer_digest() -> str:
    """A hash of the viewer's code and templates: a change to either renders anew."""
    digest = hashlib.sha256()
    for path in sorted(VIEWER_DIR.rglob("*")):
        if path.is_file() and path.suffix in {".py", ".html", ".css"}:
            digest.update(path.relative_to(VIEWER_DIR).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def source_digest(source: ViewSource) -> str:
    """A hash of everything the pages of ``source`` show except its label: tables, episodes, model
    names, the lineage nodes (their manifests, which hold each node's content hash) and rejections."""
    lineages = {seed: [source.manifests(seed), source.rejections(seed)] for seed in source.seeds()}
    identity = {
        "viewer": _viewer_digest(),
        "tables": [asdict(table) for table in source.tables],
        "episodes": source.episodes,
        "display_names": source.display_names,
        "lineage_root": str(source.lineage_root),
        "node_ids": sorted(source.node_ids) if source.node_ids is not None else None,
        "lineages": lineages,
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()[:32]


def write_cached_bundle(source: ViewSource, out: Path, cache_dir: Path) -> Path:
    """Write every page of ``source`` under ``out`` as :func:`write_bundle` does, rendering them only when
    no bundle of the same content is in ``cache_dir``; return the index page."""
    cached = cache_dir / source_digest(source)
    if not cached.is_dir():
        cache_dir.mkdir(parents=True, exist_ok=True)
        for stale in cache_dir.glob(f"{PARTIAL}*"):  # what a killed run was rendering
            with suppress(OSError):
                if label_is_stale((stale / OWNER_FILE).read_text()):
                    shutil.rmtree(stale, ignore_errors=True)
        scratch = Path(tempfile.mkdtemp(dir=cache_dir, prefix=PARTIAL))
        (scratch / OWNER_FILE).write_text(current_owner().label())
        write_bundle(source.relabelled(LABEL_STAND_IN), scratch)
        (scratch / OWNER_FILE).unlink()
        try:
            os.rename(scratch, cached)
        except OSError:  # another run rendered the same bundle first
            shutil.rmtree(scratch, ignore_errors=True)
    label = str(escape(source.label))
    for page in sorted(p for p in cached.rglob("*") if p.is_file()):
        target = out / page.relative_to(cached)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page.read_text(encoding="utf-8").replace(LABEL_STAND_IN, label), encoding="utf-8")
    return out / "index.html"
