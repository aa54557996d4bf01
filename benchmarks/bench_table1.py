"""Wall time of a warm ``make table1``: the three bundled suites' multirun with every episode and lineage
already in the store, as a user reruns it to regenerate the tables.

Run as ``python benchmarks/bench_table1.py [--repeat N]``. The command is the Makefile's, run in a
scratch project root (``paths.root_dir``: its own store, results and MLflow database, so the checkout's
are left alone); one untimed run fills the store, then runs alternate tracking on (the default, the
figure with the target: under 5 s) and off (``tracking=none``, for comparison). Medians of N each.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from verdicts import at_most

TARGET_S = 5.0
SUITES = "claw_bundled,workspace_bundled,terminal_bundled"
CLI = Path(sys.executable).with_name("res-repro")


def table1_seconds(root: Path, *extra: str) -> float:
    """Seconds of one ``res-repro -m experiment=table1`` over the bundled suites under ``root``."""
    command = [str(CLI), "-m", "experiment=table1", f"benchmark={SUITES}", "save_results=true"]
    started = time.perf_counter()
    done = subprocess.run(
        [*command, f"paths.root_dir={root}", *extra], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"table1 failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return seconds


def main(argv: list[str] | None = None) -> None:
    """Print the warm run's median with tracking on and off, beside the target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        cold = table1_seconds(Path(tmp))
        runs: dict[str, list[float]] = {"on": [], "off": []}
        for _ in range(args.repeat):
            runs["on"].append(table1_seconds(Path(tmp)))
            runs["off"].append(table1_seconds(Path(tmp), "tracking=none"))
    on, off = statistics.median(runs["on"]), statistics.median(runs["off"])
    print(f"the first run, filling the store: {cold:.1f} s; then medians of {args.repeat}, alternating")
    print(f"warm make table1, tracking on    {on:5.2f} s   target < {TARGET_S:g} s: {at_most(on, TARGET_S)}")
    print(f"warm make table1, tracking off   {off:5.2f} s   (for comparison)")


if __name__ == "__main__":
    main()
