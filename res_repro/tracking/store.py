"""Writing records to MLflow: the only module that imports it, once per run or multirun, at the end.

A record becomes a run in one go (params, tags, metrics, artifacts, traces, its final status and its
start and end times). A run with the content of a FINISHED run already in the store (same name, params,
tags, metrics and artifact bytes; its ``content_hash`` tag) is not written again: a warm rerun uploads
nothing, and the lookup reads the SQLite store without importing MLflow. Records whose writer died are
written FAILED by the next writer on the same store; a run left RUNNING by a writer killed mid-write is
marked FAILED by :func:`fail_stale_runs`.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import os
import shutil
import socket
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from contextlib import closing, suppress
from pathlib import Path
from typing import Any

from filelock import FileLock

from res_repro.errors import UserInputError
from res_repro.storage import first_line, quarantine, sqlite_damage, write_bytes_atomic
from res_repro.tracking.multirun import PARENT_RUN_FILE
from res_repro.tracking.processes import has_ended, this_process
from res_repro.tracking.record import FAILED, FINISHED, RUNNING, RunRecord, pending_dir

SUMMARY_NAME = "sweep_summary"
HOST_TAG, PROCESS_TAG, CONTENT_TAG = "host", "process", "content_hash"
# MLflow's INFO lines about creating the store's tables and flushing traces at exit
QUIET_LOGGERS = ("mlflow.store.db.utils", "mlflow.tracing.export.async_export_queue", "alembic")
COMPANIONS = (".n", ".ci_low", ".ci_high")  # what a metric's estimate adds beside it (RateEstimate)
CLAIM = ".claimed"  # a pending record taken by a writer: <record id>.<host>~<pid-start>.claimed
CLAIMER = "~"
DEFAULT_EXPERIMENT_ID = "0"  # MLflow's Default experiment
log = logging.getLogger(__name__)
# params and tags that differ between identical runs (the run folder's time, the config's hash over it)
VOLATILE_PARAMS, VOLATILE_TAGS = ("paths.output_dir",), ("config_hash",)
# the invocation's record and the pages drawn from the hashed files, both naming the run folder
UNHASHED_FOLDERS = (".hydra", "view")
ENDED_UNCLOSED = "the process ended without closing the run"
STOPPED_EARLY = "the multirun stopped before the job ended"
FINISHED_RUN = """
SELECT r.run_uuid FROM runs r JOIN experiments e ON e.experiment_id = r.experiment_id
JOIN tags t ON t.run_uuid = r.run_uuid
WHERE e.name = ? AND e.lifecycle_stage = 'active' AND r.lifecycle_stage = 'active'
AND r.status = 'FINISHED' AND t.key = ? AND t.value = ? LIMIT 1
"""


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def content_hash(record: RunRecord) -> str:
    """What makes two runs the same: name, status, params and tags (less the run folder's), metrics,
    and the bytes of every artifact and traced episode file (less the ``.hydra`` folder)."""
    files = [(folder, Path(p).name, _digest(Path(p))) for p, folder in record.artifacts]
    files = [entry for entry in files if entry[0] not in UNHASHED_FOLDERS]
    for root, folder in record.folders:
        if folder in UNHASHED_FOLDERS:
            continue
        base = Path(root)
        files += [
            (folder, p.relative_to(base).as_posix(), _digest(p)) for p in base.rglob("*") if p.is_file()
        ]
    identity = {
        "name": record.run_name,
        "status": record.status,
        "params": {k: v for k, v in record.params.items() if k not in VOLATILE_PARAMS},
        "tags": {k: v for k, v in record.tags.items() if k not in VOLATILE_TAGS},
        "metrics": record.metrics,
        "files": sorted(files, key=lambda entry: (entry[0] or "", entry[1])),
        "traces": [(_digest(Path(p)), limit) for p, limit in record.traces],
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]


def finished_run(uri: str, experiment: str, content: str) -> str | None:
    """The id of a FINISHED run of ``experiment`` with ``content`` as its content hash, if any; a SQLite
    store is read directly (importing MLflow costs seconds), a damaged or missing one holds none."""
    if uri.startswith("sqlite:///"):
        database = Path(uri.removeprefix("sqlite:///"))
        if not database.is_file():
            return None
        try:
            with closing(sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)) as db:
                row = db.execute(FINISHED_RUN, (experiment, CONTENT_TAG, content)).fetchone()
        except sqlite3.Error:
            return None
        return row[0] if row else None
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    found = client.get_experiment_by_name(experiment)
    runs = found and client.search_runs(
        [found.experiment_id],
        filter_string=f"attributes.status = 'FINISHED' and tags.{CONTENT_TAG} = '{content}'",
        max_results=1,
    )
    return runs[0].info.run_id if runs else None


def _ensure_experiment(name: str, artifact_root: str | None) -> str:
    """Create the experiment if needed (with an absolute artifact location), make it active, return its id."""
    import mlflow

    if mlflow.get_experiment_by_name(name) is None:
        location = Path(artifact_root, name).resolve().as_uri() if artifact_root else None
        mlflow.create_experiment(name, artifact_location=location)
        _hide_empty_default()
    return mlflow.set_experiment(name).experiment_id


def _hide_empty_default() -> None:
    """Delete MLflow's ``Default`` experiment while it holds no run (this project never logs there), so
    the UI opens on the pipelines' experiments rather than on an empty one; its id stays reserved."""
    from mlflow import MlflowClient
    from mlflow.exceptions import MlflowException

    client = MlflowClient()
    with suppress(MlflowException):  # no Default, a store that refuses, or a writer that got there first
        default = client.get_experiment(DEFAULT_EXPERIMENT_ID)
        if default.lifecycle_stage == "active" and not client.search_runs(
            [DEFAULT_EXPERIMENT_ID], max_results=1
        ):
            client.delete_experiment(DEFAULT_EXPERIMENT_ID)


def use_experiment(uri: str, experiment: str, artifact_root: str | None) -> str:
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
            experiment_id = _ensure_in_sqlite(database, experiment, artifact_root)
    else:
        experiment_id = _ensure_experiment(experiment, artifact_root)
    fail_stale_runs(experiment_id, uri)
    return experiment_id


def _ensure_in_sqlite(database: Path, experiment: str, artifact_root: str | None) -> str:
    """:func:`_ensure_experiment` in the SQLite store at ``database``. One that is damaged, is not a file,
    or is another program's database (tables, but not MLflow's) is moved aside with one line and the
    store started afresh; one MLflow still cannot use is a :class:`UserInputError` naming it."""
    damage = "not a file" if database.exists() and not database.is_file() else sqlite_damage(database)
    damage = damage or _foreign_schema(database)
    if damage is not None:
        quarantine(database, damage)
    if not database.exists():
        _new_store(database)
    try:
        return _ensure_experiment(experiment, artifact_root)
    except Exception as exc:  # MLflow's and SQLAlchemy's errors have no common base
        raise UserInputError(
            f"{database}: MLflow cannot use this database ({first_line(exc)}); move it aside or point "
            "paths.mlflow_db elsewhere"
        ) from None


def _new_store(database: Path) -> None:
    """Create the SQLite store at ``database`` as a copy of an empty store of this MLflow version, kept in
    the user's cache: MLflow's migrations take seconds on every new store (every new ``paths.root_dir``),
    a copy milliseconds. The first store of a version is made by MLflow and becomes the template."""
    import mlflow
    from mlflow import MlflowClient

    template = (
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        / "res-repro"
        / f"mlflow-{mlflow.__version__}.db"
    )
    if template.is_file():
        write_bytes_atomic(database, template.read_bytes(), durable=False)
        return
    MlflowClient(tracking_uri=f"sqlite:///{database}").search_experiments()  # MLflow creates its tables
    with suppress(OSError):  # no cache folder to write: every new store is made by MLflow
        write_bytes_atomic(template, database.read_bytes(), durable=False)


def _foreign_schema(database: Path) -> str | None:
    """Why the SQLite database at ``database`` is not MLflow's (tables, none of them MLflow's schema
    version), or None (MLflow's, empty or absent)."""
    if not database.is_file():
        return None
    with closing(sqlite3.connect(database)) as connection:
        try:
            tables = {
                row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
        except sqlite3.DatabaseError:
            return None  # busy: left to MLflow
    if tables and "alembic_version" not in tables:
        return f"another program's database (tables {', '.join(sorted(tables)[:3])}), not MLflow's"
    return None


def process_tags() -> dict[str, str]:
    """Tags naming the writing process, for :func:`fail_stale_runs`."""
    return {HOST_TAG: socket.gethostname(), PROCESS_TAG: this_process()}


def fail_stale_runs(experiment_id: str, uri: str) -> list[str]:
    """Mark FAILED every RUNNING run of the experiment started on this host by a process that no longer
    runs (a writer killed while writing, or the machine restarted); return their ids."""
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    host = socket.gethostname().replace("'", "")
    running = client.search_runs(
        [experiment_id], filter_string=f"attributes.status = '{RUNNING}' and tags.{HOST_TAG} = '{host}'"
    )
    stale = []
    for run in running:
        if has_ended(run.data.tags.get(PROCESS_TAG, "")):
            client.set_tag(run.info.run_id, "failure", ENDED_UNCLOSED)
            client.set_terminated(run.info.run_id, FAILED)
            stale.append(run.info.run_id)
    return stale


def _claim(paths: Iterable[Path]) -> list[RunRecord]:
    """Take the records at ``paths`` for this process (a rename: two writers never write one record)."""
    claimed = []
    for path in paths:
        mine = path.with_suffix(f".{socket.gethostname()}{CLAIMER}{this_process().replace(':', '-')}{CLAIM}")
        try:
            path.rename(mine)
        except FileNotFoundError:
            continue
        claimed.append(RunRecord.load(mine))
    return claimed


def _discard(record: RunRecord) -> None:
    """Remove a written record and its scrubbed copies."""
    for path in record.path.parent.glob(f"{record.record_id}.*claimed"):
        path.unlink(missing_ok=True)
    shutil.rmtree(record.staging, ignore_errors=True)


def _close(record: RunRecord, failure: str) -> RunRecord:
    """A record still RUNNING when it is written: FAILED, saying why."""
    if record.status == RUNNING:
        record.status, record.failure = FAILED, failure
        record.end_ms = record.end_ms or record.start_ms
    return record


def _write_run(experiment_id: str, record: RunRecord, content: str, parent_id: str | None = None) -> str:
    """Create the MLflow run of ``record`` in one go and end it with the record's status; return its id."""
    import mlflow
    from mlflow import MlflowClient
    from mlflow.entities import Metric, Param

    client = MlflowClient(tracking_uri=record.uri)
    tags = {**record.tags, **process_tags(), CONTENT_TAG: content}
    if parent_id:
        tags["mlflow.parentRunId"] = parent_id
    if record.failure:
        tags["failure"] = record.failure
    run_id = client.create_run(
        experiment_id, start_time=record.start_ms, tags=tags, run_name=record.run_name
    ).info.run_id
    stamp = record.end_ms or record.start_ms
    client.log_batch(
        run_id,
        metrics=[Metric(k, v, stamp, 0) for k, v in record.metrics.items()],
        params=[Param(k, v) for k, v in record.params.items()],
    )
    for path, folder in record.artifacts:
        client.log_artifact(run_id, path, folder)
    for root, folder in record.folders:
        client.log_artifacts(run_id, root, folder)
    if record.traces:
        from res_repro.evaluation.episode import read_episodes
        from res_repro.traces import log_episode_traces

        with mlflow.start_run(run_id=run_id):
            for path, limit in record.traces:
                logged, total = log_episode_traces(read_episodes(Path(path)), experiment_id, limit)
                if total:
                    client.set_tag(run_id, "traces", f"{logged} of {total} model episodes")
    client.set_terminated(run_id, record.status, end_time=record.end_ms)
    return run_id


def _announce(run_id: str, what: str, uri: str, experiment: str) -> None:
    print(f"MLflow run {run_id} {what} in {uri} (experiment {experiment})")


def _write_alone(record: RunRecord) -> tuple[str, str | None]:
    """Write a run that is no multirun's child, unless a FINISHED run with its content is there; return
    its id and, when written, its experiment's id."""
    content = content_hash(record)
    run_id = finished_run(record.uri, record.experiment, content) if record.status == FINISHED else None
    experiment_id = None
    if run_id is not None:
        _announce(run_id, "unchanged, not written again,", record.uri, record.experiment)
    else:
        experiment_id = use_experiment(record.uri, record.experiment, record.artifact_root)
        run_id = _write_run(experiment_id, record, content)
        _announce(run_id, "written", record.uri, record.experiment)
    _discard(record)
    return run_id, experiment_id


def _release_abandoned(folder: Path) -> None:
    """Put back the records that a writer on this host claimed and died before writing (killed, or its
    store refused it), so the next writer takes them: a finished run is never lost with its writer."""
    for path in folder.glob(f"*{CLAIM}"):
        record_id, _, claim = path.name.removesuffix(CLAIM).partition(".")
        host, _, writer = claim.rpartition(CLAIMER)
        if host == socket.gethostname() and has_ended(writer.replace("-", ":", 1)):
            with suppress(FileNotFoundError):
                path.rename(path.with_name(f"{record_id}.json"))
                log.warning("%s: its writer ended before writing it; queued again", path.name)


def _pending(uri: str, artifact_root: str | None) -> list[tuple[Path, RunRecord]]:
    """The waiting records with their files (one taken by another writer meanwhile is left out); records
    an ended writer had claimed are put back first."""
    folder = pending_dir(uri, artifact_root)
    if folder.is_dir():
        _release_abandoned(folder)
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            found.append((path, RunRecord.load(path)))
        except FileNotFoundError:
            continue
        except (ValueError, TypeError, KeyError, AttributeError) as exc:  # not a record this code wrote
            quarantine(path, f"not a pending run record ({type(exc).__name__}: {first_line(exc)})")
    return found


def _writable(record: RunRecord) -> bool:
    """A record this process may write: its own, or one whose writer has ended (on this host)."""
    if record.owner == this_process():
        return record.sweep is None and record.status != RUNNING
    return record.host == socket.gethostname() and has_ended(record.owner)


def write_pending(uri: str, artifact_root: str | None) -> dict[str, tuple[str, str | None]]:
    """Write every record waiting for the store that this process may write (see :func:`_writable`);
    records of a multirun whose driver died go under a FAILED parent. Return, per record id, its run
    id and experiment id (None for a run not written again)."""
    return _write_claimed(_claim(path for path, record in _pending(uri, artifact_root) if _writable(record)))


def _write_claimed(records: Iterable[RunRecord]) -> dict[str, tuple[str, str | None]]:
    """Write ``records`` (claimed by this process) as :func:`write_pending` does."""
    written: dict[str, tuple[str, str | None]] = {}
    sweeps: dict[str, list[RunRecord]] = defaultdict(list)
    for record in records:
        if record.sweep is not None:
            sweeps[record.sweep].append(record)
            continue
        written[record.record_id] = _write_alone(_close(record, ENDED_UNCLOSED))
    for sweep, sweep_records in sweeps.items():
        marker_path = Path(sweep) / PARENT_RUN_FILE
        if marker_path.is_file():
            _write_children(json.loads(marker_path.read_text()), FAILED, sweep_records)
        else:
            for record in sweep_records:
                _write_alone(_close(record, ENDED_UNCLOSED))
    return written


def write_sweep(marker: Mapping[str, Any], status: str) -> str | None:
    """The multirun's driver at the end: write the parent run described by ``marker`` with ``status`` and
    the sweep's records as its children (one still RUNNING is written FAILED), then the summary of the
    children; when every run matches a FINISHED sweep already in the store, write nothing. A sweep that
    failed before any job recorded its run (a bad override, Ctrl-C while the first jobs started) has
    nothing to show and writes no parent. Records of other writers that have ended are written too,
    from the same listing of the waiting records; a record saved after it (a job that started as the
    sweep stopped) is written by the next writer on the store, under a FAILED parent made from the sweep's
    marker. Return the parent's run id, None when none is written."""
    pending = _pending(marker["uri"], marker["artifact_root"])
    mine = [path for path, record in pending if record.sweep == marker["sweep"]]
    others = [path for path, record in pending if record.sweep != marker["sweep"] and _writable(record)]
    parent_id = None
    if mine or status == FINISHED:
        parent_id = _write_children(marker, status, _claim(mine))
    else:
        print(f"the multirun in {marker['sweep']} stopped before any job recorded a run: no MLflow run")
    _write_claimed(_claim(others))
    return parent_id


def _write_children(marker: Mapping[str, Any], status: str, records: list[RunRecord]) -> str:
    """Write the parent run of ``marker`` and ``records`` as its children (see :func:`write_sweep`)."""
    for record in records:
        _close(record, ENDED_UNCLOSED if has_ended(record.process) else STOPPED_EARLY)
    contents = {record.record_id: content_hash(record) for record in records}
    sweep_identity = {
        "name": marker["run_name"].rsplit(" sweep ", 1)[0],
        "params": marker["params"],
        "status": status,
        "children": sorted(contents.values()),
    }
    sweep_content = hashlib.sha256(json.dumps(sweep_identity, sort_keys=True).encode()).hexdigest()[:32]
    uri, experiment = marker["uri"], marker["experiment"]
    parent_id = finished_run(uri, experiment, sweep_content) if status == FINISHED else None
    if parent_id is not None:
        _announce(
            parent_id, f"(a sweep of {len(records)} runs) unchanged, not written again,", uri, experiment
        )
        for record in records:
            _discard(record)
        return parent_id
    from mlflow import MlflowClient
    from mlflow.entities import Param

    experiment_id = use_experiment(uri, experiment, marker["artifact_root"])
    client = MlflowClient(tracking_uri=uri)
    tags = {
        "multirun": "parent",
        "swept": ",".join(marker["swept"]),
        **process_tags(),
        CONTENT_TAG: sweep_content,
    }
    parent_id = client.create_run(
        experiment_id, start_time=marker["start_ms"], tags=tags, run_name=marker["run_name"]
    ).info.run_id
    client.log_batch(parent_id, params=[Param(k, v) for k, v in marker["params"].items()])
    for record in sorted(records, key=lambda r: r.start_ms):
        _write_run(experiment_id, record, contents[record.record_id], parent_id)
        _discard(record)
    rows = summary_rows(experiment_id, parent_id, uri)
    summary = write_summary(rows, Path(marker["sweep"]))
    for path in summary:
        client.log_artifact(parent_id, str(path))
    print(f"sweep summary (rates and scores in %): {summary[-1]} (and {summary[0].name})")
    statuses = [row["status"] for row in {row["run"]: row for row in rows}.values()]
    for status_name in (FINISHED, FAILED):
        client.log_metric(parent_id, f"children.{status_name.lower()}", statuses.count(status_name))
    client.set_terminated(parent_id, status)
    _announce(parent_id, f"(a sweep of {len(records)} runs) written", uri, experiment)
    return parent_id


def summary_rows(experiment_id: str, parent_id: str, uri: str) -> list[dict[str, Any]]:
    """One row per child run and metric (estimates with their ``n`` and interval), children in start order
    (by name where two started in the same millisecond)."""
    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    children = client.search_runs(
        [experiment_id],
        filter_string=f"tags.mlflow.parentRunId = '{parent_id}'",
        order_by=["attributes.start_time ASC", "attributes.run_name ASC"],
    )
    rows = []
    for child in children:
        metrics = child.data.metrics
        names = sorted(m for m in metrics if not m.endswith(COMPANIONS)) or [""]
        for name in names:
            # an estimate (logged with its n and interval) is a rate or mean score: in %, as the tables
            percent = f"{name}.n" in metrics
            scale = 100.0 if percent else 1.0
            row = {"run": child.info.run_name, "status": child.info.status, "metric": name}
            row["unit"] = "%" if percent else ""
            row["value"] = _scaled(metrics.get(name, ""), scale)
            row.update(
                {
                    suffix[1:]: _scaled(metrics.get(f"{name}{suffix}", ""), 1.0 if suffix == ".n" else scale)
                    for suffix in COMPANIONS
                }
            )
            rows.append(row)
    return rows


def _scaled(value: Any, scale: float) -> Any:
    """``value`` times ``scale`` when it is a number; a blank stays blank."""
    return value * scale if isinstance(value, int | float) else value


def write_summary(rows: Sequence[Mapping[str, Any]], folder: Path) -> list[Path]:
    """The sweep summary as CSV and as a Markdown table in ``folder``."""
    columns = ["run", "status", "metric", "unit", "value", "n", "ci_low", "ci_high"]
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
