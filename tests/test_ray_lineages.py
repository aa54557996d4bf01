"""Lineage building on a real two-node Ray cluster on this machine: a head and a second node started with
``ray start`` (one CPU each), the seeds' lineages built as Ray tasks across both, equal to those built
locally (the same node ids and manifests); and a run whose second node's raylet is killed while it scales
a seed finishes on the head with the same lineages (Ray reruns the seed's task, which resumes from the
nodes already stored)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]
RAY = str(Path(sys.executable).with_name("ray"))
SCALE = (
    "experiment=table_a2",
    "benchmark.limit=4",
    "scaling.depth_cap=3",
    "tracking=none",
    "show_progress=false",
)
MARKER = "RES_REPRO_RAY_TEST"  # every process of a test's cluster inherits it, so teardown finds them all


@dataclass(frozen=True)
class Cluster:
    """A running two-node cluster: its address and the environment its processes share."""

    address: str
    env: dict[str, str]
    marker: str
    temp: str


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _ours(entry: Path, marker: str, temp: str) -> bool:
    """Whether the process at ``entry`` belongs to the test's cluster: it carries the marker in its
    environment, or holds a file under the cluster's temp folder (Ray's agents get an environment of
    their own, but keep their logs there)."""
    if f"{MARKER}={marker}".encode() in (entry / "environ").read_bytes().split(b"\0"):
        return True
    return any(os.readlink(fd).startswith(temp) for fd in (entry / "fd").iterdir())


def _processes(marker: str, temp: str) -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of the processes of the test's cluster."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if not _ours(entry, marker, temp):
                continue
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            found[int(entry.name)] = (parent, (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except (OSError, ValueError, IndexError):
            continue
    return found


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    """A head and a second node, each with one CPU and a small object store, stopped (every process of
    theirs killed) at teardown."""
    marker = uuid.uuid4().hex
    temp = tempfile.mkdtemp(prefix="res-ray-")  # short: Ray's socket paths live under it
    env = {
        **os.environ,
        MARKER: marker,
        "PYTHONPATH": str(CHECKOUT),
        "RAY_AUTH_MODE": "disabled",
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    port = _free_port()
    common = [
        "--node-ip-address=127.0.0.1",
        "--num-cpus=1",
        "--object-store-memory=78643200",
        "--disable-usage-stats",
    ]
    try:
        for command in (
            [
                RAY,
                "start",
                "--head",
                f"--port={port}",
                "--include-dashboard=false",
                f"--temp-dir={temp}",
                *common,
            ],
            [RAY, "start", f"--address=127.0.0.1:{port}", *common],
        ):
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)
            assert done.returncode == 0, done.stdout + done.stderr
        yield Cluster(f"127.0.0.1:{port}", env, marker, temp)
    finally:
        for _ in range(3):  # raylets restart nothing once killed; agents may outlive them a moment
            for pid in _processes(marker, temp):
                os.kill(pid, signal.SIGKILL)
            time.sleep(0.5)
        subprocess.run(["rm", "-rf", temp], check=False)


def _run(root: Path, *overrides: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "res_repro", *SCALE, f"paths.root_dir={root}", *overrides]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _lineages(root: Path) -> dict[str, dict]:
    """Every node manifest under ``root``'s lineage store, by path, without the proposer's wall time."""
    found = {}
    for path in sorted((root / ".cache" / "lineages").glob("*/*/manifest.json")):
        manifest = json.loads(path.read_text())
        manifest["proposer"].pop("seconds", None)
        found[str(path.relative_to(root))] = manifest
    return found


def _finished(process: subprocess.Popen[str]) -> str:
    out, _ = process.communicate(timeout=600)
    assert process.returncode == 0, out
    return out


@pytest.mark.slow
def test_lineages_built_across_two_nodes_equal_local_ones_and_survive_losing_a_node(
    tmp_path, cluster
) -> None:
    local = tmp_path / "local"
    _finished(_run(local))
    expected = _lineages(local)
    assert len(expected) > 4  # every seed grew children

    on_ray = ("executor=ray", f"executor.address={cluster.address}", "workers=2")
    _finished(_run(tmp_path / "cluster", *on_ray, env=cluster.env))
    assert _lineages(tmp_path / "cluster") == expected

    killed = tmp_path / "killed"
    run = _run(killed, *on_ray, env=cluster.env)
    deadline = time.monotonic() + 300
    second_raylet = None
    while time.monotonic() < deadline and run.poll() is None:
        processes = _processes(cluster.marker, cluster.temp)
        raylets = [
            pid for pid, (_, line) in processes.items() if "raylet" in line and "sockets/raylet.1" in line
        ]
        scaling_there = [
            pid for pid, (parent, line) in processes.items() if "_scale_seed" in line and parent in raylets
        ]
        if raylets and scaling_there and list((killed / ".cache").glob("lineages/*/*/manifest.json")):
            second_raylet = raylets[0]
            break  # a seed is being scaled on the second node, and some nodes are stored
        time.sleep(0.05)
    assert second_raylet is not None, "no seed was scaled on the second node: the test proves nothing"
    os.kill(second_raylet, signal.SIGKILL)
    _finished(run)
    assert _lineages(killed) == expected
