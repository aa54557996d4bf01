"""Environment setup as a share of a scripted episode's time, per bundled suite, with and without the
pool of warm sandboxes.

Run as ``python benchmarks/bench_setup.py [--repeat N] [--tasks K]``. Each round runs the expert
explorer's episodes on the first K tasks of a suite back to back, as a run does, twice: without the pool
(the baseline) and inside one :func:`~res_repro.sandbox.warm.warm_sandboxes` block (whose first episode
finds it empty, as a run's does, and whose replacements start while the next episodes run, so a pool that
cannot keep up shows). Setup is what an episode waits for on its path: opening its environment (taking
or starting the sandbox, the workspace copy, the services), the sandbox shell's readiness (one ``true``
through it before the agent acts), closing it all, and any other sandbox started or closed during the
episode (a separate verifier's). The figure is the median over episodes of setup / the episode's wall
time, target at most 5%.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verdicts import at_most, share_percent

from res_repro.agents import build_agents
from res_repro.benchmarks.registry import load_benchmark
from res_repro.env.environment import Environment
from res_repro.env.task import Task
from res_repro.evaluation import episode
from res_repro.evaluation.runner import WARM_SANDBOXES_PER_WORKER
from res_repro.sandbox.local import LocalSandbox
from res_repro.sandbox.warm import WarmPool, warm_sandboxes

TARGET_PERCENT = 5.0
AGENT = "explorer-expert"
SUITES = ("terminal_bundled", "workspace_bundled", "claw_bundled")
SHELL_TIMEOUT_S = 30.0


@dataclass
class SetupMeter:
    """Seconds of setup on the episode's path so far; ``inside`` while an environment opens or closes.

    Only the thread that creates the meter, the one running the episodes, is timed: the pool's starter
    threads start and close sandboxes off the episode's path."""

    seconds: float = 0.0
    inside: bool = False
    served: Counter[str] = field(default_factory=Counter)
    thread: int = field(default_factory=threading.get_ident)

    def timed(self, step: Callable[..., Any]) -> Callable[..., Any]:
        """``step`` (a sandbox's start or close), its time added when the episode's thread calls it,
        unless an environment's open or close around it is timed already."""

        def run(*args: Any, **kwargs: Any) -> Any:
            if self.inside or threading.get_ident() != self.thread:
                return step(*args, **kwargs)
            started = time.perf_counter()
            try:
                return step(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        return run


@contextmanager
def metered_episodes(meter: SetupMeter) -> Iterator[None]:
    """Episodes whose environment open (with the shell made ready) and close, and every other sandbox
    start and close, add their time to ``meter``."""
    real_open, real_start, real_close = episode.open_environment, LocalSandbox.start, LocalSandbox.close

    @contextmanager
    def timed_open(task: Task, **kwargs: Any) -> Iterator[Environment]:
        started, meter.inside = time.perf_counter(), True
        with real_open(task, **kwargs) as env:
            sandbox = getattr(env, "sandbox", None)
            if sandbox is not None:
                sandbox.shell().run("true", SHELL_TIMEOUT_S)
            meter.seconds += time.perf_counter() - started
            meter.inside = False
            yield env
            closing, meter.inside = time.perf_counter(), True
        meter.seconds += time.perf_counter() - closing
        meter.inside = False

    episode.open_environment = timed_open  # type: ignore[assignment]
    LocalSandbox.start, LocalSandbox.close = meter.timed(real_start), meter.timed(real_close)  # type: ignore[method-assign]
    try:
        yield
    finally:
        episode.open_environment = real_open
        LocalSandbox.start, LocalSandbox.close = real_start, real_close  # type: ignore[method-assign]


def run_back_to_back(
    tasks: list[Task], block: AbstractContextManager[WarmPool | None], meter: SetupMeter
) -> tuple[list[float], list[float]]:
    """Setup and wall seconds of each episode of the expert explorer on ``tasks``, one after another
    inside ``block`` (a warm pool's or none)."""
    agent = build_agents([AGENT])[AGENT]
    setups, walls = [], []
    with block as pool:
        for task in tasks:
            before, started = meter.seconds, time.perf_counter()
            episode.run_episode(task, agent, backend="local", episode_id="bench")
            walls.append(time.perf_counter() - started)
            setups.append(meter.seconds - before)
    if pool is not None:
        meter.served.update(pool.served)
    return setups, walls


def suite_shares(tasks: list[Task], repeat: int) -> dict[str, tuple[list[float], list[float], Counter[str]]]:
    """Per mode (``no pool``, ``warm pool``): every episode's setup and wall seconds over ``repeat``
    rounds, the modes alternating within each round, and how the pool served its sandboxes."""
    found: dict[str, tuple[list[float], list[float], Counter[str]]] = {}
    for _ in range(repeat):
        for mode in ("no pool", "warm pool"):
            meter = SetupMeter()
            block = warm_sandboxes(WARM_SANDBOXES_PER_WORKER) if mode == "warm pool" else nullcontext()
            with metered_episodes(meter):
                setups, walls = run_back_to_back(tasks, block, meter)
            kept = found.setdefault(mode, ([], [], Counter()))
            kept[0].extend(setups)
            kept[1].extend(walls)
            kept[2].update(meter.served)
    return found


def main(argv: list[str] | None = None) -> None:
    """Print setup and episode medians and the setup share per suite, with and without the pool."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=4)
    args = parser.parse_args(argv)
    print(
        f"{args.repeat} rounds of the first {args.tasks} tasks per suite back to back, without and with"
        f" the warm pool alternating; medians over episodes; baseline: a whole {AGENT} episode"
    )
    print(f"{'suite':<18} {'mode':<10} {'setup':>8} {'episode':>9} {'share':>7}   target")
    with tempfile.TemporaryDirectory() as tmp:
        for suite in SUITES:
            tasks = load_benchmark(suite, {"limit": args.tasks}, generated_dir=Path(tmp) / "generated")
            for mode, (setups, walls, served) in suite_shares(tasks, args.repeat).items():
                share = share_percent(setups, walls)
                verdict = f"<= {TARGET_PERCENT:g}%: {at_most(share, TARGET_PERCENT)}"
                if mode == "warm pool":
                    verdict += "   sandboxes: " + (
                        ", ".join(f"{count} {how}" for how, count in sorted(served.items())) or "none"
                    )
                print(
                    f"{suite:<18} {mode:<10} {1000 * statistics.median(setups):>6.1f}ms"
                    f" {1000 * statistics.median(walls):>7.1f}ms {share:>6.1f}%   {verdict}"
                )


if __name__ == "__main__":
    main()
