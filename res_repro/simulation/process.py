"""Starting and stopping the loopback servers: each a child process on a free loopback port that dies
with the harness. The simulator serves the scripted programs as models; the checkpoint server serves
fine-tuned checkpoints."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from res_repro.env.formats import format_of
from res_repro.env.processes import dies_with_parent, minimal_env
from res_repro.env.task import Task

STOP_GRACE_S = 5.0


class SimulatorError(RuntimeError):
    """A loopback server did not start."""


@dataclass(frozen=True)
class LoopbackServer:
    """A running loopback server: its process and the OpenAI-compatible base URL it serves."""

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
def loopback_server(module: str, spec: Mapping[str, Any], *, what: str) -> Iterator[LoopbackServer]:
    """Run ``python -m module SPEC`` (``spec`` written as JSON) while the block runs and yield its URL
    once it prints ``listening PORT``; it is stopped on the way out, and the kernel kills it if the
    harness dies first. ``what`` names the server in the error raised when it does not start."""
    with tempfile.TemporaryDirectory(prefix="res-loopback-") as scratch:
        spec_file = Path(scratch, "spec.json")
        spec_file.write_text(json.dumps(spec))
        log = Path(scratch, "stderr.log")
        argv = dies_with_parent([sys.executable, "-m", module, str(spec_file)])
        with log.open("w") as errors:
            process = subprocess.Popen(
                argv, stdout=subprocess.PIPE, stderr=errors, text=True, env=minimal_env(_pythonpath())
            )
        try:
            line = process.stdout.readline() if process.stdout else ""
            if not line.startswith("listening "):
                process.wait(timeout=STOP_GRACE_S)
                raise SimulatorError(f"{what} did not start: {log.read_text().strip()[-2000:] or line}")
            yield LoopbackServer(process, f"http://127.0.0.1:{int(line.split()[1])}/v1")
        finally:
            process.terminate()
            try:
                process.wait(timeout=STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextmanager
def simulator(
    tasks: Sequence[Task],
    *,
    seed: int,
    operators_per_child: int,
    timing: Mapping[str, Mapping[str, Any]] | None = None,
) -> Iterator[LoopbackServer]:
    """Run the simulator over the seed ``tasks`` while the block runs; ``timing`` gives a model (by its
    id) an answer time and a rate limit (:class:`~res_repro.simulation.timing.Timing`'s fields)."""
    spec = {
        "seed": seed,
        "operators_per_child": operators_per_child,
        "tasks": [task_spec(t) for t in tasks],
        "timing": {model: dict(fields) for model, fields in (timing or {}).items()},
    }
    with loopback_server("res_repro.simulation.server", spec, what="the simulator") as running:
        yield running


@contextmanager
def checkpoint_server(checkpoints: Mapping[str, Path], *, max_new_tokens: int) -> Iterator[LoopbackServer]:
    """Serve each checkpoint directory under its model name (``checkpoints``: name -> directory) while the
    block runs; no reply is longer than ``max_new_tokens``."""
    spec = {
        "checkpoints": {name: str(path) for name, path in checkpoints.items()},
        "max_new_tokens": max_new_tokens,
    }
    with loopback_server("res_repro.simulation.checkpoint", spec, what="the checkpoint server") as running:
        yield running


def _pythonpath() -> dict[str, str]:
    """PYTHONPATH holding this checkout of the package, so the child imports the same code."""
    return {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}
