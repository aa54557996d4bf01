"""Environment setup as a share of a scripted episode's time, per bundled suite.

Run as ``python benchmarks/bench_setup.py [--repeat N] [--tasks K]``. For the first K tasks of each suite,
setup is opening and closing a fresh environment with every start and stop an episode pays: the
sandbox, the workspace copy, the services, and the sandbox's persistent shell, which starts on an
agent's first command (one ``true`` through it here) and stops with the sandbox, its cgroup emptied.
The baseline is a whole scripted episode of the expert explorer (setup, acting, grading,
close). The figure is the median over tasks of (median setup) / (median episode), target at most 5%.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from verdicts import at_most, share_percent

from res_repro.agents import build_agents
from res_repro.benchmarks.registry import load_benchmark
from res_repro.env.formats import open_environment
from res_repro.env.task import Task
from res_repro.evaluation.episode import run_episode

TARGET_PERCENT = 5.0
AGENT = "explorer-expert"
SUITES = ("terminal_bundled", "workspace_bundled", "claw_bundled")


def setup_seconds(task: Task, repeat: int) -> float:
    """Median seconds to open the task's environment, start its sandbox's shell, and close it all."""
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        with open_environment(task, backend="local") as env:
            sandbox = getattr(env, "sandbox", None)
            if sandbox is not None:
                sandbox.shell().run("true", 30)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def episode_seconds(task: Task, repeat: int) -> float:
    """Median seconds of a whole scripted episode on the task."""
    agent = build_agents([AGENT])[AGENT]
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        run_episode(task, agent, backend="local", episode_id="bench")
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> None:
    """Print setup and episode medians and the setup share per suite beside the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=4)
    args = parser.parse_args(argv)
    print(
        f"medians of {args.repeat} runs on each of the first {args.tasks} tasks per suite; "
        f"baseline: a whole {AGENT} episode"
    )
    print(f"{'suite':<18} {'setup':>9} {'episode':>10} {'share':>7}   target")
    with tempfile.TemporaryDirectory() as tmp:
        for suite in SUITES:
            tasks = load_benchmark(suite, {"limit": args.tasks}, generated_dir=Path(tmp) / "generated")
            setups = [setup_seconds(task, args.repeat) for task in tasks]
            episodes = [episode_seconds(task, args.repeat) for task in tasks]
            share = share_percent(setups, episodes)
            print(
                f"{suite:<18} {1000 * statistics.median(setups):>7.1f}ms"
                f" {1000 * statistics.median(episodes):>8.1f}ms {share:>6.1f}%"
                f"   <= {TARGET_PERCENT:g}%: {at_most(share, TARGET_PERCENT)}"
            )


if __name__ == "__main__":
    main()
