"""The simulator's HTTP server: ``python -m res_repro.simulation.server SPEC`` serves on a free loopback
port, prints ``listening PORT`` once ready, and answers ``POST /v1/chat/completions`` until it is killed.

``SPEC`` is a JSON file: ``seed`` and ``operators_per_child`` (the proposer's), and ``tasks``, the seed
tasks as ``{"path", "benchmark", "kind", "context"}`` (loaded through the format registry).
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

from res_repro.env.formats import load_task_dir
from res_repro.simulation.explorers import TIERS, ExplorerModels
from res_repro.simulation.http import serve
from res_repro.simulation.proposer import MODEL as PROPOSER
from res_repro.simulation.proposer import ProposerModel
from res_repro.simulation.timing import Timing
from res_repro.simulation.wire import RequestError, completion


class Simulation:
    """The simulated models by name, their timing, and a count of the requests answered."""

    def __init__(
        self,
        explorers: ExplorerModels,
        proposer: ProposerModel,
        timing: dict[str, Timing] | None = None,
        seed: int = 0,
    ) -> None:
        self.explorers = explorers
        self.proposer = proposer
        self.timing = timing or {}
        self.seed = seed
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()

    def respond(self, body: dict[str, Any]) -> dict[str, Any]:
        """The chat completion answering ``body`` (after the model's answer time); :class:`RequestError`
        for what cannot be answered, :class:`RateLimited` beyond the model's rate limit."""
        model = body.get("model")
        timing = self.timing.get(str(model))
        if timing is not None:
            timing.admit(str(model))
        started = time.monotonic()
        if model == PROPOSER:
            answer = self.proposer.answer(body)
        elif model in TIERS:
            answer = self.explorers.answer(body)
        else:
            raise RequestError(f"unknown model {model!r}; expected one of {sorted([*TIERS, PROPOSER])}")
        with self._lock:
            number = next(self._numbers)
        if timing is not None:  # the answer time includes the time spent computing it
            time.sleep(max(0.0, timing.latency(self.seed, str(model), number) - (time.monotonic() - started)))
        return completion(body, answer, number)


def load_simulation(spec: dict[str, Any]) -> Simulation:
    """The simulation a spec describes."""
    tasks = [
        load_task_dir(item["path"], item["benchmark"], kind=item["kind"], context=item.get("context"))
        for item in spec["tasks"]
    ]
    timing = {model: Timing.from_spec(fields) for model, fields in spec.get("timing", {}).items()}
    return Simulation(
        ExplorerModels(tasks), ProposerModel(spec["seed"], spec["operators_per_child"]), timing, spec["seed"]
    )


def main(argv: list[str]) -> None:
    """Serve the simulation described by the spec file ``argv[0]`` on a free loopback port."""
    serve(load_simulation(json.loads(Path(argv[0]).read_text())))


if __name__ == "__main__":
    main(sys.argv[1:])
