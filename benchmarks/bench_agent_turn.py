"""LLM agent overhead per turn: what the loop adds on top of the model call, against a zero-latency model.

Run as ``python benchmarks/bench_agent_turn.py [--episodes N] [--turns K] [--repeat R]``. A local fake
OpenAI-protocol server answers every request at once from a script of K turns (K - 1 tool calls against
the in-process tool task, then ``submit_answer``). Each round runs N episodes through the agent loop
(opened environment, no grading), then replays the very requests those episodes sent with the raw
``openai`` SDK client: that is the baseline, the cost of the model calls themselves. The overhead per
turn is (loop time - baseline time) / (N * K): building requests, the provider translation, tool
dispatch, accounting and, when on, the response cache. Figures are medians over R rounds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import openai

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_providers import OPENAI, Call, FakeModelServer, Reply
from hydra_config import agent_loop
from tool_factory import make_tool_task
from verdicts import at_most

from res_repro.agents import LLMAgent, make_llm_agent
from res_repro.agents.base import Attempt
from res_repro.env.formats import open_environment
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.env.task import Task

TARGET_MS = 1.0
LOOP = agent_loop(max_turns=1000, time_limit_s=3600.0)


def script(turns: int) -> list[Reply]:
    """``turns - 1`` tool calls that alternate a search and a lookup, then the final answer."""
    calls = [Call("crm_search", {"query": "Acme"}), Call("crm_get", {"id": "C1"})]
    steps = [Reply(None, (calls[turn % 2],)) for turn in range(turns - 1)]
    return [*steps, Reply(None, (Call("submit_answer", {"answer": "Emailed ops@acme.test"}),))]


def run_agent(
    agent: LLMAgent, task: Task, server: FakeModelServer, turns: int
) -> tuple[float, list[dict[str, Any]]]:
    """Seconds inside the agent loop for one episode, and the request bodies it sent."""
    server.load(script(turns))
    with open_environment(task, backend="local") as env:
        started = time.perf_counter()
        outcome = agent.run(task, env, Attempt("bench"))
        elapsed = time.perf_counter() - started
    if outcome.turns != turns or outcome.answer is None:
        raise RuntimeError(f"episode ended early: {outcome.stop_reason} after {outcome.turns} turns")
    return elapsed, server.bodies


def run_raw(
    client: openai.OpenAI, server: FakeModelServer, bodies: list[dict[str, Any]], turns: int
) -> float:
    """Seconds for the raw SDK to send the same requests and parse the same responses."""
    server.load(script(turns))
    started = time.perf_counter()
    for body in bodies:
        client.chat.completions.create(**body)
    return time.perf_counter() - started


def measure(
    task: Task, server: FakeModelServer, episodes: int, turns: int, repeat: int, cache_root: Path | None
) -> dict[str, float]:
    """Medians over ``repeat`` rounds: ms per turn (baseline, loop, overhead, server) and the ratio."""
    rows: dict[str, list[float]] = {"baseline": [], "loop": [], "overhead": [], "server": [], "ratio": []}
    for round_index in range(repeat + 1):  # round 0 warms connections, imports and the cache folder up
        loop_s = raw_s = server_s = 0.0
        for episode in range(episodes):
            # one cache for every episode, as in a run; a model name per episode keeps every request new,
            # so each turn is a miss that stores its response
            name = f"fake-model-{round_index}-{episode}"
            model = {
                "provider": OPENAI,
                "model": name,
                "api_key_env": None,
                "base_url": server.base_url,
                "timeout_s": 120.0,
            }
            agent = make_llm_agent("bench", model, LOOP, cache_root, seed=0)
            elapsed, bodies = run_agent(agent, task, server, turns)
            loop_s += elapsed
            server_s += server.handling_seconds
            client = openai.OpenAI(api_key="not-needed", base_url=server.base_url, max_retries=0)
            raw_s += run_raw(client, server, bodies, turns)  # a fresh client, as each agent has
        if round_index == 0:
            continue
        per_turn = 1e3 / (episodes * turns)
        rows["baseline"].append(raw_s * per_turn)
        rows["loop"].append(loop_s * per_turn)
        rows["overhead"].append((loop_s - raw_s) * per_turn)
        rows["server"].append(server_s * per_turn)
        rows["ratio"].append(loop_s / raw_s)
    return {name: statistics.median(values) for name, values in rows.items()}


def main(argv: list[str] | None = None) -> None:
    """Print the loop's overhead per turn beside its target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print(
        f"medians of {args.repeat} rounds of {args.episodes} episodes x {args.turns} turns; "
        "baseline: the raw openai SDK sending the same requests to the same zero-latency server"
    )
    print(
        f"{'variant':<16} {'baseline':>10} {'server':>9} {'loop':>9} {'overhead':>10} {'ratio':>7}   target"
    )
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer(OPENAI) as server:
        task = load_tool_task(make_tool_task(Path(tmp) / "tasks"))
        for variant, cache_root in (("no cache", None), ("response cache", Path(tmp) / "cache")):
            result = measure(task, server, args.episodes, args.turns, args.repeat, cache_root)
            print(
                f"{variant:<16} {result['baseline']:>8.3f}ms {result['server']:>7.3f}ms"
                f" {result['loop']:>7.3f}ms {result['overhead']:>8.3f}ms {result['ratio']:>6.2f}x"
                f"   <= {TARGET_MS:g}ms: {at_most(result['overhead'], TARGET_MS)}"
            )


if __name__ == "__main__":
    main()
