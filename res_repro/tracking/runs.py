"""Where runs are recorded and written: :func:`tracked_run` around a job, and :class:`MultirunParent`,
the Hydra callback by which a multirun's driver writes the sweep's runs when it ends.

The driver (Hydra's process that launches the jobs) leaves a marker in the sweep folder when the
multirun starts; each job records its run (:mod:`res_repro.tracking.record`) and the driver writes the
sweep's parent run and every child at the end, FINISHED, or FAILED when the multirun stops early.
"""

from __future__ import annotations

import atexit
import json
import socket
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from res_repro.tracking.multirun import PARENT_RUN_FILE, job_run_name, multirun_marker, sweep_overrides
from res_repro.tracking.params import flatten, param_values, secret_values
from res_repro.tracking.processes import now_ms, this_process
from res_repro.tracking.record import FAILED, FINISHED, RecordingTracker, RunRecord, Tracker

_active: list[RecordingTracker] = []  # the job's open run, which later tracked runs log into


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
    """A run with flattened params and tags, or a no-op tracker when disabled.

    The job only writes a :class:`RunRecord` (RUNNING while the block runs; FINISHED, or FAILED when
    the block raises: a signal that ends the process raises ``SystemExit`` in it, see
    ``res_repro.cli``); MLflow is neither imported nor opened here. In a multirun the sweep's driver
    writes the record as a child of the sweep's run, named by its swept overrides; otherwise this
    process writes it when the block ends, and the tracker then holds its ``run_id``. Inside an open
    run, a nested call adds its tags to that run and logs into it.
    """
    if not enabled:
        yield Tracker()
        return
    if _active:
        _active[-1].set_tags(tags)
        yield _active[-1]
        return
    flat = flatten(params)
    marker = multirun_marker()
    me = this_process()
    record = RunRecord(
        record_id=uuid.uuid4().hex,
        uri=uri,
        experiment=experiment,
        artifact_root=artifact_root,
        run_name=job_run_name(run_name),
        params=param_values(flat),
        tags=dict(tags),
        sweep=marker["sweep"] if marker else None,
        process=me,
        owner=marker["owner"] if marker else me,
        host=socket.gethostname(),
        start_ms=now_ms(),
    )
    record.save()
    tracker = RecordingTracker(record, secret_values(flat))
    _active.append(tracker)
    try:
        yield tracker
    except BaseException:
        record.status = FAILED
        raise
    else:
        record.status = FINISHED
    finally:
        _active.pop()
        record.end_ms = now_ms()
        record.save()
        if record.sweep is None:  # no multirun's driver to write it
            from res_repro.tracking.store import write_pending

            written = write_pending(uri, artifact_root)
            tracker.run_id, tracker.experiment_id = written.get(record.record_id, (None, None))


class MultirunParent(Callback):
    """A Hydra callback: one MLflow parent run per multirun, holding the sweep's overrides as params;
    each job's run becomes its child. The driver writes them all when the multirun ends, the parent with
    a summary table of its children's metrics, FINISHED, or FAILED when the multirun did not complete."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        """Leave the sweep's overrides, its swept keys and this driver's identity in the sweep folder
        for the jobs (no MLflow yet)."""
        tracking = config.tracking
        if not tracking.enabled:
            return
        sweep_dir = Path(config.hydra.sweep.dir)
        overrides = sweep_overrides(
            list(config.hydra.overrides.task), config.hydra.sweeper.get("params") or {}
        )
        marker = {
            "sweep": str(sweep_dir.resolve()),
            "owner": this_process(),
            "host": socket.gethostname(),
            "uri": tracking.uri,
            "experiment": tracking.experiment,
            "artifact_root": config.paths.mlflow_artifacts,
            "run_name": f"{config.task_name} sweep {sweep_dir.name}",
            "params": param_values({key: value for key, (value, _) in overrides.items()}),
            "swept": [key for key, (_, is_swept) in overrides.items() if is_swept],
            "start_ms": now_ms(),
        }
        sweep_dir.mkdir(parents=True, exist_ok=True)
        (sweep_dir / PARENT_RUN_FILE).write_text(json.dumps(marker))
        atexit.register(end_parent_run, sweep_dir, "FAILED")

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        """Write the sweep's parent run and its children, FINISHED."""
        if config.tracking.enabled:
            atexit.unregister(end_parent_run)
            end_parent_run(Path(config.hydra.sweep.dir), "FINISHED")


def end_parent_run(sweep_dir: Path, status: str) -> str | None:
    """Write the sweep's parent run with ``status`` (FINISHED, or FAILED when the multirun stops early),
    its children and their summary table; return the parent's run id (None when the sweep stopped before
    any job recorded a run, see :func:`res_repro.tracking.store.write_sweep`)."""
    from res_repro.tracking.store import write_sweep

    marker = json.loads((sweep_dir / PARENT_RUN_FILE).read_text())
    return write_sweep(marker, status)
