"""kill -9 in the middle of a run, then the same command again: nothing finished is lost or redone,
and the table equals an uninterrupted run's."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_runs import ONE_LEVEL, table1_command

ARGS = (
    "benchmark=claw_bundled",
    "benchmark.limit=6",
    "scaling.depth_cap=2",
    "scaling.target=null",
    "agents=[oracle,nop]",
    "workers=2",
    "tracking=none",
)


def _command(root: Path) -> list[str]:
    return table1_command(root, *ARGS)


def _table(root: Path) -> str:
    [csv] = sorted(root.glob("runs/table1/runs/*/table1.csv"))[-1:]
    return csv.read_text()


def _files(top: Path, keep: Callable[[str], bool]) -> set[Path]:
    """Files under ``top`` whose name ``keep`` accepts; os.walk skips a folder the running command
    removes while it is read (a lineage's staging folder), which Path.rglob raises on."""
    return {Path(folder, name) for folder, _, names in os.walk(top) for name in names if keep(name)}


def _stored(root: Path) -> set[Path]:
    return _files(root / ".cache" / "episodes", lambda name: name.endswith(".json")) | _files(
        root / ".cache" / "lineages", lambda name: name == "manifest.json"
    )


@pytest.mark.slow
def test_kill_9_then_rerun_loses_and_redoes_nothing(tmp_path):
    clean, crashed = tmp_path / "clean", tmp_path / "crashed"
    subprocess.run(_command(clean), check=True, capture_output=True, timeout=600)

    process = subprocess.Popen(
        _command(crashed), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 300
    while len(_stored(crashed)) < 8 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    assert process.poll() is None, "the run finished before it could be killed; make it longer"
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    before = {path: path.stat().st_mtime_ns for path in _stored(crashed)}
    assert before

    rerun = subprocess.run(_command(crashed), capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr
    after = {path: path.stat().st_mtime_ns for path in _stored(crashed)}
    assert all(after.get(path) == stamp for path, stamp in before.items())  # nothing lost, nothing redone
    assert _table(crashed) == _table(clean)


def _mounts_under(folder: Path) -> list[str]:
    """Mount points at or below ``folder`` (a live local sandbox run as root has its workspace tmpfs
    there); other runs' sandboxes on this host do not count."""
    prefix = str(folder.resolve())
    points = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = line.split()[4].replace("\\040", " ")  # the 5th field; spaces are escaped as \040
        if point == prefix or point.startswith(prefix + "/"):
            points.append(point)
    return points


def _processes_naming(*texts: str, within: float = 60.0) -> list[str]:
    """Command lines of processes that name any of ``texts`` (this run's own: its root folder, its
    sandboxes' folders), polled until there are none or ``within`` seconds have passed."""
    deadline = time.monotonic() + within
    while True:
        found = [
            line
            for text in texts
            for line in subprocess.run(
                ["pgrep", "-a", "-f", text], capture_output=True, text=True
            ).stdout.splitlines()
        ]
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


@pytest.mark.slow
def test_sigterm_closes_every_sandbox_and_leaves_no_process(tmp_path):
    sandboxes = tmp_path / "sandboxes"  # the run's temporary folders, so its sandboxes live here
    sandboxes.mkdir()
    command = table1_command(
        tmp_path,
        "benchmark=terminal_bundled",
        *ONE_LEVEL,
        "agents=[explorer-expert]",
        "workers=2",
        "tracking=none",
    )
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TMPDIR": str(sandboxes)},
    )
    deadline = time.monotonic() + 120
    episodes = tmp_path / ".cache" / "episodes"
    while time.monotonic() < deadline and process.poll() is None:
        # stop it once it has stored an episode and has a sandbox open (which shows they live here)
        if episodes.is_dir() and any(episodes.rglob("*.json")) and any(sandboxes.glob("res-sandbox-*")):
            break
        time.sleep(0.05)
    assert process.poll() is None, "the run finished before it could be stopped; make it longer"
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=120) == 128 + signal.SIGTERM
    assert _processes_naming(f"paths.root_dir={tmp_path}", str(sandboxes)) == []
    assert _mounts_under(sandboxes) == []
    assert list(sandboxes.glob("res-sandbox-*")) == []  # every sandbox's folders were removed too


@pytest.mark.slow
def test_ctrl_c_ends_a_run_with_one_line_saying_finished_work_is_kept(tmp_path) -> None:
    import signal
    import subprocess

    from cli_runs import table1_command

    from res_repro.app import INTERRUPTED

    command = table1_command(tmp_path, "benchmark=claw_bundled", "tracking=none")
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert run.stdout is not None
    for line in run.stdout:  # the protocol lines are printed before any work
        if line.startswith("deviations from the paper"):
            break
    time.sleep(3)  # inside scaling
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == INTERRUPTED


def test_a_full_disk_ends_a_run_with_one_line_saying_finished_work_is_kept(tmp_path, capsys) -> None:
    import errno
    from unittest.mock import patch

    from cli_runs import ONE_LEVEL, run_in_process

    from res_repro.app import FINISHED_WORK_KEPT

    def full(path, data, **_):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    argv = [
        "experiment=table1",
        "benchmark=claw_bundled",
        "benchmark.limit=1",
        *ONE_LEVEL,
        "agents=[oracle]",
        f"paths.root_dir={tmp_path}",
        "tracking=none",
        "show_progress=false",
    ]
    with patch("res_repro.evaluation.store.write_json_atomic", full):
        status, _, err = run_in_process(argv, capsys)
    last = err.strip().splitlines()[-1]
    assert status == 1 and "Traceback" not in err, err
    assert last.startswith("error: the disk is full writing ") and last.endswith(FINISHED_WORK_KEPT), last
