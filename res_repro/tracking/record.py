"""A job's run as a record on disk, kept without MLflow: what the job logs (params, tags, metrics,
artifact paths, traces) and its status, RUNNING while it runs and FINISHED or FAILED at the end.

Records wait in a folder beside the store (:func:`pending_dir`) until one process writes them to MLflow
(:mod:`res_repro.tracking.store`): a multirun's driver at the end of the sweep, a single run itself when
it ends. A record whose writer died (SIGKILL) is written FAILED by the next run on the same store.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from res_repro.storage import write_bytes_atomic
from res_repro.tracking.params import redacted

RUNNING, FINISHED, FAILED = "RUNNING", "FINISHED", "FAILED"


def pending_dir(uri: str, artifact_root: str | None) -> Path:
    """Where records wait for the store at ``uri``: beside a SQLite database, else under the artifact
    root (or a temporary folder named after the store)."""
    if uri.startswith("sqlite:///"):
        return Path(f"{uri.removeprefix('sqlite:///')}.pending")
    if artifact_root:
        return Path(artifact_root, ".pending")
    return Path(tempfile.gettempdir(), "res-repro-pending", hashlib.sha256(uri.encode()).hexdigest()[:12])


@dataclass
class RunRecord:
    """One job's run as MLflow will hold it; ``owner`` is the process that writes it to MLflow (the
    multirun's driver, else the job itself), ``sweep`` the multirun's folder when it is a child run."""

    record_id: str
    uri: str
    experiment: str
    artifact_root: str | None
    run_name: str
    params: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    artifacts: list[tuple[str, str | None]] = field(default_factory=list)  # (file, artifact folder)
    folders: list[tuple[str, str]] = field(default_factory=list)  # (folder, artifact folder)
    traces: list[tuple[str, int]] = field(default_factory=list)  # (episodes.jsonl, how many)
    sweep: str | None = None
    process: str = ""
    owner: str = ""
    host: str = ""
    status: str = RUNNING
    failure: str | None = None
    start_ms: int = 0
    end_ms: int | None = None

    @property
    def path(self) -> Path:
        """The record's file."""
        return pending_dir(self.uri, self.artifact_root) / f"{self.record_id}.json"

    @property
    def staging(self) -> Path:
        """A folder for copies of artifacts with secrets replaced."""
        return self.path.with_suffix(".files")

    def save(self) -> None:
        """Write the record (atomically: a reader sees the old or the new one)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(f".{os.getpid()}.partial")
        partial.write_text(json.dumps(asdict(self)))
        os.replace(partial, self.path)

    @classmethod
    def load(cls, path: Path) -> RunRecord:
        """Read a record written by :meth:`save`."""
        data = json.loads(path.read_text())
        for key in ("artifacts", "folders", "traces"):
            data[key] = [tuple(item) for item in data[key]]
        return cls(**data)


class Tracker:
    """What a pipeline logs to; the base class records nothing (tracking disabled)."""

    run_id: str | None = None
    experiment_id: str | None = None

    def log_metrics(self, metrics: Mapping[str, float]) -> None:
        """Record numeric results."""

    def log_artifacts(self, paths: list[Path], folder: str | None = None) -> None:
        """Attach files to the run."""

    def log_folder(self, root: Path, folder: str) -> None:
        """Attach every file under ``root`` to the run under ``folder``, keeping the tree."""

    def log_traces(self, episodes: Path, limit: int) -> None:
        """Log up to ``limit`` model episodes of an ``episodes.jsonl`` as traces of the run."""

    def set_tags(self, tags: Mapping[str, str]) -> None:
        """Tag the run."""


class RecordingTracker(Tracker):
    """Logs into a :class:`RunRecord`, saved at every call; a file holding a secret from the config
    (the ``.hydra`` folder records every override) is attached as a copy with it replaced."""

    def __init__(self, record: RunRecord, secrets: set[str]) -> None:
        self.record = record
        self.secrets = set(secrets)

    def _holds_secret(self, path: Path) -> bool:
        data = path.read_bytes()
        return any(secret.encode() in data for secret in self.secrets)

    def _scrubbed(self, path: Path) -> Path:
        """``path``, or a copy of it with the secrets replaced when it holds one."""
        if not self.secrets or not self._holds_secret(path):
            return path
        copy = self.record.staging / uuid.uuid4().hex / path.name
        copy.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(copy, redacted(path.read_bytes(), self.secrets), durable=False)
        return copy

    def log_metrics(self, metrics: Mapping[str, float]) -> None:
        """Record numeric results."""
        self.record.metrics.update({k: float(v) for k, v in metrics.items()})
        self.record.save()

    def log_artifacts(self, paths: list[Path], folder: str | None = None) -> None:
        """Attach each file under ``folder``."""
        self.record.artifacts += [(str(self._scrubbed(path).resolve()), folder) for path in paths]
        self.record.save()

    def log_folder(self, root: Path, folder: str) -> None:
        """Attach every file under ``root`` under ``folder``, keeping the tree (one upload of the folder
        when no file holds a secret, else file by file)."""
        files = sorted(p for p in root.rglob("*") if p.is_file())
        if not self.secrets or not any(self._holds_secret(path) for path in files):
            self.record.folders.append((str(root.resolve()), folder))
            self.record.save()
            return
        for path in files:
            parent = path.parent.relative_to(root).as_posix()
            self.log_artifacts([path], folder=folder if parent == "." else f"{folder}/{parent}")

    def log_traces(self, episodes: Path, limit: int) -> None:
        """Log up to ``limit`` model episodes of ``episodes`` as traces (when the run is written)."""
        self.record.traces.append((str(episodes.resolve()), limit))
        self.record.save()

    def set_tags(self, tags: Mapping[str, str]) -> None:
        """Tag the run."""
        self.record.tags.update(tags)
        self.record.save()
