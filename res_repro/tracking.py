"""MLflow tracking: a SQLite store at an absolute path, flattened params, git and config-hash tags."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from filelock import FileLock
from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from res_repro.storage import quarantine, sqlite_damage

MAX_PARAM_CHARS = 6000  # MLflow's limit on a param value
# config entries that hold secrets themselves (``api_key_env`` only names a variable, so it is kept)
SECRET_NAME = re.compile(r"(^|[._-])(api[_-]?key|access[_-]?key|token|secret|password)$", re.IGNORECASE)
REDACTED = "***"


def flatten(mapping: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Flatten nested mappings into dotted keys: ``{"a": {"b": 1}}`` becomes ``{"a.b": 1}``."""
    flat: dict[str, Any] = {}
    for key, value in mapping.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def is_secret(dotted_key: str) -> bool:
    """True for a flattened config key whose value is a secret: a name like ``*_token`` or ``api_key``,
    or any environment variable handed to workers (``...env_vars.NAME``)."""
    return ".env_vars." in f".{dotted_key}" or bool(SECRET_NAME.search(dotted_key.rsplit(".", 1)[-1]))


def secret_values(flat: Mapping[str, Any]) -> set[str]:
    """The values of the secret entries of a flattened config (to scrub from artifacts)."""
    return {str(v) for k, v in flat.items() if is_secret(k) and v is not None and len(str(v)) >= 4}


def config_hash(config: Mapping[str, Any]) -> str:
    """A short stable hash of a resolved config."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]


def git_commit(root: Path | str) -> str:
    """The checkout's HEAD commit, ``-dirty`` when there are uncommitted changes; ``unknown`` outside git."""
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}-dirty" if dirty else head


class Tracker:
    """What a pipeline logs to; the base class records nothing (tracking disabled)."""

    run_id: str | None = None

    def log_metrics(self, metrics: Mapping[str, float]) -> None:
        """Record numeric results."""

    def log_artifacts(self, paths: list[Path], folder: str | None = None) -> None:
        """Attach files to the run."""

    def log_folder(self, root: Path, folder: str) -> None:
        """Attach every file under ``root`` to the run under ``folder``, keeping the tree (secrets
        replaced as in :meth:`log_artifacts`)."""
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            parent = path.parent.relative_to(root).as_posix()
            self.log_artifacts([path], folder=folder if parent == "." else f"{folder}/{parent}")

    def log_figure(self, figure: Any, artifact_file: str) -> None:
        """Attach a matplotlib figure to the run."""


class MlflowTracker(Tracker):
    """Logs into the active MLflow run."""

    def __init__(self, run_id: str, secrets: set[str] | None = None) -> None:
        self.run_id = run_id
        self.secrets = secrets or set()

    def log_metrics(self, metrics: Mapping[str, float]) -> None:
        """Record numeric results in the active run."""
        import mlflow

        mlflow.log_metrics(dict(metrics))

    def log_artifacts(self, paths: list[Path], folder: str | None = None) -> None:
        """Attach each file to the active run under ``folder``; a file holding a secret from the config
        (the ``.hydra`` folder records every override) is attached as a copy with it replaced."""
        import mlflow

        with tempfile.TemporaryDirectory() as scratch:
            for path in paths:
                data = path.read_bytes()
                if any(secret.encode() in data for secret in self.secrets):
                    for secret in self.secrets:
                        data = data.replace(secret.encode(), REDACTED.encode())
                    path = Path(scratch) / path.name
                    path.write_bytes(data)
                mlflow.log_artifact(str(path), artifact_path=folder)

    def log_figure(self, figure: Any, artifact_file: str) -> None:
        """Attach a matplotlib figure to the active run."""
        import mlflow

        mlflow.log_figure(figure, artifact_file)


def _ensure_experiment(name: str, artifact_root: str | None) -> None:
    """Create the experiment if needed (with an absolute artifact location) and make it active."""
    import mlflow

    if mlflow.get_experiment_by_name(name) is None:
        location = Path(artifact_root, name).resolve().as_uri() if artifact_root else None
        mlflow.create_experiment(name, artifact_location=location)
    mlflow.set_experiment(name)


def _use_experiment(uri: str, experiment: str, artifact_root: str | None) -> None:
    """Point MLflow at ``uri`` and make ``experiment`` active, creating it under a file lock. A damaged
    SQLite database is moved aside (one line names it; its runs stay in that file) and started afresh."""
    import mlflow

    mlflow.set_tracking_uri(uri)
    if uri.startswith("sqlite:///"):
        database = Path(uri.removeprefix("sqlite:///"))
        lock_path = Path(f"{database}.lock")
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(lock_path)):
            damage = sqlite_damage(database)
            if damage is not None:
                quarantine(database, damage)
            _ensure_experiment(experiment, artifact_root)
    else:
        _ensure_experiment(experiment, artifact_root)


PARENT_RUN_FILE = "mlflow_parent_run_id"


class MultirunParent(Callback):
    """A Hydra callback: one MLflow parent run per multirun; each job's run becomes its child."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Create the parent run and leave its id in the sweep folder for the jobs."""
        tracking = config.tracking
        if not tracking.enabled:
            return
        import mlflow

        _use_experiment(tracking.uri, tracking.experiment, config.paths.mlflow_artifacts)
        sweep_dir = Path(config.hydra.sweep.dir)
        with mlflow.start_run(run_name=f"multirun-{sweep_dir.name}", tags={"multirun": "parent"}) as run:
            sweep_dir.mkdir(parents=True, exist_ok=True)
            (sweep_dir / PARENT_RUN_FILE).write_text(run.info.run_id)


def parent_run_id() -> str | None:
    """The multirun's parent run id when this process is a job of a multirun, else None."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    if not HydraConfig.initialized() or HydraConfig.get().mode != RunMode.MULTIRUN:
        return None
    marker = Path(HydraConfig.get().sweep.dir) / PARENT_RUN_FILE
    return marker.read_text().strip() if marker.is_file() else None


@contextmanager
def tracked_run(
    *,
    enabled: bool,
    uri: str,
    experiment: str,
    run_name: str,
    params: Mapping[str, Any],
    tags: Mapping[str, str],
    artifact_root: str | None = None,
) -> Iterator[Tracker]:
    """Open an MLflow run with flattened params and tags, or a no-op tracker when disabled.

    A new experiment keeps its artifacts under ``artifact_root/<experiment>`` (absolute), never in the
    working directory. Experiment creation is guarded by a file lock beside the SQLite database, so
    parallel multirun jobs do not race to create the same experiment.
    """
    if not enabled:
        yield Tracker()
        return
    import mlflow

    _use_experiment(uri, experiment, artifact_root)
    flat = flatten(params)
    clipped = {k: REDACTED if is_secret(k) else str(v)[:MAX_PARAM_CHARS] for k, v in flat.items()}
    parent = parent_run_id()
    run_tags = {**tags, "mlflow.parentRunId": parent} if parent else dict(tags)
    with mlflow.start_run(run_name=run_name, tags=run_tags) as run:
        mlflow.log_params(clipped)
        yield MlflowTracker(run.info.run_id, secret_values(flat))
