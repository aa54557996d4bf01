"""Every performance figure in one run (``make bench``): medians of repeated runs, each beside its
baseline, measured in the same run, and its target.

Run as ``python benchmarks/run_all.py``; each section is also a script of its own with options for
longer runs (``python benchmarks/bench_sandbox.py --help``). The settings here keep the whole run
to about fifteen minutes on a 2-core machine (three of them filling a scratch store for ``make table1``).
"""

from __future__ import annotations

import importlib
import time

SECTIONS: tuple[tuple[str, str, list[str]], ...] = (
    (
        "sandbox start, exec and close (persistent shell vs one process vs docker)",
        "bench_sandbox",
        ["--repeat", "10"],
    ),
    ("tool dispatch", "bench_dispatch", ["--repeat", "5"]),
    ("harness overhead per LLM turn", "bench_agent_turn", ["--episodes", "10", "--repeat", "3"]),
    ("scripted episodes per second and lineage node cost per depth", "bench_runner", ["--repeat", "3"]),
    ("environment setup share of a scripted episode", "bench_setup", ["--repeat", "3", "--tasks", "4"]),
    ("warm cache hits", "bench_cache", ["--repeat", "3"]),
    ("warm make table1 (the store filled by a first run)", "bench_table1", ["--repeat", "3"]),
    (
        "model-bound throughput at a 2 s latency (make bench-models: 8, 32, 64, three rounds)",
        "bench_models",
        ["--in-flight", "64", "--repeat", "2", "--per-slot", "3"],
    ),
)


def main() -> None:
    """Run each section's ``main`` with the quick settings, under a heading."""
    started = time.perf_counter()
    for title, module, argv in SECTIONS:
        print(f"\n== {title}  [benchmarks/{module}.py {' '.join(argv)}]", flush=True)
        section = time.perf_counter()
        importlib.import_module(module).main(argv)
        print(f"({time.perf_counter() - section:.0f} s)", flush=True)
    print(f"\nall figures in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
