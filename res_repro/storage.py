"""File writes: crash-safe JSON documents (readers see the whole new file or the old one, never a partial
write), and JSONL run artifacts."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path
from typing import Any

# The temporary file: created only if absent, private to the owner (as tempfile.mkstemp makes it).
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
_CREATE_MODE = 0o600


def write_json_atomic(path: Path | str, data: Any, *, durable: bool = True) -> None:
    """Write ``data`` as JSON to ``path`` through a temporary file beside it and a rename; the folder is
    created when missing.

    ``durable`` also fsyncs before the rename, so the write survives a power loss; caches whose entries
    can be recomputed skip it. Plain ``os`` calls keep this cheap enough for one cache entry per turn.
    """
    # one compact dumps: the C encoder (indenting falls back to the pure-Python one)
    payload = json.dumps(data, default=str).encode()
    target = os.fspath(path)
    folder, name = os.path.split(target)
    temp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(temp, _CREATE_FLAGS, _CREATE_MODE)
    except FileNotFoundError:
        os.makedirs(folder, exist_ok=True)
        fd = os.open(temp, _CREATE_FLAGS, _CREATE_MODE)
    try:
        try:
            view = memoryview(payload)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def write_jsonl(documents: Iterable[Any], path: Path) -> Path:
    """Write one JSON document per line (run artifacts such as episode records and lineage manifests)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for document in documents:
            handle.write(json.dumps(document, default=str) + "\n")
    return path
