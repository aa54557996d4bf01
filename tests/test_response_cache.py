"""The response cache: entries survive across instances and processes, and concurrent writers lose none."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from res_repro.agents.providers.base import ModelResponse, ToolCallRequest, Usage
from res_repro.agents.response_cache import ResponseCache


def _response(i: int) -> ModelResponse:
    call = ToolCallRequest(id=f"c{i}", name="crm_get", arguments={"id": i})
    return ModelResponse(f"answer {i}", (call,), Usage(input_tokens=10 * i, output_tokens=i), "tool_calls")


def test_a_response_round_trips_through_another_instance(tmp_path):
    ResponseCache(tmp_path).put("k1", _response(1))
    again = ResponseCache(tmp_path)
    assert again.get("k1") == _response(1)
    assert again.get("k2") is None


def test_threads_and_a_second_process_write_at_once_and_lose_nothing(tmp_path):
    cache = ResponseCache(tmp_path)
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, 'tests'); from test_response_cache import _response; "
            "from res_repro.agents.response_cache import ResponseCache; c = ResponseCache(sys.argv[1]); "
            "[c.put(f'p{i}', _response(i)) for i in range(200)]",
            str(tmp_path),
        ],
        cwd=Path(__file__).resolve().parents[1],
    )
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: cache.put(f"t{i}", _response(i)), range(200)))
    assert writer.wait(timeout=60) == 0
    assert cache.count() == 400
    assert cache.get("p199") == _response(199) and cache.get("t7") == _response(7)
