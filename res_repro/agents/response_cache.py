"""A response cache keyed by the full request: a resumed run pays nothing twice, and replays are exact.

Entries live in one SQLite database (``responses.sqlite`` under the cache folder) in write-ahead-log
mode: storing a response appends to the log (about 0.1 ms) where a file per response cost an inode, a
rename and often a folder (about 0.7 ms on ext4). Each put is its own transaction, so a run killed at
any point keeps every response it stored before. Threads share one connection behind a lock; processes
(parallel multirun jobs, Ray workers on one machine) share the file through SQLite's locking. SQLite's
locking needs a local filesystem: on a cluster, give each node its own cache folder (a miss only asks
the model again). A damaged database (not SQLite, truncated pages) is moved aside with one line naming
it and started afresh: a bad cache only asks the model again.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from res_repro.agents.providers.base import ModelResponse
from res_repro.storage import DAMAGED_RECORD, quarantine

DATABASE = "responses.sqlite"
BUSY_TIMEOUT_S = 30.0  # how long a writer waits for another process's transaction
WAL_RETRY_S = 0.01  # between asks for write-ahead logging while another connection switches to it


def _write_ahead_logged(connection: sqlite3.Connection) -> None:
    """Put the database in write-ahead-log mode. A connection that asks while another is switching a new
    database over gets "database is locked" at once: SQLite does not wait out the busy timeout for that
    lock. The mode is kept in the file, so asking again shortly finds the switch done."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                raise
            time.sleep(WAL_RETRY_S)


class ResponseCache:
    """Responses by request key in ``root/responses.sqlite``; the connection opens on first use."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            self.root.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(
                self.root / DATABASE,
                isolation_level=None,
                check_same_thread=False,
                timeout=BUSY_TIMEOUT_S,
            )
            try:
                _write_ahead_logged(connection)
                connection.execute("PRAGMA synchronous=NORMAL")  # survives a killed process, not a power cut
                connection.execute(
                    "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, response TEXT)"
                )
            except sqlite3.DatabaseError:
                connection.close()
                raise
            self._connection = connection
        return self._connection

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        """Run one statement; a damaged database is moved aside and the statement runs on a fresh one
        (a busy or locked database is no damage: its error passes)."""
        with self._lock:
            try:
                return self._db().execute(sql, params).fetchall()
            except sqlite3.OperationalError:
                raise
            except sqlite3.DatabaseError as exc:
                self._discard(exc)
                return self._db().execute(sql, params).fetchall()

    def _discard(self, exc: sqlite3.DatabaseError) -> None:
        """Close the damaged database, move it aside and drop its write-ahead log."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        database = self.root / DATABASE
        if database.exists():
            quarantine(database, f"damaged ({exc})")  # its responses are asked of the model again
        for suffix in ("-wal", "-shm"):
            with suppress(FileNotFoundError):
                (self.root / f"{DATABASE}{suffix}").unlink()

    def get(self, key: str) -> ModelResponse | None:
        """The stored response for ``key``, or None (also when its entry is damaged)."""
        rows = self._query("SELECT response FROM responses WHERE key = ?", (key,))
        try:
            return ModelResponse.from_dict(json.loads(rows[0][0])) if rows else None
        except DAMAGED_RECORD:
            return None

    def put(self, key: str, response: ModelResponse) -> None:
        """Store a response (committed at once; a lost entry after a power cut is just paid for again)."""
        text = json.dumps(response.to_dict(), default=str)
        self._query("INSERT OR REPLACE INTO responses VALUES (?, ?)", (key, text))

    def count(self) -> int:
        """How many responses are stored."""
        return self._query("SELECT COUNT(*) FROM responses")[0][0]
