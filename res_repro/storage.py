"""File writes: crash-safe JSON documents (readers see the whole new file or the old one, never a partial
write), and JSONL run artifacts; damaged state (a truncated record, a database that is no longer one)
moved aside as ``<name>.corrupt-<timestamp>``, with one line naming it, so it is rebuilt."""

from __future__ import annotations

import json
import logging
import os
import secrets
import sqlite3
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import fields
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")
CORRUPT = ".corrupt-"  # the mark of a quarantined file or folder: <name>.corrupt-<timestamp>
# What reading a damaged JSON record raises: not JSON (truncated, empty), not UTF-8, fields missing or
# of the wrong kind.
DAMAGED_RECORD = (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError)

# The temporary file: created only if absent, private to the owner (as tempfile.mkstemp makes it).
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
_CREATE_MODE = 0o600


def record_fields(record: Any) -> dict[str, Any]:
    """A dataclass instance's fields by name, values as they are: the shallow dict a record is written
    from (:func:`dataclasses.asdict` deep-copies every list and dict on the way, which costs more than
    the write for records that carry messages)."""
    return {f.name: getattr(record, f.name) for f in fields(record)}


def write_json_atomic(path: Path | str, data: Any, *, durable: bool = True) -> None:
    """Write ``data`` as JSON to ``path`` with :func:`write_bytes_atomic`."""
    # one compact dumps: the C encoder (indenting falls back to the pure-Python one)
    write_bytes_atomic(path, json.dumps(data, default=str).encode(), durable=durable)


def write_bytes_atomic(path: Path | str, payload: bytes, *, durable: bool = True) -> None:
    """Write ``payload`` to ``path``, readable by its owner only (0600), through a temporary file beside
    it and a rename; the folder is created when missing.

    ``durable`` also fsyncs before the rename, so the write survives a power loss; caches whose entries
    can be recomputed skip it. Plain ``os`` calls keep this cheap enough for one cache entry per turn.
    """
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


def quarantine(path: Path, problem: str) -> Path:
    """Move a damaged file or folder aside as ``<name>.corrupt-<timestamp>`` (kept for inspection, never
    read again) and say so in one line; the caller rebuilds what it held."""
    target = path.with_name(f"{path.name}{CORRUPT}{datetime.now():%Y%m%dT%H%M%S%f}")
    os.replace(path, target)
    log.warning("%s: %s; moved aside to %s, rebuilt from scratch", path, problem, target.name)
    return target


def read_json_record(path: Path, parse: Callable[[Any], T], quarantined: Path | None = None) -> T | None:
    """``parse`` of the JSON document at ``path``, or None when it is damaged (empty, truncated, not the
    record ``parse`` expects): then ``quarantined`` (``path`` itself by default) is moved aside."""
    try:
        return parse(json.loads(path.read_text(encoding="utf-8")))
    except DAMAGED_RECORD as exc:
        quarantine(quarantined or path, f"damaged ({type(exc).__name__}: {first_line(exc)})")
        return None


def sqlite_damage(path: Path) -> str | None:
    """Why the SQLite database at ``path`` cannot be used (not a database, pages malformed), or None when
    it is sound or absent."""
    if not path.is_file():
        return None
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute("PRAGMA quick_check").fetchall()
    except sqlite3.OperationalError:
        return None  # busy or locked by another process: not damage
    except sqlite3.DatabaseError as exc:
        return f"not a usable SQLite database ({exc})"
    finally:
        connection.close()
    return None if rows == [("ok",)] else f"SQLite integrity check failed ({rows[0][0]})"


def first_line(exc: BaseException, limit: int = 120) -> str:
    """The first line of an error's message, cut at ``limit`` characters (for one-line reports)."""
    return (str(exc).splitlines() or [""])[0][:limit]
