"""A response cache keyed by the full request: a resumed run pays nothing twice, and replays are exact."""

from __future__ import annotations

import json
import os
from pathlib import Path

from res_repro.agents.providers.base import ModelResponse
from res_repro.storage import write_json_atomic


class ResponseCache:
    """One JSON file per response under ``root``, named by the request's hash."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self._root = os.fspath(self.root)

    def _path(self, key: str) -> str:
        return os.path.join(self._root, key[:2], f"{key}.json")

    def get(self, key: str) -> ModelResponse | None:
        """The stored response for ``key``, or None."""
        try:
            with open(self._path(key), "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            return None
        return ModelResponse.from_dict(json.loads(data))

    def put(self, key: str, response: ModelResponse) -> None:
        """Store a response atomically (without fsync: a lost entry is just paid for again)."""
        write_json_atomic(self._path(key), response.to_dict(), durable=False)
