"""Scripted episodes per second on 1 and 2 workers, and the cost of building a lineage node per depth.

Run as ``python benchmarks/bench_runner.py [--repeat N] [--builds B] [--depth D]``.

Episodes: the explorer-expert tier on every ``terminal_bundled`` task (sandboxed), fresh store each round,
median over N rounds; the baseline is one worker, the target is at least 1.8x with two, both as a first
run starts its episodes (request order) and as a later one does (longest first, by the durations earlier
rounds measured); beside it, the most two workers can gain on the machine (one worker already keeps some
of the second core busy).

Lineage: one Claw-style seed scaled to depth D (24) B times (5), with no target model; the figure is
the median CPU time of the harness process per candidate built at each depth, split into the
conversations with task code (the reference program's tool calls, answered through the reference
adapters and the middleware) and the rest; the target is a per-node cost flat within 1.2x from depth 1
to D (the least-squares line through the medians), so that building depth D costs time linear in D.
Each deeper node adds an obstacle the reference needs calls to get past, so the number of tool calls
grows with depth by the task's own design: the figures say so beside the cost per call, which must stay
flat.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verdicts import at_least, flat_within, growth_ratio

from res_repro.agents import build_agents
from res_repro.benchmarks.registry import load_benchmark
from res_repro.config import compose_config
from res_repro.env import task_code
from res_repro.env.tools import Dispatcher, ToolCall, ToolResponse
from res_repro.evaluation.durations import EpisodeDurations
from res_repro.evaluation.runner import EpisodeRequest, evaluate
from res_repro.evaluation.store import EpisodeStore
from res_repro.pipelines.lineages import scaling_settings
from res_repro.res.lineage import LineageStore
from res_repro.res.operators import library
from res_repro.res.proposer import ProgrammaticProposer
from res_repro.res.scaling import Scaler

SPEEDUP_TARGET = 1.8
GROWTH_LIMIT = 1.2  # per-node cost at the deepest depth over depth 1 (fitted)
DEPTH = 24
BATCH_COPIES = 3


def speedup_verdict(one: list[float], two: list[float], target: float = SPEEDUP_TARGET) -> tuple[float, str]:
    """The speedup of two workers over one (median episodes per second of each, from rounds run
    alternately) and its verdict against ``target``: ``met`` or ``MISSED``."""
    ratio = statistics.median(two) / statistics.median(one)
    return ratio, at_least(ratio, target)


def speedup_ceiling(cores_one: float, cpus: int, workers: int = 2) -> float:
    """The most ``workers`` workers can gain over one on ``cpus`` cores when one worker already keeps
    ``cores_one`` cores busy (the warm pool's starts and the cleanups run beside its episodes): the
    machine's work per episode stays the same, so at best the cores it may fill over those one fills."""
    return min(float(workers), cpus / cores_one)


def machine_busy_seconds() -> float:
    """CPU seconds every core of the machine has spent busy since boot (``/proc/stat``): what a run's
    sandboxed commands cost counts too, which the harness process's own CPU time leaves out."""
    with open("/proc/stat") as stat:
        ticks = [int(field) for field in stat.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    return (sum(ticks) - idle) / os.sysconf("SC_CLK_TCK")


@dataclass
class Round:
    """One evaluation: its episodes per second and the machine's busy CPU seconds per episode."""

    rate: float
    busy_per_episode: float

    @property
    def cores_busy(self) -> float:
        """How many of the machine's cores the evaluation kept busy on average."""
        return self.rate * self.busy_per_episode


ORDERS = ("request order", "longest first")  # a first run's order, and a later run's with durations known


def _rate(
    requests: list[EpisodeRequest], agents: dict, workers: int, durations: EpisodeDurations | None = None
) -> Round:
    """Episodes per second of one evaluation into a fresh store, and the machine's CPU per episode; with
    ``durations``, the episodes start longest first by what earlier rounds measured."""
    with tempfile.TemporaryDirectory() as tmp:
        busy, started = machine_busy_seconds(), time.perf_counter()
        evaluate(
            requests,
            agents=agents,
            backend="local",
            store=EpisodeStore(tmp),
            workers=workers,
            show_progress=False,
            durations=durations,
        )
        elapsed = time.perf_counter() - started
        return Round(len(requests) / elapsed, (machine_busy_seconds() - busy) / len(requests))


def episodes_per_second(repeat: int) -> dict[tuple[int, str], list[Round]]:
    """Each round's episodes per second and machine CPU per episode, for the expert explorer over the
    terminal suite (three times over, each a fresh episode): on 1 worker, and on 2 workers in request
    order (a first run) and longest first (a later run, the durations measured by the earlier rounds).

    One untimed round first (imports, per-process caches; it also measures the first durations), then
    rounds alternating the three, so all see the same machine: a busy spell slows all instead of one.
    """
    agents = build_agents(["explorer-expert"])
    suite = [EpisodeRequest(task, "explorer-expert") for task in load_benchmark("terminal_bundled")]
    # the suite three times over: its 16 episodes are uneven (50-650 ms), and with so few the longest
    # last one alone would cap two workers' speedup near 1.8x; runs hold hundreds of episodes
    requests = suite * BATCH_COPIES
    rates: dict[tuple[int, str], list[Round]] = {(1, ORDERS[0]): [], (2, ORDERS[0]): [], (2, ORDERS[1]): []}
    with tempfile.TemporaryDirectory() as tmp:
        durations = EpisodeDurations(Path(tmp) / "durations.json")
        _rate(suite, agents, 1, durations)
        for _ in range(repeat):
            for workers, order in rates:
                rates[workers, order].append(
                    _rate(requests, agents, workers, durations if order == ORDERS[1] else None)
                )
    return rates


@dataclass
class NodeCost:
    """What building the accepted node at one depth cost the harness process, per candidate built."""

    cpu: float  # seconds of CPU in the harness process (child interpreters of task code not counted)
    calls: float  # tool calls the environment answered for task code (the reference and its adapters)
    conversing: float  # of ``cpu``, seconds exchanging messages with task code and answering its calls

    @property
    def rest(self) -> float:
        """Everything but the task code's tool calls: propose, apply, save, hash, load, static checks,
        starting and grading the check episodes."""
        return self.cpu - self.conversing

    @property
    def per_call(self) -> float:
        """Seconds of conversing per tool call of the task code."""
        return self.conversing / max(self.calls, 1)


@contextmanager
def task_code_meter() -> Iterator[list[float]]:
    """Count the tool calls the environment answers and the CPU seconds of every conversation with task
    code (its messages read and written, each of its calls answered through the reference adapters,
    middleware and services): ``[calls, seconds]``."""
    meter = [0.0, 0.0]
    converse, dispatch = task_code._converse, Dispatcher.dispatch

    def metered_converse(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return converse(*args, **kwargs)
        finally:
            meter[1] += time.process_time() - started

    def counted_dispatch(self: Dispatcher, call: ToolCall) -> ToolResponse:
        meter[0] += 1
        return dispatch(self, call)

    task_code._converse, Dispatcher.dispatch = metered_converse, counted_dispatch  # type: ignore[method-assign]
    try:
        yield meter
    finally:
        task_code._converse, Dispatcher.dispatch = converse, dispatch  # type: ignore[method-assign]


def node_costs_by_depth(repeat: int, depth_cap: int = DEPTH) -> dict[int, NodeCost]:
    """Medians over ``repeat`` builds of the harness's CPU per candidate at each depth (propose, apply,
    check, store), with the tool calls the checks' task code made and the CPU spent on them.

    CPU time of this process, so a busy shared machine does not count; per candidate, so a depth whose
    first proposal was rejected (the same depths in every build: proposals are seeded) counts the work
    of each candidate once rather than looking twice as deep."""
    samples: dict[int, list[NodeCost]] = {}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp, task_code_meter() as meter:
            task = load_benchmark("claw_bundled", {"tasks_per_family": 1}, generated_dir=Path(tmp) / "gen")[0]
            scaler = Scaler(
                settings=scaling_settings(compose_config(), depth_cap=0),
                proposer=ProgrammaticProposer(library(None)),
                store=LineageStore(Path(tmp) / "lineages"),
                backend="local",
            )
            parent = scaler.scale(task).last
            for depth in range(1, depth_cap + 1):
                calls, conversing, started = *meter, time.process_time()
                child = scaler.grow(parent, depth)
                if child is None:
                    break
                cpu = time.process_time() - started
                candidates = 1 + int(child.manifest.proposer.get("revisions", 0))
                samples.setdefault(depth, []).append(
                    NodeCost(
                        cpu / candidates,
                        (meter[0] - calls) / candidates,
                        (meter[1] - conversing) / candidates,
                    )
                )
                parent = child
    return {
        depth: NodeCost(
            *(statistics.median(getattr(c, name) for c in costs) for name in ("cpu", "calls", "conversing"))
        )
        for depth, costs in sorted(samples.items())
    }


def main(argv: list[str] | None = None) -> None:
    """Print both figures beside their targets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds of episodes per setting")
    parser.add_argument("--builds", type=int, default=5, help="lineage builds (few move the fit)")
    parser.add_argument("--depth", type=int, default=DEPTH)
    args = parser.parse_args(argv)
    rates = episodes_per_second(args.repeat)
    one = rates[1, ORDERS[0]]
    print(f"medians of {args.repeat} rounds after a warm-up, alternating; baseline: 1 worker")
    ratios: dict[str, float] = {}  # two workers over one, by order
    for (workers, order), rounds in rates.items():
        rate = statistics.median(r.rate for r in rounds)
        busy = 1000 * statistics.median(r.busy_per_episode for r in rounds)
        cores = statistics.median(r.cores_busy for r in rounds)
        line = f"scripted episodes/s, {workers} worker{'s' if workers > 1 else ' '}, {order:13s} {rate:7.2f}"
        if workers == 2:
            ratios[order], verdict = speedup_verdict([r.rate for r in one], [r.rate for r in rounds])
            line += f"   {ratios[order]:.2f}x   target >= {SPEEDUP_TARGET}x: {verdict}"
        print(line)
        print(
            f"  the machine's busy CPU per episode (every process, sandboxed commands too) {busy:.0f} ms;"
            f" cores kept busy {cores:.2f} of {os.cpu_count()}"
        )
    cores_one = statistics.median(r.cores_busy for r in one)
    ceiling = speedup_ceiling(cores_one, os.cpu_count() or 1)
    best = max(ratios.values())
    print(
        f"  the most two workers can gain on this machine: {ceiling:.2f}x (one worker keeps {cores_one:.2f}"
        f" cores busy); the better order reached {best / ceiling:.0%} of it"
    )
    print_lineage_costs(args.builds, args.depth)


def print_lineage_costs(repeat: int, depth_cap: int) -> None:
    """Print the lineage node costs per depth and their growth beside the target."""
    costs = node_costs_by_depth(repeat, depth_cap)
    print(
        f"lineage nodes: medians of {repeat} builds; CPU of the harness process per candidate built"
        " (task code's own interpreters not counted); tool calls: those the environment answered"
    )
    for depth, cost in costs.items():
        print(
            f"lineage node at depth {depth:2d}   {1000 * cost.cpu:6.1f} ms   {cost.calls:5.1f} tool calls"
            f" {1000 * cost.conversing:5.1f} ms   the rest {1000 * cost.rest:6.1f} ms"
        )
    if len(costs) < depth_cap:
        print(f"node cost growth: the lineage stopped at depth {len(costs)} of {depth_cap}   MISSED")
        return
    target = f"target <= {GROWTH_LIMIT}x"
    series = {
        name: {d: getattr(c, name) for d, c in costs.items()} for name in ("cpu", "rest", "per_call", "calls")
    }
    print(
        f"node cost growth, all:             {growth_ratio(series['cpu']):.2f}x from depth 1 to {depth_cap}"
        f" (fitted line)   {target}: {flat_within(series['cpu'], GROWTH_LIMIT)}"
    )
    print(
        f"node cost growth, the rest:        {growth_ratio(series['rest']):.2f}x"
        f"   {target}: {flat_within(series['rest'], GROWTH_LIMIT)}"
    )
    print(
        f"cost per tool call growth:         {growth_ratio(series['per_call']):.2f}x"
        f"   {target}: {flat_within(series['per_call'], GROWTH_LIMIT)}"
    )
    print(
        f"tool calls per candidate growth:   {growth_ratio(series['calls']):.2f}x"
        " (the task's: every layer an operator adds takes calls to get past)"
    )


if __name__ == "__main__":
    main()
