"""Crash-safe file writes: readers see the whole new file or the old one, never a partial write."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_json_atomic(path: Path, data: Any, *, durable: bool = True) -> None:
    """Write ``data`` as JSON to ``path`` through a temporary file and a rename.

    ``durable`` also fsyncs before the rename, so the write survives a power loss; caches whose entries
    can be recomputed skip it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            # one compact dumps: the C encoder (indenting falls back to the pure-Python one)
            handle.write(json.dumps(data, default=str))
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
