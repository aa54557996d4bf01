"""Starting and stopping the simulator: a child process on a free loopback port that dies with the harness."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from res_repro.env.formats import format_of
from res_repro.env.processes import dies_with_parent, minimal_env
from res_repro.env.task import Task

STOP_GRACE_S = 5.0


class SimulatorError(RuntimeError):
    """The simulator did not start."""


@dataclass(frozen=True)
class Simulator:
    """A running simulator: its process and the OpenAI-compatible base URL it serves."""

    process: subprocess.Popen[str]
    url: str


def task_spec(task: Task) -> dict[str, object]:
    """How the simulator loads ``task`` again: its directory, benchmark, format and load context."""
    return {
        "path": str(task.path),
        "benchmark": task.benchmark,
        "kind": task.kind,
        "context": format_of(task).context(task),
    }


@contextmanager
def simulator(tasks: Sequence[Task], *, seed: int, operators_per_child: int) -> Iterator[Simulator]:
    """Run the simulator over the seed ``tasks`` while the block runs; it is stopped on the way out, and
    the kernel kills it if the harness dies first."""
    with tempfile.TemporaryDirectory(prefix="res-sim-") as scratch:
        spec = Path(scratch, "spec.json")
        payload = {
            "seed": seed,
            "operators_per_child": operators_per_child,
            "tasks": [task_spec(t) for t in tasks],
        }
        spec.write_text(json.dumps(payload))
        log = Path(scratch, "stderr.log")
        argv = dies_with_parent([sys.executable, "-m", "res_repro.simulation.server", str(spec)])
        with log.open("w") as errors:
            process = subprocess.Popen(
                argv, stdout=subprocess.PIPE, stderr=errors, text=True, env=minimal_env(_pythonpath())
            )
        try:
            line = process.stdout.readline() if process.stdout else ""
            if not line.startswith("listening "):
                process.wait(timeout=STOP_GRACE_S)
                raise SimulatorError(
                    f"the simulator did not start: {log.read_text().strip()[-2000:] or line}"
                )
            yield Simulator(process, f"http://127.0.0.1:{int(line.split()[1])}/v1")
        finally:
            process.terminate()
            try:
                process.wait(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _pythonpath() -> dict[str, str]:
    """PYTHONPATH holding this checkout of the package, so the child imports the same code."""
    return {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}
