"""MLflow tracking: a SQLite store at an absolute path, flattened params, git and config-hash tags.

A job's run opens when the job starts (RUNNING) and ends FINISHED, or FAILED when the job raises or is
stopped by a signal; a run whose process died without closing it (SIGKILL) is marked FAILED by the next
job in the same experiment on the same host. A multirun has a parent run holding the sweep's overrides
and a summary table of its children, each named by its own swept overrides.
"""

from __future__ import annotations

import atexit
import csv
import hashlib
import json
import logging
import os
import re
import socket
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock
from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from res_repro.config import multirun_dir
from res_repro.storage import quarantine, sqlite_damage, write_bytes_atomic

if TYPE_CHECKING:  # records are only passed through to res_repro.traces
    from res_repro.evaluation.episode import EpisodeRecord

MAX_PARAM_CHARS = 6000  # MLflow's limit on a param value
# config entries that hold secrets themselves (``api_key_env`` only names a variable, so it is kept)
SECRET_NAME = re.compile(r"(^|[._-])(api[_-]?key|access[_-]?key|token|secret|password)$", re.IGNORECASE)
REDACTED = "REDACTED"  # a plain word: a redacted YAML file still parses


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


def redacted(data: bytes, secrets: Iterable[str]) -> bytes:
    """``data`` with every secret in it replaced by :data:`REDACTED`."""
    for secret in secrets:
        data = data.replace(secret.encode(), REDACTED.encode())
    return data


def redact_files(paths: Iterable[Path], secrets: Iterable[str]) -> None:
    """Rewrite each existing file with the ``secrets`` in it replaced, readable by its owner only (such
    files, like Hydra's copies of the config, may hold a secret that no key name marks)."""
    secrets = list(secrets)
    for path in paths:
        with suppress(FileNotFoundError):
            write_bytes_atomic(path, redacted(path.read_bytes(), secrets), durable=False)


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

    def log_traces(self, records: Iterable[EpisodeRecord], limit: int) -> None:
        """Log up to ``limit`` model episodes as traces of the run."""

    def set_tags(self, tags: Mapping[str, str]) -> None:
        """Tag the run."""


class MlflowTracker(Tracker):
    """Logs into the active MLflow run."""

    def __init__(self, run_id: str, experiment_id: str, secrets: set[str] | None = None) -> None:
        self.run_id = run_id
        self.experiment_id = experiment_id
        self.secrets = secrets or set()

    def log_traces(self, records: Iterable[EpisodeRecord], limit: int) -> None:
        """Log up to ``limit`` model episodes as traces of the active run (see :mod:`res_repro.traces`);
        the run's ``traces`` tag says how many of how many were logged."""
        from res_repro.traces import log_episode_traces

        logged, total = log_episode_traces(records, self.experiment_id, limit)
        if total:
            self.set_tags({"traces": f"{logged} of {total} model episodes"})

    def set_tags(self, tags: Mapping[str, str]) -> None:
        """Tag the active run."""
        import mlflow

        mlflow.set_tags(dict(tags))

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
                    data = redacted(data, self.secrets)
                    path = Path(scratch) / path.name
                    path.write_bytes(data)
                mlflow.log_artifact(str(path), artifact_path=folder)

    def log_figure(self, figure: Any, artifact_file: str) -> None:
        """Attach a matplotlib figure to the active run."""
        import mlflow

        mlflow.log_figure(figure, artifact_file)


def _ensure_experiment(name: str, artifact_root: str | None) -> str:
    """Create the experiment if needed (with an absolute artifact location), make it active, return its id."""
    import mlflow

    if mlflow.get_experiment_by_name(name) is None:
        location = Path(artifact_root, name).resolve().as_uri() if artifact_root else None
        mlflow.create_experiment(name, artifact_location=location)
    return mlflow.set_experiment(name).experiment_id


def _use_experiment(uri: str, experiment: str, artifact_root: str | None) -> str:
    """Point MLflow at ``uri`` and make ``experiment`` active, creating it under a file lock; mark its
    stale runs FAILED (see :func:`fail_stale_runs`); return its id. A damaged SQLite database is moved
    aside (one line names it; its runs stay in that file) and started afresh."""
    import mlflow

    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    mlflow.set_tracking_uri(uri)
    if uri.startswith("sqlite:///"):
        database = Path(uri.removeprefix("sqlite:///"))
        lock_path = Path(f"{database}.lock")
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(lock_path)):
            damage = sqlite_damage(database)
            if damage is not None:
                quarantine(database, damage)
            experiment_id = _ensure_experiment(experiment, artifact_root)
    else:
        experiment_id = _ensure_experiment(experiment, artifact_root)
    fail_stale_runs(experiment_id, uri)
    return experiment_id


