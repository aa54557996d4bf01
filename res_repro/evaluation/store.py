"""A content-addressed store of episode records: a finished episode is never run twice.

Each record is one JSON file named by its episode id, written atomically (temporary file, fsync,
rename), so a crash at any point leaves either the whole record or none of it. Each carries an
``integrity`` field, the SHA-256 of the rest in canonical JSON; a record whose id is not the one asked
for (another episode's record copied in), whose integrity does not match (an edited score) or that is
damaged otherwise (emptied, truncated) is moved aside with one line naming it, and its episode runs
again; every other record stays.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from res_repro.evaluation.episode import EpisodeRecord
from res_repro.storage import read_json_record, write_json_atomic


def episode_key(**parts: Any) -> str:
    """Return a stable id for an episode from everything that determines its outcome."""
    blob = json.dumps(parts, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:24]


class EpisodeStore:
    """Episode records under one folder, looked up by episode id."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, episode_id: str) -> Path:
        return self.root / episode_id[:2] / f"{episode_id}.json"

    def get(self, episode_id: str) -> EpisodeRecord | None:
        """Return the stored record, or None when there is none (or it was an infrastructure failure, or
        it fails its checks: see the module's description)."""
        path = self._path(episode_id)
        if not path.is_file():
            return None
        record = read_json_record(path, lambda data: _verified(data, episode_id))
        return None if record is None or record.infrastructure_failure else record

    def put(self, record: EpisodeRecord) -> None:
        """Store ``record`` atomically, with its integrity hash."""
        data = record.to_dict()
        write_json_atomic(self._path(record.episode_id), {**data, INTEGRITY: integrity(data)})


INTEGRITY = "integrity"


def integrity(data: dict[str, Any]) -> str:
    """The SHA-256 of a record's fields (its integrity field aside) in canonical JSON."""
    fields = {key: value for key, value in data.items() if key != INTEGRITY}
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _verified(data: Any, episode_id: str) -> EpisodeRecord:
    """The record ``data`` holds when it is the episode's own and unedited; a ValueError says why not
    (:func:`~res_repro.storage.read_json_record` then moves the file aside)."""
    if not isinstance(data, dict) or data.get(INTEGRITY) != integrity(data):
        raise ValueError("its integrity hash does not match its content (edited, or written without one)")
    if data.get("episode_id") != episode_id:
        raise ValueError(f"it is the record of episode {data.get('episode_id')!r}, not of this one")
    return EpisodeRecord.from_dict({key: value for key, value in data.items() if key != INTEGRITY})
