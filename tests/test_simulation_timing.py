"""A simulated model behaves in time as a hosted one: answers take their (seeded) latency, and requests
over its per-minute limit get HTTP 429 with a retry-after header, in the OpenAI error shape, which the
openai SDK and the harness's retry layer read."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest
from test_simulation import LOOP, sim_model

from res_repro.agents import make_llm_agent
from res_repro.benchmarks.registry import load_benchmark
from res_repro.evaluation.episode import run_episode
from res_repro.simulation import simulator
from res_repro.simulation.timing import RateLimited, Timing


def test_latency_is_seeded_per_request_and_centred_on_the_median() -> None:
    timing = Timing(latency_s=2.0, latency_spread=0.3)
    draws = [timing.latency(0, "m", n) for n in range(2000)]
    assert draws == [timing.latency(0, "m", n) for n in range(2000)]
    assert sorted(draws)[1000] == pytest.approx(2.0, rel=0.05) and len(set(draws)) == 2000
    assert Timing(latency_s=2.0).latency(0, "m", 7) == 2.0 and Timing().latency(0, "m", 7) == 0.0


def test_the_rate_limit_counts_the_last_minute_and_says_when_to_come_back() -> None:
    timing = Timing(requests_per_minute=2)
    timing.admit("m", now=0.0)
    timing.admit("m", now=10.0)
    with pytest.raises(RateLimited, match="Limit 2") as refused:
        timing.admit("m", now=20.0)
    assert refused.value.retry_after == pytest.approx(40.0)
    timing.admit("m", now=60.5)  # the first request has left the window


def _post(url: str, model: str) -> tuple[int, dict, dict]:
    body = {"model": model, "messages": [{"role": "user", "content": "Start."}], "tools": []}
    request = urllib.request.Request(
        f"{url}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def test_an_episode_takes_the_models_latency_per_turn(tmp_path) -> None:
    task = load_benchmark("claw_bundled", generated_dir=tmp_path)[0]
    timing = {"sim-explorer-expert": {"latency_s": 0.2}}
    with simulator([task], seed=0, operators_per_child=1, timing=timing) as running:
        agent = make_llm_agent("expert", sim_model("sim-explorer-expert", running.url), LOOP, None, 0)
        started = time.monotonic()
        record = run_episode(task, agent, backend="local", episode_id="timed")
        took = time.monotonic() - started
    assert record.passed and record.turns >= 2
    assert took >= 0.2 * record.turns  # every answer waited its latency


def test_the_endpoint_refuses_requests_beyond_the_limit_as_providers_do() -> None:
    timing = {"sim-explorer-basic": {"requests_per_minute": 2}}
    with simulator([], seed=0, operators_per_child=1, timing=timing) as running:
        answered = [_post(running.url, "sim-explorer-basic")[0] for _ in range(2)]
        status, headers, body = _post(running.url, "sim-explorer-basic")
        other = _post(running.url, "sim-explorer-expert")  # a model of its own: no limit
    assert 429 not in answered and other[0] != 429
    assert status == 429 and body["error"]["code"] == "rate_limit_exceeded"
    assert 0 < int(headers["retry-after"]) <= 60
