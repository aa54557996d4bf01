"""kill -9 in the middle of a run, then the same command again: nothing finished is lost or redone,
and the table equals an uninterrupted run's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ARGS = (
    "experiment=table1",
    "benchmark=claw_bundled",
    "benchmark.limit=6",
    "scaling.depth_cap=2",
    "scaling.target=null",
    "agents=[oracle,nop]",
    "workers=2",
    "show_progress=false",
    "tracking=none",
)


def _command(root: Path) -> list[str]:
    return [sys.executable, "-m", "res_repro", *ARGS, f"paths.root_dir={root}"]


def _table(root: Path) -> str:
    [csv] = sorted(root.glob("runs/table1/runs/*/table1.csv"))[-1:]
    return csv.read_text()


def _stored(root: Path) -> set[Path]:
    return set((root / ".cache" / "episodes").rglob("*.json")) | set(
        (root / ".cache" / "lineages").rglob("manifest.json")
    )


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


def _sandbox_mounts() -> int:
    """Workspace tmpfs mounts of local sandboxes on this host (each live sandbox has one, as root)."""
    return Path("/proc/self/mounts").read_text().count("res-sandbox ")


def test_sigterm_closes_every_sandbox_and_leaves_no_process(tmp_path):
    mounts_before = _sandbox_mounts()
    command = [
        sys.executable,
        "-m",
        "res_repro",
        "experiment=table1",
        "benchmark=terminal_bundled",
        "scaling.depth_cap=1",
        "scaling.target=null",
        "agents=[explorer-expert]",
        "workers=2",
        "show_progress=false",
        "tracking=none",
        f"paths.root_dir={tmp_path}",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    episodes = tmp_path / ".cache" / "episodes"
    while time.monotonic() < deadline and process.poll() is None:
        if episodes.is_dir() and any(episodes.rglob("*.json")):
            break
        time.sleep(0.05)
    assert process.poll() is None, "the run finished before it could be stopped; make it longer"
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=120) == 128 + signal.SIGTERM
    leftover = subprocess.run(["pgrep", "-f", f"paths.root_dir={tmp_path}"], capture_output=True, text=True)
    assert leftover.stdout.strip() == ""
    assert _sandbox_mounts() == mounts_before
