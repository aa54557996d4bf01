"""Damaged state: each store (episodes, lineages, responses, the MLflow database) says which file is
damaged in one line, moves it aside as ``<name>.corrupt-<timestamp>``, rebuilds it, and keeps the rest; a
lineage manifest edited by hand is refused."""

from __future__ import annotations

import json
import logging
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path
from unittest.mock import patch

import mlflow
import pytest
from cli_runs import ONE_LEVEL, table1_command
from episode_records import episode_record
from test_lineage_store import _scale
from test_response_cache import _response

from res_repro.agents.response_cache import DATABASE, ResponseCache
from res_repro.env.errors import TaskFormatError
from res_repro.evaluation.store import EpisodeStore
from res_repro.res.lineage import MANIFEST, LineageStore
from res_repro.storage import CORRUPT
from res_repro.tracking import pending_dir, tracked_run
from res_repro.tracking.processes import process_identity


def _quarantined(folder: Path, name: str) -> list[Path]:
    return sorted(folder.glob(f"{name}{CORRUPT}*"))


def _warned(caplog: pytest.LogCaptureFixture, path: Path) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and str(path) in r.getMessage()
    ]


@pytest.mark.parametrize("damage", ["empty", "truncated", "not a record"])
def test_a_damaged_episode_record_is_moved_aside_and_run_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: str
) -> None:
    store = EpisodeStore(tmp_path)
    kept, damaged = episode_record("a"), episode_record("b")
    kept.episode_id, damaged.episode_id = "aa" * 12, "bb" * 12
    store.put(kept)
    store.put(damaged)
    path = next(tmp_path.glob(f"*/{damaged.episode_id}.json"))
    text = path.read_text()
    path.write_text({"empty": "", "truncated": text[: len(text) // 2], "not a record": "[1, 2]"}[damage])
    assert store.get(damaged.episode_id) is None  # a miss: the episode runs again
    [aside] = _quarantined(path.parent, path.name)
    assert len(_warned(caplog, path)) == 1 and "damaged" in _warned(caplog, path)[0]
    store.put(damaged)  # the rerun's record
    assert store.get(damaged.episode_id) == damaged
    assert store.get(kept.episode_id) == kept and aside.exists()


@pytest.mark.parametrize("tamper", ["an edited score", "another episode's record"])
def test_an_edited_or_swapped_episode_record_is_refused_and_run_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, tamper: str
) -> None:
    store = EpisodeStore(tmp_path)
    mine, other = episode_record("a", score=0.2, passed=False), episode_record("a", score=1.0)
    mine.episode_id, other.episode_id = "aa" * 12, "cc" * 12
    store.put(mine)
    store.put(other)
    path = next(tmp_path.glob(f"*/{mine.episode_id}.json"))
    if tamper == "an edited score":
        path.write_text(path.read_text().replace('"score": 0.2', '"score": 1.0'))
    else:
        path.write_text(next(tmp_path.glob(f"*/{other.episode_id}.json")).read_text())
    assert store.get(mine.episode_id) is None  # not reused: the episode runs again
    assert _quarantined(path.parent, path.name) and len(_warned(caplog, path)) == 1
    assert store.get(other.episode_id) == other


def test_a_truncated_manifest_moves_its_node_aside_and_a_rerun_rebuilds_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = _scale(tmp_path, depth_cap=2)
    damaged, other = first.nodes[1], first.nodes[2]
    stamp = (other.path / MANIFEST).stat().st_mtime_ns
    text = (damaged.path / MANIFEST).read_text()
    (damaged.path / MANIFEST).write_text(text[: len(text) // 3])
    again = _scale(tmp_path, depth_cap=2)
    assert [n.manifest.node_id for n in again.nodes] == [n.manifest.node_id for n in first.nodes]
    assert _quarantined(damaged.path.parent, damaged.path.name)  # kept aside, not read again
    assert len(_warned(caplog, damaged.path)) == 1
    assert (other.path / MANIFEST).stat().st_mtime_ns == stamp  # nothing else rewritten
    listed = LineageStore(tmp_path / "lineages").nodes(damaged.manifest.seed_task_id)
    assert len(listed) == len(first.nodes)


def test_a_node_folder_without_its_manifest_is_moved_aside_and_rebuilt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = _scale(tmp_path, depth_cap=1)
    node = first.last
    (node.path / MANIFEST).unlink()  # as a copy cut short, or a hand's rm, leaves it
    again = _scale(tmp_path, depth_cap=1)
    assert again.last.manifest.node_id == node.manifest.node_id and (node.path / MANIFEST).is_file()
    assert _quarantined(node.path.parent, node.path.name) and len(_warned(caplog, node.path)) == 1


def test_a_manifest_without_an_identity_hash_is_rebuilt(tmp_path: Path) -> None:
    first = _scale(tmp_path, depth_cap=1)
    node = first.last
    data = json.loads((node.path / MANIFEST).read_text())
    del data["identity_hash"]
    (node.path / MANIFEST).write_text(json.dumps(data))
    again = _scale(tmp_path, depth_cap=1)
    assert again.last.manifest.node_id == node.manifest.node_id
    assert "identity_hash" in json.loads((node.path / MANIFEST).read_text())
    assert _quarantined(node.path.parent, node.path.name)


@pytest.mark.parametrize(("field", "value"), [("depth", 7), ("parent_id", "0" * 16), ("applications", [])])
def test_a_manifest_edited_by_hand_is_refused(tmp_path: Path, field: str, value: object) -> None:
    result = _scale(tmp_path, depth_cap=1)
    node = result.last
    data = json.loads((node.path / MANIFEST).read_text())
    assert data[field] != value
    data[field] = value
    (node.path / MANIFEST).write_text(json.dumps(data))
    with pytest.raises(TaskFormatError) as info:
        LineageStore(tmp_path / "lineages").load(node.manifest.seed_task_id, node.manifest.node_id)
    assert "manifest.json: field 'identity_hash'" in str(info.value) and "edited by hand" in str(info.value)


@pytest.mark.parametrize("damage", ["not a database", "truncated"])
def test_a_damaged_response_cache_is_moved_aside_and_started_afresh(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: str
) -> None:
    cache = ResponseCache(tmp_path)
    for i in range(300):
        cache.put(f"k{i}", _response(i))
    cache._connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    cache._connection.close()
    database = tmp_path / DATABASE
    data = database.read_bytes()
    database.write_bytes(
        b"this is not sqlite" * 100 if damage == "not a database" else data[: len(data) // 2]
    )
    reopened = ResponseCache(tmp_path)
    assert all(reopened.get(f"k{i}") in (None, _response(i)) for i in range(300))  # a miss, never a crash
    assert _quarantined(tmp_path, DATABASE) and len(_warned(caplog, database)) == 1
    reopened.put("new", _response(1))
    assert reopened.get("new") == _response(1) and reopened.count() == 1


def test_a_damaged_mlflow_database_is_moved_aside_and_the_run_is_recorded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    database = tmp_path / "mlflow.db"
    database.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)  # a header, then garbage
    uri = f"sqlite:///{database}"
    with tracked_run(
        enabled=True,
        uri=uri,
        experiment="e",
        run_name="r",
        params={"a": 1},
        tags={},
        artifact_root=str(tmp_path / "a"),
    ) as tracker:
        tracker.log_metrics({"m": 1.0})
    assert _quarantined(tmp_path, "mlflow.db") and len(_warned(caplog, database)) == 1
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    [run] = client.search_runs([client.get_experiment_by_name("e").experiment_id])
    assert run.data.metrics["m"] == 1.0


def _tracked(tmp_path: Path, metric: float) -> str:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    with tracked_run(
        enabled=True,
        uri=uri,
        experiment="e",
        run_name="r",
        params={},
        tags={},
        artifact_root=str(tmp_path / "a"),
    ) as tracker:
        tracker.log_metrics({"m": metric})
    return uri


def _metrics(uri: str) -> list[float]:
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    return sorted(
        r.data.metrics["m"] for r in client.search_runs([client.get_experiment_by_name("e").experiment_id])
    )


@pytest.mark.parametrize("wrong", ["a folder", "another program's database"])
def test_an_mlflow_database_that_is_not_one_is_moved_aside_and_the_run_is_recorded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, wrong: str
) -> None:
    database = tmp_path / "mlflow.db"
    if wrong == "a folder":
        database.mkdir()
    else:
        with closing(sqlite3.connect(database)) as connection:
            connection.execute("CREATE TABLE experiments (x)")  # a name MLflow's migration collides with
            connection.commit()
    assert _metrics(_tracked(tmp_path, 1.0)) == [1.0]
    assert _quarantined(tmp_path, "mlflow.db") and len(_warned(caplog, database)) == 1


def test_garbage_among_the_pending_records_is_moved_aside_and_the_rest_written(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pending = pending_dir(f"sqlite:///{tmp_path / 'mlflow.db'}", None)
    pending.mkdir(parents=True)
    (pending / "garbage.json").write_text("not a record")
    (pending / "other.json").write_text(json.dumps({"record_id": "x"}))  # a record of another shape
    assert _metrics(_tracked(tmp_path, 2.0)) == [2.0]
    assert len(_quarantined(pending, "garbage.json")) == len(_quarantined(pending, "other.json")) == 1
    assert len(_warned(caplog, pending / "garbage.json")) == 1


def test_a_record_claimed_by_a_writer_that_died_is_written_by_the_next_run(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    with (
        patch("res_repro.tracking.store._write_alone", side_effect=KeyboardInterrupt),
        pytest.raises(KeyboardInterrupt),
    ):
        _tracked(tmp_path, 3.0)  # claimed, then the writer stops before writing it
    [claimed] = pending_dir(uri, None).glob("*.claimed")
    writer = subprocess.Popen(["sleep", "30"])  # stands for the writer: its identity, then its end
    identity = process_identity(writer.pid)
    writer.kill()
    writer.wait()
    record_id, _, claim = claimed.name.removesuffix(".claimed").partition(".")
    host = claim.rpartition("~")[0]
    claimed.rename(claimed.with_name(f"{record_id}.{host}~{identity.replace(':', '-')}.claimed"))
    assert _metrics(_tracked(tmp_path, 4.0)) == [3.0, 4.0]


@pytest.mark.slow
def test_a_rerun_over_damaged_state_recovers_and_names_each_file(tmp_path: Path) -> None:
    command = table1_command(
        tmp_path, "benchmark=claw_bundled", "benchmark.limit=2", *ONE_LEVEL, "agents=[oracle,nop]"
    )
    first = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    record = sorted((tmp_path / ".cache" / "episodes").glob("*/*.json"))[0]
    record.write_text(record.read_text()[:40])
    manifest = sorted((tmp_path / ".cache" / "lineages").glob(f"*/*/{MANIFEST}"))[-1]
    manifest.write_text("")
    (tmp_path / "mlflow.db").write_bytes(b"not a database" * 300)
    second = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0 and "Traceback" not in second.stderr, second.stderr
    printed = (second.stdout + second.stderr).splitlines()  # Hydra's log handler writes to stdout
    for damaged in (record, manifest.parent, tmp_path / "mlflow.db"):
        named = [line for line in printed if f"{damaged}: " in line]
        assert len(named) == 1 and "moved aside" in named[0], second.stdout + second.stderr
    table = [line for line in first.stdout.splitlines() if line.startswith("| oracle")]
    assert table == [line for line in second.stdout.splitlines() if line.startswith("| oracle")]
    client = mlflow.tracking.MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    assert len(client.search_runs([client.get_experiment_by_name("table1").experiment_id])) == 1
