"""A content-addressed store of episode records: a finished episode is never run twice.

Each record is one JSON file named by its episode id, written atomically (temporary file, fsync,
rename), so a crash at any point leaves either the whole record or none of it. A record damaged anyway
(emptied, truncated, edited into something else) is moved aside with one line naming it, and its
episode runs again; every other record stays.
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
        """Return the stored record, or None when there is none (or it was an infrastructure failure)."""
        path = self._path(episode_id)
        if not path.is_file():
            return None
        record = read_json_record(path, EpisodeRecord.from_dict)
        return None if record is None or record.infrastructure_failure else record

    def put(self, record: EpisodeRecord) -> None:
        """Store ``record`` atomically."""
        write_json_atomic(self._path(record.episode_id), record.to_dict())
