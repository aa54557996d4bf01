"""A response cache keyed by the full request: a resumed run pays nothing twice, and replays are exact."""

from __future__ import annotations

import json
from pathlib import Path

from res_repro.agents.providers.base import ModelResponse
from res_repro.storage import write_json_atomic


class ResponseCache:
    """One JSON file per response under ``root``, named by the request's hash."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> ModelResponse | None:
        """The stored response for ``key``, or None."""
        path = self._path(key)
        if not path.is_file():
            return None
        return ModelResponse.from_dict(json.loads(path.read_text(encoding="utf-8")))

    def put(self, key: str, response: ModelResponse) -> None:
        """Store a response atomically (without fsync: a lost entry is just paid for again)."""
        write_json_atomic(self._path(key), response.to_dict(), durable=False)
