"""Lineage building on a real two-node Ray cluster on this machine: a head and a second node started with
``ray start`` (one CPU each; only the second offers the custom resource ``far``).

- Seeds whose tasks reserve ``far`` (``executor.task_resources``) are all scaled on the second node, and
  their lineages equal those built locally (the same node ids and manifests).
- Bad input a seed's task meets on a node (an API key exported on the driver only) ends the run with one
  line.
- A node that does not mount the lineage store says so in one line.
- A run spread over both nodes whose second node dies (its raylet and the worker scaling a seed killed,
  the seed's lineage part-stored) finishes on the head with the same lineages: Ray reruns the seed's task,
  which resumes from the nodes already stored and leaves them as they were.

The test's cluster is stopped at teardown: every process of it is killed by its id (found by a marker in
its environment or a file it holds under the cluster's temp folder), never by name, since other Ray
instances may run on the machine.
"""

from __future__ import annotations

import contextlib
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
from hydra_config import compose_config

from res_repro.errors import UserInputError
from res_repro.pipelines.lineages import configured_tasks, make_scaler
from res_repro.pipelines.ray_lineages import scale_seed, shippable_config
from res_repro.simulation.process import task_spec

CHECKOUT = Path(__file__).resolve().parents[1]
RAY = str(Path(sys.executable).with_name("ray"))
SEEDS = 4
DEPTH_CAP = 4
SCALE = (
    "experiment=table_a2",
    f"benchmark.limit={SEEDS}",
    f"scaling.depth_cap={DEPTH_CAP}",
    "scaling.target=oracle",  # never gives up: every lineage grows to the depth cap, a long enough run
    "tracking=none",
    "show_progress=false",
)
MARKER = "RES_REPRO_RAY_TEST"  # in the environment of every process of a test's cluster: <id>-<node>
FAR = "far"  # the second node's name and its custom resource
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY")  # conf/models/api.yaml's, never on nodes

Stamp = tuple[int, int]  # a file's inode and modification time (ns)


@dataclass(frozen=True)
class Cluster:
    """A running two-node cluster: its address, the environment its processes share, the marker its
    processes carry and its temp folder."""

    address: str
    env: dict[str, str]
    marker: str
    temp: str

    def processes(self) -> dict[int, str]:
        """pid -> node name (``head``, ``far`` or ``""`` for a process that carries no marker) of every
        process of the cluster."""
        found = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                node = self._node(entry)
            except OSError:
                continue
            if node is not None:
                found[int(entry.name)] = node
        return found

    def _node(self, entry: Path) -> str | None:
        prefix = f"{MARKER}={self.marker}-".encode()
        for variable in (entry / "environ").read_bytes().split(b"\0"):
            if variable.startswith(prefix):
                return variable[len(prefix) :].decode()
        # Ray's agents get an environment of their own, but keep their logs in the temp folder
        return "" if any(os.readlink(fd).startswith(self.temp) for fd in (entry / "fd").iterdir()) else None

    def raylet(self, node: str) -> int:
        """The pid of ``node``'s raylet."""
        [pid] = [
            pid
            for pid, name in self.processes().items()
            if name == node and Path(f"/proc/{pid}/comm").read_text().strip() == "raylet"
        ]
        return pid


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _kill_all(cluster: Cluster) -> None:
    for _ in range(3):  # raylets restart nothing once killed; agents may outlive them a moment
        for pid in cluster.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A head and a second node offering ``far``, each with one CPU and a small object store; their workers
    import this checkout; every process of theirs is killed at teardown."""
    marker = uuid.uuid4().hex
    temp = tempfile.mkdtemp(prefix="res-ray-")  # short: Ray's socket paths live under it
    env = {key: value for key, value in os.environ.items() if key not in KEYS}
    env.update(PYTHONPATH=str(CHECKOUT), RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")
    port = _free_port()
    common = [
        "--node-ip-address=127.0.0.1",
        "--num-cpus=1",
        "--object-store-memory=78643200",
        "--disable-usage-stats",
    ]
    nodes = {
        "head": ["--head", f"--port={port}", "--include-dashboard=false", f"--temp-dir={temp}"],
        FAR: [f"--address=127.0.0.1:{port}", json.dumps({FAR: 1}).join(("--resources=", ""))],
    }
    cluster = Cluster(f"127.0.0.1:{port}", env, marker, temp)
    try:
        for node, options in nodes.items():
            command = [RAY, "start", *options, *common]
            started = subprocess.run(
                command, env={**env, MARKER: f"{marker}-{node}"}, capture_output=True, text=True, timeout=180
            )
            assert started.returncode == 0, started.stdout + started.stderr
        yield cluster
    finally:
        _kill_all(cluster)
        subprocess.run(["rm", "-rf", temp], check=False)


@dataclass
class Run:
    """A run of the harness in a child process; its output goes to a file, so a test that watches the
    run while it goes never blocks it on a full pipe."""

    process: subprocess.Popen[bytes]
    log: Path

    def poll(self) -> int | None:
        """The exit status, or None while it runs."""
        return self.process.poll()

    def finish(self, timeout: float = 600) -> tuple[int, str]:
        """Wait for the run; its exit status and output."""
        status = self.process.wait(timeout=timeout)
        return status, self.log.read_text()

    def kill(self) -> None:
        """Stop the run (a test that failed while watching it)."""
        self.process.kill()
        self.process.wait()


def _run(root: Path, *overrides: str, env: dict[str, str] | None = None) -> Run:
    command = [sys.executable, "-m", "res_repro", *SCALE, f"paths.root_dir={root}", *overrides]
    log = root.with_name(f"{root.name}.log")
    with log.open("wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
    return Run(process, log)


def _on_ray(cluster: Cluster, *overrides: str) -> tuple[str, ...]:
    return ("executor=ray", f"executor.address={cluster.address}", "workers=2", *overrides)


def _finished(run: Run) -> str:
    status, out = run.finish()
    assert status == 0, out
    return out


def _manifests(root: Path, seed: str = "*") -> dict[str, dict]:
    """Every node manifest of ``seed`` (all seeds: ``*``) in ``root``'s lineage store, by path, without
    the proposer's wall time."""
    found = {}
    for path in sorted((root / ".cache" / "lineages").glob(f"{seed}/*/manifest.json")):
        manifest = json.loads(path.read_text())
        manifest["proposer"].pop("seconds", None)
        found[str(path.relative_to(root))] = manifest
    return found


