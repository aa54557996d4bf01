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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from res_repro.env.formats import load_task_dir
from res_repro.simulation.explorers import TIERS, ExplorerModels, RequestError
from res_repro.simulation.proposer import MODEL as PROPOSER
from res_repro.simulation.proposer import ProposerModel
from res_repro.simulation.wire import completion

ROUTE = "/v1/chat/completions"


class Simulation:
    """The simulated models by name, and a count of the requests answered."""

    def __init__(self, explorers: ExplorerModels, proposer: ProposerModel) -> None:
        self.explorers = explorers
        self.proposer = proposer
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()

    def respond(self, body: dict[str, Any]) -> dict[str, Any]:
        """The chat completion answering ``body``; :class:`RequestError` for what cannot be answered."""
        model = body.get("model")
        if model == PROPOSER:
            answer = self.proposer.answer(body)
        elif model in TIERS:
            answer = self.explorers.answer(body)
        else:
            raise RequestError(f"unknown model {model!r}; expected one of {sorted([*TIERS, PROPOSER])}")
        with self._lock:
            number = next(self._numbers)
        return completion(body, answer, number)


def load_simulation(spec: dict[str, Any]) -> Simulation:
    """The simulation a spec describes."""
    tasks = [
        load_task_dir(item["path"], item["benchmark"], kind=item["kind"], context=item.get("context"))
        for item in spec["tasks"]
    ]
    return Simulation(ExplorerModels(tasks), ProposerModel(spec["seed"], spec["operators_per_child"]))


def handler(simulation: Simulation) -> type[BaseHTTPRequestHandler]:
    """A request handler answering chat completions from ``simulation``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path.rstrip("/") != ROUTE:
                return self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
                self._send(200, simulation.respond(body))
            except Exception as exc:  # an unanswerable request fails alone; the server keeps serving
                message = str(exc) if isinstance(exc, RequestError) else f"{type(exc).__name__}: {exc}"
                self._send(400, {"error": {"message": message, "type": "invalid_request_error"}})

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the harness records what matters."""

    return Handler


def main(argv: list[str]) -> None:
    """Serve the simulation described by the spec file ``argv[0]`` on a free loopback port."""
    simulation = load_simulation(json.loads(Path(argv[0]).read_text()))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(simulation))
    server.daemon_threads = True
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