PARENT_RUN_FILE = "mlflow_parent_run.json"
SUMMARY_NAME = "sweep_summary"
HOST_TAG, PROCESS_TAG = "host", "process"
# MLflow's INFO lines about creating the store's tables and flushing traces at exit
QUIET_LOGGERS = ("mlflow.store.db.utils", "mlflow.tracing.export.async_export_queue", "alembic")
COMPANIONS = (".n", ".ci_low", ".ci_high")  # what a metric's estimate adds beside it (RateEstimate)


def process_identity(pid: int) -> str | None:
    """``pid`` with its start time (from ``/proc`` on Linux), or None when no such process runs (a
    zombie has ended): a later process that reuses the pid has another identity. Elsewhere the pid."""
    stat = Path(f"/proc/{pid}/stat")
    if Path("/proc/self/stat").is_file():
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        # fields[0] is field 3 of proc(5), the state; fields[19] is field 22, the start time
        return None if fields[0] == "Z" else f"{pid}:{fields[19]}"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return str(pid)


def process_tags() -> dict[str, str]:
    """Tags naming this process, for :func:`fail_stale_runs`."""
    return {HOST_TAG: socket.gethostname(), PROCESS_TAG: process_identity(os.getpid()) or str(os.getpid())}


def fail_stale_runs(experiment_id: str, uri: str) -> list[str]:
    """Mark FAILED every RUNNING run of the experiment started on this host by a process that no longer
    runs (killed with SIGKILL, or the machine restarted); return their ids."""
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    host = socket.gethostname().replace("'", "")
    running = client.search_runs(
        [experiment_id], filter_string=f"attributes.status = 'RUNNING' and tags.{HOST_TAG} = '{host}'"
    )
    stale = []
    for run in running:
        recorded = run.data.tags.get(PROCESS_TAG, "")
        pid = recorded.partition(":")[0]
        if pid.isdigit() and process_identity(int(pid)) != recorded:
            client.set_tag(run.info.run_id, "failure", "the process ended without closing the run")
            client.set_terminated(run.info.run_id, "FAILED")
            stale.append(run.info.run_id)
    return stale


def sweep_overrides(
    overrides: Sequence[str], sweeper_params: Mapping[str, Any]
) -> dict[str, tuple[str, bool]]:
    """Each overridden key of a multirun: its value as written and whether it is swept (several values),
    from the command line and the sweeper's ``params``."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    lines = [*overrides, *(f"{key}={value}" for key, value in sweeper_params.items())]
    parsed = OverridesParser.create().parse_overrides(lines)
    return {o.key_or_group: (o.input_line.partition("=")[2], o.is_sweep_override()) for o in parsed}


def child_run_name(job_overrides: Sequence[str], swept: Sequence[str]) -> str | None:
    """A multirun job's run name: its own values of the swept keys (``a=1,b=x``); None when none is swept."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parsed = OverridesParser.create().parse_overrides(list(job_overrides))
    mine = [o.input_line for o in parsed if o.key_or_group in swept]
    return ",".join(mine) or None


def summary_rows(experiment_id: str, parent_id: str, uri: str) -> list[dict[str, Any]]:
    """One row per child run and metric (estimates with their ``n`` and interval), children in start order."""
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    children = client.search_runs(
        [experiment_id],
        filter_string=f"tags.mlflow.parentRunId = '{parent_id}'",
        order_by=["attributes.start_time ASC"],
    )
    rows = []
    for child in children:
        metrics = child.data.metrics
        names = sorted(m for m in metrics if not m.endswith(COMPANIONS)) or [""]
        for name in names:
            row = {"run": child.info.run_name, "status": child.info.status, "metric": name}
            row["value"] = metrics.get(name, "")
            row.update({suffix[1:]: metrics.get(f"{name}{suffix}", "") for suffix in COMPANIONS})
            rows.append(row)
    return rows


def write_summary(rows: Sequence[Mapping[str, Any]], folder: Path) -> list[Path]:
    """The sweep summary as CSV and as a Markdown table in ``folder``."""
    columns = ["run", "status", "metric", "value", "n", "ci_low", "ci_high"]
    folder.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = folder / f"{SUMMARY_NAME}.csv", folder / f"{SUMMARY_NAME}.md"
    with csv_path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)

    def cell(value: Any) -> str:
        return f"{value:.4g}" if isinstance(value, float) else str(value)

    lines = [f"| {' | '.join(columns)} |", f"|{'---|' * len(columns)}"]
    lines += [f"| {' | '.join(cell(row[c]) for c in columns)} |" for row in rows]
    md_path.write_text("\n".join(lines) + "\n")
    return [csv_path, md_path]


