"""Model-bound throughput: episodes per minute against the ideal at 8, 32 and 64 episodes in flight, when
every model answer takes a fixed latency (2 s), and what each in-flight episode costs in memory and
sandboxes.

Run as ``python benchmarks/bench_models.py [--latency S] [--in-flight 8,32,64] [--per-slot K] [--repeat N]``.

The simulated explorer-standard answers through the simulator (``models=sim``'s endpoint, with
``latency_s``), on the Claw-style and Terminal-style bundled tasks (tool-API tasks run their services,
Terminal ones a sandbox each), K episodes per slot, a fresh episode store and no response cache; each
round starts its episodes longest first by the durations earlier rounds measured, as a later run does
(the first round has none). A model
request keeps its episode busy for the latency and nothing else, so the ideal is every slot waiting on a
model all the time: ideal wall time = (model requests x latency) / in-flight, and the figure is ideal over
measured (100% = the harness adds nothing). The target is at least 80% at 64 in flight. Peak memory is the
harness's resident set (its high-water mark, read from ``/proc``) plus the peak summed resident set of its
child processes (sandboxes, services, task code), sampled every 0.2 s, per in-flight episode; sandboxes
per episode are the peak number of live bubblewrap sandboxes over the episodes in flight.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from omegaconf import OmegaConf
from verdicts import at_least

from res_repro.agents import make_llm_agent
from res_repro.benchmarks.registry import load_benchmark
from res_repro.config import compose_config
from res_repro.evaluation.durations import EpisodeDurations
from res_repro.evaluation.jobs import EpisodeRequest
from res_repro.evaluation.runner import evaluate
from res_repro.evaluation.store import EpisodeStore
from res_repro.simulation import simulator

MODEL = "sim-explorer-standard"
TARGET = 0.80  # of the ideal rate at the largest in-flight count


@dataclass(frozen=True)
class Round:
    """One measured round at one in-flight count."""

    episodes: int
    requests: int
    wall_s: float
    peak_rss_mb: float
    peak_sandboxes: int

    def efficiency(self, latency: float, in_flight: int) -> float:
        """Ideal wall time over the measured one."""
        return self.requests * latency / in_flight / self.wall_s


def _children_rss_mb_and_sandboxes() -> tuple[float, int]:
    """The summed resident set of this process's descendants (MB) and how many are bubblewrap."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)
            names[int(entry.name)] = fields[0].split("(", 1)[1]
            rest = fields[1].split()
            parents[int(entry.name)], rss[int(entry.name)] = (
                int(rest[1]),
                int(rest[21]) * os.sysconf("SC_PAGESIZE"),
            )
        except (OSError, IndexError, ValueError):
            continue
    mine, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - mine
        mine |= frontier
    sandboxes = sum(1 for pid in mine if names.get(pid) == "bwrap" and names.get(parents[pid]) != "bwrap")
    return sum(rss.get(pid, 0) for pid in mine) / 2**20, sandboxes


def _own_peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


@contextmanager
def _sampling() -> Iterator[list[tuple[float, int]]]:
    """Sample the children's memory and sandboxes every 0.2 s while the block runs."""
    samples: list[tuple[float, int]] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            samples.append(_children_rss_mb_and_sandboxes())

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield samples
    finally:
        done.set()
        thread.join()


def measure(
    tasks: list, latency: float, in_flight: int, per_slot: int, seed: int, durations: EpisodeDurations
) -> Round:
    """Run ``in_flight * per_slot`` episodes with ``in_flight`` at once against the timed simulator,
    longest first by the ``durations`` earlier rounds measured (as a later run of a benchmark starts)."""
    model = {
        "provider": "openai",
        "model": MODEL,
        "base_url": None,
        "api_key_env": None,
        "timeout_s": 60.0,
        "temperature": None,
        "max_output_tokens": None,
        "simulated": True,
    }
    loop = {**OmegaConf.to_container(compose_config().agent_loop, resolve=True), "time_limit_s": 3600.0}
    count = in_flight * per_slot
    requests = [EpisodeRequest(tasks[i % len(tasks)], "sim", role=f"bench-{i}") for i in range(count)]
    timing = {MODEL: {"latency_s": latency}}
    with (
        tempfile.TemporaryDirectory() as scratch,
        simulator(tasks, seed=seed, operators_per_child=1, timing=timing) as running,
    ):
        agent = make_llm_agent("sim", {**model, "address": running.url}, loop, None, seed)
        store = EpisodeStore(Path(scratch) / "episodes")
        with _sampling() as samples:
            started = time.perf_counter()
            records = evaluate(
                requests,
                agents={"sim": agent},
                backend="local",
                store=store,
                workers=in_flight,
                seed=seed,
                show_progress=False,
                durations=durations,
            )
            wall = time.perf_counter() - started
    children = max((rss for rss, _ in samples), default=0.0)
    sandboxes = max((n for _, n in samples), default=0)
    return Round(len(records), sum(r.turns for r in records), wall, _own_peak_rss_mb() + children, sandboxes)


def main(argv: list[str] | None = None) -> None:
    """Measure each in-flight count ``--repeat`` times and print medians beside the ideal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=2.0, help="seconds per model answer")
    parser.add_argument("--in-flight", default="8,32,64", help="episodes at once, comma-separated")
    parser.add_argument("--per-slot", type=int, default=4, help="episodes per in-flight slot")
    parser.add_argument(
        "--repeat", type=int, default=3, help="rounds per in-flight count (the median is shown)"
    )
    args = parser.parse_args(argv)
    generated = Path(tempfile.mkdtemp(prefix="res-bench-models-"))
    suites = [load_benchmark(name, generated_dir=generated) for name in ("claw_bundled", "terminal_bundled")]
    tasks = [task for pair in itertools.zip_longest(*suites) for task in pair if task is not None]  # mixed
    counts = [int(n) for n in args.in_flight.split(",")]
    durations = EpisodeDurations(generated / "episode_durations.json")
    print(
        f"{MODEL} at {args.latency:g} s per answer; {len(tasks)} tasks; {args.per_slot} episodes per slot; "
        f"median of {args.repeat}"
    )
    print(
        "| in flight | episodes | requests | wall (s) | episodes/min | ideal/min | of ideal "
        "| peak MB per episode | sandboxes per episode |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    last = 0.0
    for in_flight in counts:
        rounds = [
            measure(tasks, args.latency, in_flight, args.per_slot, seed, durations)
            for seed in range(args.repeat)
        ]
        wall = statistics.median(r.wall_s for r in rounds)
        share = statistics.median(r.efficiency(args.latency, in_flight) for r in rounds)
        requests = statistics.median(r.requests for r in rounds)
        episodes = rounds[0].episodes
        ideal = episodes / (requests * args.latency / in_flight) * 60
        memory = statistics.median(r.peak_rss_mb for r in rounds) / in_flight
        sandboxes = statistics.median(r.peak_sandboxes for r in rounds) / in_flight
        print(
            f"| {in_flight} | {episodes} | {requests:.0f} | {wall:.1f} | {episodes / wall * 60:.1f} "
            f"| {ideal:.1f} | {share:.0%} | {memory:.1f} | {sandboxes:.2f} |",
            flush=True,
        )
        last = share
    print(
        f"target: at least {TARGET:.0%} of the ideal at {counts[-1]} in flight: {last:.0%} "
        f"{at_least(last, TARGET)}"
    )


if __name__ == "__main__":
    main()
