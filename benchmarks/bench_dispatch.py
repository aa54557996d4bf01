"""In-process tool dispatch overhead: what the dispatcher adds on top of the service's own work.

Run as ``python benchmarks/bench_dispatch.py [--calls N] [--repeat R]``. The baseline is the service
operation called directly; the figure is the median over R rounds of (dispatch time - direct time) per
call, for a get by id and for a search, with an empty middleware stack and with one pass-through layer.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from tool_factory import make_tool_task
from verdicts import at_most

from res_repro.env.formats.tool_api import ToolEnvironment, load_tool_task
from res_repro.env.services import OPERATIONS
from res_repro.env.tools import ToolCall

TARGET_US = 50.0
CALLS = {"crm_get": {"id": "C2"}, "crm_search": {"query": "acme"}}
PASS_THROUGH = {"name": "transient_failures", "params": {"rate": 0.0}}


def _per_call_us(function: Callable[[], object], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        function()
    return (time.perf_counter() - started) / calls * 1e6


def measure(env: ToolEnvironment, tool: str, calls: int, repeat: int) -> tuple[float, float]:
    """Median microseconds per call: (direct service operation, overhead added by dispatch)."""
    tool_def = next(t for t in env.task.config.tools if t.name == tool)
    service, operation = env.services[tool_def.service], OPERATIONS[tool_def.operation]
    call = ToolCall(tool, CALLS[tool])
    direct, overhead = [], []
    for _ in range(repeat):
        base = _per_call_us(lambda: operation(service, tool_def, call), calls)
        full = _per_call_us(lambda: env.call(call), calls)
        env.dispatcher.audit.clear()
        direct.append(base)
        overhead.append(full - base)
    return statistics.median(direct), statistics.median(overhead)


def main(argv: list[str] | None = None) -> None:
    """Print the dispatch overhead per call beside its target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    print(
        f"medians of {args.repeat} rounds of {args.calls} calls; baseline: the service operation called alone"
    )
    print(f"{'stack':<14} {'tool':<12} {'direct':>10} {'overhead':>10} {'ratio':>7}   target")
    with tempfile.TemporaryDirectory() as tmp:
        for stack, middleware in (("no layers", []), ("one layer", [PASS_THROUGH])):
            env = ToolEnvironment(
                load_tool_task(make_tool_task(Path(tmp) / stack.replace(" ", "-"), middleware=middleware))
            )
            for tool in CALLS:
                direct, overhead = measure(env, tool, args.calls, args.repeat)
                ratio = (direct + overhead) / direct
                print(
                    f"{stack:<14} {tool:<12} {direct:>8.1f}us {overhead:>8.1f}us {ratio:>6.1f}x"
                    f"   <= {TARGET_US:g}us: {at_most(overhead, TARGET_US)}"
                )


if __name__ == "__main__":
    main()