class MultirunParent(Callback):
    """A Hydra callback: one MLflow parent run per multirun, RUNNING while the jobs run, holding the
    sweep's overrides as params; each job's run becomes its child. At the end the parent gets a summary
    table of its children's metrics and ends FINISHED, or FAILED when the multirun did not complete."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Create the parent run and leave its id and the swept keys in the sweep folder for the jobs."""
        tracking = config.tracking
        if not tracking.enabled:
            return
        from mlflow import MlflowClient
        from mlflow.entities import Param

        experiment_id = _use_experiment(tracking.uri, tracking.experiment, config.paths.mlflow_artifacts)
        sweep_dir = Path(config.hydra.sweep.dir)
        overrides = sweep_overrides(
            list(config.hydra.overrides.task), config.hydra.sweeper.get("params") or {}
        )
        swept = [key for key, (_, is_swept) in overrides.items() if is_swept]
        client = MlflowClient(tracking_uri=tracking.uri)
        run = client.create_run(
            experiment_id,
            run_name=f"{config.task_name} sweep {sweep_dir.name}",
            tags={"multirun": "parent", "swept": ",".join(swept), **process_tags()},
        )
        params = [
            Param(key, REDACTED if is_secret(key) else value[:MAX_PARAM_CHARS])
            for key, (value, _) in overrides.items()
        ]
        client.log_batch(run.info.run_id, params=params)
        sweep_dir.mkdir(parents=True, exist_ok=True)
        marker = {
            "run_id": run.info.run_id,
            "experiment_id": experiment_id,
            "uri": tracking.uri,
            "swept": swept,
        }
        (sweep_dir / PARENT_RUN_FILE).write_text(json.dumps(marker))
        atexit.register(end_parent_run, sweep_dir, "FAILED")

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        """Attach the summary of the children and end the parent run FINISHED."""
        if config.tracking.enabled:
            sweep_dir = Path(config.hydra.sweep.dir)
            atexit.unregister(end_parent_run)
            end_parent_run(sweep_dir, "FINISHED")


def end_parent_run(sweep_dir: Path, status: str) -> None:
    """Attach the children's summary table to the sweep's parent run and end it with ``status``
    (FINISHED, or FAILED when the multirun stops early); nothing when it has ended already."""
    from mlflow import MlflowClient

    marker = json.loads((sweep_dir / PARENT_RUN_FILE).read_text())
    client = MlflowClient(tracking_uri=marker["uri"])
    if client.get_run(marker["run_id"]).info.status != "RUNNING":
        return
    rows = summary_rows(marker["experiment_id"], marker["run_id"], marker["uri"])
    for path in write_summary(rows, sweep_dir):
        client.log_artifact(marker["run_id"], str(path))
    statuses = [row["status"] for row in {row["run"]: row for row in rows}.values()]
    for status_name in ("FINISHED", "FAILED"):
        client.log_metric(marker["run_id"], f"children.{status_name.lower()}", statuses.count(status_name))
    client.set_terminated(marker["run_id"], status)


def multirun_marker() -> dict[str, Any] | None:
    """The multirun's parent run (id and swept keys) when this process is a job of a multirun, else None."""
    sweep_dir = multirun_dir()
    marker = sweep_dir / PARENT_RUN_FILE if sweep_dir else None
    return json.loads(marker.read_text()) if marker and marker.is_file() else None


def job_run_name(default: str) -> str:
    """The run name of this job: in a multirun, its swept overrides (``scaling.depth_cap=3,...``);
    otherwise ``default``."""
    from hydra.core.hydra_config import HydraConfig

    marker = multirun_marker()
    if marker is None:
        return default
    return child_run_name(list(HydraConfig.get().overrides.task), marker["swept"]) or default


_active: list[MlflowTracker] = []  # the job's open run, which later tracked runs log into


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

    The run is RUNNING while the block runs and ends FINISHED, or FAILED when the block raises (a
    signal that ends the process raises ``SystemExit`` in it, see ``res_repro.cli``). Inside an open
    run, a nested call adds its tags to that run and logs into it. In a multirun the run is a child of
    the sweep's parent, named by its swept overrides.

    A new experiment keeps its artifacts under ``artifact_root/<experiment>`` (absolute), never in the
    working directory. Experiment creation is guarded by a file lock beside the SQLite database, so
    parallel multirun jobs do not race to create the same experiment.
    """
    if not enabled:
        yield Tracker()
        return
    if _active:
        _active[-1].set_tags(tags)
        yield _active[-1]
        return
    import mlflow

    experiment_id = _use_experiment(uri, experiment, artifact_root)
    flat = flatten(params)
    clipped = {k: REDACTED if is_secret(k) else str(v)[:MAX_PARAM_CHARS] for k, v in flat.items()}
    marker = multirun_marker()
    run_tags = {**tags, **process_tags()}
    if marker:
        run_tags["mlflow.parentRunId"] = marker["run_id"]
    with mlflow.start_run(run_name=job_run_name(run_name), tags=run_tags) as run:
        mlflow.log_params(clipped)
        _active.append(MlflowTracker(run.info.run_id, experiment_id, secret_values(flat)))
        try:
            yield _active[-1]
        finally:
            _active.pop()