def _stamps(root: Path, paths: list[str]) -> dict[str, Stamp]:
    return {path: ((root / path).stat().st_ino, (root / path).stat().st_mtime_ns) for path in paths}


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """The lineages built locally (the thread pool), every seed grown to the depth cap."""
    local = tmp_path_factory.mktemp("local")
    _finished(_run(local))
    manifests = _manifests(local)
    assert len(manifests) == SEEDS * (DEPTH_CAP + 1)
    return manifests


def _scaling(cluster: Cluster, raylets: dict[int, str]) -> dict[int, tuple[str, str]]:
    """Worker pid -> (node, seed task id) of the seeds' tasks running now (named ``scale <seed>``)."""
    found = {}
    for entry in Path("/proc").iterdir():
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if parent in raylets:
                title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().split()
                if title[:1] == ["ray::scale"] and len(title) == 2:
                    found[int(entry.name)] = (raylets[parent], title[1])
        except (OSError, ValueError, IndexError):
            continue
    return found


@pytest.mark.slow
def test_seeds_reserving_a_resource_only_the_second_node_offers_are_scaled_there_as_locally(
    tmp_path: Path, cluster: Cluster, expected: dict[str, dict]
) -> None:
    raylets = {cluster.raylet(node): node for node in ("head", FAR)}
    run = _run(tmp_path, *_on_ray(cluster, f"+executor.task_resources.{FAR}=1"), env=cluster.env)
    seen: set[tuple[str, str]] = set()
    while run.poll() is None:
        seen |= set(_scaling(cluster, raylets).values())
        time.sleep(0.02)
    _finished(run)
    assert _manifests(tmp_path) == expected
    seeds = {path.split("/")[2] for path in expected}
    assert seen == {(FAR, seed) for seed in seeds}


@pytest.mark.slow
def test_a_key_exported_on_the_driver_only_ends_the_run_with_one_line(
    tmp_path: Path, cluster: Cluster
) -> None:
    driver = {**cluster.env, **dict.fromkeys(KEYS, "sk-driver-only")}
    run = _run(tmp_path, *_on_ray(cluster, "models=api", "scaling.target=gpt_5_6_sol"), env=driver)
    status, out = run.finish(timeout=300)
    assert status == 2, out
    assert out.strip().splitlines()[-1] == (
        "error: agents: API keys missing from the environment: OPENAI_API_KEY (gpt_5_6_sol) (on a Ray worker)"
    )
    assert "Traceback" not in out


def _kill_second_node_mid_seed(
    cluster: Cluster, root: Path, expected: dict[str, dict], run: Run
) -> dict[str, Stamp]:
    """Once the second node scales a seed with some but not all of its nodes stored whole (its target
    attempts recorded), kill that node: its raylet and the worker (stopped first, so it stores nothing
    more). Returns the stamps of the seed's nodes that were stored whole."""
    raylet = cluster.raylet(FAR)
    deadline = time.monotonic() + 300
    while run.poll() is None and time.monotonic() < deadline:
        for pid, (_, seed) in _scaling(cluster, {raylet: FAR}).items():
            os.kill(pid, signal.SIGSTOP)
            stored = _manifests(root, seed)
            whole = [path for path, manifest in stored.items() if manifest == expected[path]]
            if 2 <= len(whole) < DEPTH_CAP + 1:
                os.kill(raylet, signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
                return _stamps(root, whole)
            os.kill(pid, signal.SIGCONT)
        time.sleep(0.02)
    pytest.fail("no seed was caught part-scaled on the second node: the test proves nothing")


@pytest.mark.slow
def test_a_run_whose_second_node_dies_mid_seed_finishes_on_the_head_with_the_same_lineages(
    tmp_path: Path, cluster: Cluster, expected: dict[str, dict]
) -> None:
    run = _run(tmp_path, *_on_ray(cluster), env=cluster.env)  # one seed on each node's CPU
    try:
        kept = _kill_second_node_mid_seed(cluster, tmp_path, expected, run)
    except BaseException:
        run.kill()
        raise
    _finished(run)
    assert _manifests(tmp_path) == expected
    assert _stamps(tmp_path, list(kept)) == kept  # resumed from them, not rebuilt or rewritten


def test_a_node_that_does_not_mount_the_lineage_store_says_so(tmp_path: Path) -> None:
    cfg = compose_config("benchmark=claw_bundled", "benchmark.limit=1", root=tmp_path, output_dir=tmp_path)
    [task] = configured_tasks(cfg)
    with pytest.raises(
        UserInputError, match=r"^paths.cache_dir: the lineage store .* is not on this Ray node"
    ):
        scale_seed(make_scaler, shippable_config(cfg), task_spec(task), {}, 1)  # as a task runs it
