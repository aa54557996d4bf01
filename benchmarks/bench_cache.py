"""Warm cache hits: an episode found in the episode store, and an LLM turn replayed from the response cache.

Run as ``python benchmarks/bench_cache.py [--repeat N]``. Episode store: the expert explorer on the first
8 ``terminal_bundled`` tasks runs once (the baseline: ms per episode run), then ``evaluate`` is called
again on the same requests, which finds every record in the store; the figure is ms per episode of that
warm call. Response cache: one K-turn episode of the LLM agent against a zero-latency fake server fills
the cache, then fresh agents replay it without calling the server; the figure is ms per replayed turn
(the loop, the cache lookup and the tool calls), the baseline the raw ``openai`` SDK's ms per call to the
same zero-latency server. Figures are medians over N rounds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import openai
from bench_agent_turn import LOOP, run_agent, run_raw

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_providers import OPENAI, FakeModelServer
from tool_factory import make_tool_task

from res_repro.agents import build_agents, make_llm_agent
from res_repro.benchmarks.registry import load_benchmark
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.evaluation.runner import EpisodeRequest, evaluate
from res_repro.evaluation.store import EpisodeStore

AGENT = "explorer-expert"
TURNS = 10


def store_hits(repeat: int, tasks: int = 8) -> tuple[float, float]:
    """(ms per episode run, median ms per episode found in the store, task hashing included)."""
    agents = build_agents([AGENT])

    def requests() -> list[EpisodeRequest]:  # fresh tasks: a warm call hashes their folders again
        return [EpisodeRequest(t, AGENT) for t in load_benchmark("terminal_bundled", {"limit": tasks})]

    with tempfile.TemporaryDirectory() as tmp:
        store = EpisodeStore(tmp)
        first = requests()
        started = time.perf_counter()
        evaluate(first, agents=agents, backend="local", store=store, show_progress=False)
        cold = (time.perf_counter() - started) / tasks
        warm = []
        for _ in range(repeat):
            again = requests()
            started = time.perf_counter()
            evaluate(again, agents=agents, backend="local", store=store, show_progress=False)
            warm.append((time.perf_counter() - started) / tasks)
    return 1000 * cold, 1000 * statistics.median(warm)


def replayed_turns(repeat: int, episodes: int = 10) -> tuple[float, float]:
    """(raw SDK ms per call to a zero-latency server, median ms per turn replayed from the cache)."""
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer(OPENAI) as server:
        task = load_tool_task(make_tool_task(Path(tmp) / "task"))
        model = {
            "provider": OPENAI,
            "model": "fake-model",
            "api_key_env": None,
            "base_url": server.base_url,
            "timeout_s": 120.0,
        }
        cache = Path(tmp) / "cache"
        _, bodies = run_agent(make_llm_agent("bench", model, LOOP, cache, seed=0), task, server, TURNS)
        client = openai.OpenAI(api_key="not-needed", base_url=server.base_url, max_retries=0)
        run_raw(client, server, bodies, TURNS)  # warm the connection up
        raw = [run_raw(client, server, bodies, TURNS) / TURNS for _ in range(repeat)]
        replay = []
        for _ in range(repeat):
            server.load([])
            seconds = 0.0
            for _ in range(episodes):
                agent = make_llm_agent("bench", model, LOOP, cache, seed=0)
                seconds += run_agent(agent, task, server, TURNS)[0]
            if server.requests:
                raise RuntimeError("a replayed turn reached the server")
            replay.append(seconds / (episodes * TURNS))
    return 1000 * statistics.median(raw), 1000 * statistics.median(replay)


def main(argv: list[str] | None = None) -> None:
    """Print both cache hits beside their baselines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"medians of {args.repeat} rounds; no target is set for these, the ratio is to the baseline")
    run_ms, hit_ms = store_hits(args.repeat)
    print(f"{'episode store':<16} {'baseline: run an ' + AGENT + ' episode':<44} {run_ms:9.2f} ms")
    hit = "warm hit per episode (hash, look up, load)"
    print(f"{'':<16} {hit:<44} {hit_ms:9.2f} ms   {hit_ms / run_ms:.4f}x")
    raw_ms, turn_ms = replayed_turns(args.repeat)
    print(f"{'response cache':<16} {'baseline: raw SDK call to a zero-latency server':<44} {raw_ms:9.2f} ms")
    print(f"{'':<16} {'replayed turn (no model call)':<44} {turn_ms:9.2f} ms   {turn_ms / raw_ms:.2f}x")


if __name__ == "__main__":
    main()
