"""Sandbox overheads: start, one-process exec, persistent-shell exec and close, per backend.

Run as ``python benchmarks/bench_sandbox.py [--repeat N]``. Every figure is the median of repeated runs
(start and close: N runs; exec and shell: 5N runs) and is compared with a baseline, a plain
``subprocess.run(["true"])`` fork/exec on the host. The Docker backend uses the busybox image built from
the host's static busybox and is skipped, with the reason, when no engine is reachable.

The Docker exec figure is a whole command (``sandbox.exec("true")``, the way tools run one), printed
with its ratio to the local persistent shell's exec, its target (at least 10x faster than the 60 ms a
command cost as three engine API calls) and a verdict; the API-call path is measured beside it.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass

from verdicts import MET, at_most

from res_repro.sandbox import SandboxError, SandboxSpec, make_sandbox
from res_repro.sandbox.docker import DockerSandbox

BASELINE = 'subprocess.run(["true"]) on the host'
SHELL_TARGET_MS = 2.0  # median persistent local shell exec
OLD_DOCKER_EXEC_MS = 60.0  # a Docker command as three engine API calls (exec create, start, inspect)
DOCKER_SPEEDUP = 10.0  # the Docker command must be at least this much faster than that
DOCKER_EXEC_TARGET_MS = OLD_DOCKER_EXEC_MS / DOCKER_SPEEDUP
SHELL_OP = "shell exec true (persistent)"
COMMAND_OP = 'exec "true" (a command)'


@dataclass(frozen=True)
class Figure:
    """One measured operation: its median in milliseconds and the target it should meet, if any."""

    backend: str
    operation: str
    median_ms: float
    target_ms: float | None = None

    def line(self, baseline_ms: float) -> str:
        """A table row with the ratio to the baseline and the target verdict."""
        if self.target_ms is None:
            target = "-"
        else:
            target = f"<= {self.target_ms:g} ms: {at_most(self.median_ms, self.target_ms)}"
        ratio = f"{self.median_ms / baseline_ms:.1f}x"
        return f"{self.backend:<8} {self.operation:<30} {self.median_ms:>9.2f} ms {ratio:>11}   {target}"


def docker_exec_verdict(command_ms: float, local_shell_ms: float) -> tuple[bool, str]:
    """Whether a Docker command's median meets :data:`DOCKER_EXEC_TARGET_MS`, and the line that says so
    with its ratio to the local persistent shell's exec."""
    verdict = at_most(command_ms, DOCKER_EXEC_TARGET_MS)
    met = verdict == MET
    speedup = OLD_DOCKER_EXEC_MS / command_ms if command_ms > 0 else float("inf")
    return met, (
        f"docker exec as a command: {command_ms:.2f} ms, {command_ms / local_shell_ms:.1f}x the local shell "
        f"exec ({local_shell_ms:.2f} ms), {speedup:.1f}x faster than the old {OLD_DOCKER_EXEC_MS:g} ms; "
        f"target <= {DOCKER_EXEC_TARGET_MS:g} ms ({DOCKER_SPEEDUP:g}x faster): {verdict}"
    )


def median_ms(action: Callable[[], object], runs: int) -> float:
    """The median wall time of ``action`` over ``runs`` calls, in milliseconds."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def lifecycle_ms(backend: str, spec: SandboxSpec, runs: int) -> tuple[float, float]:
    """Median start and close times of fresh sandboxes, in milliseconds."""
    starts, closes = [], []
    for _ in range(runs):
        sandbox = make_sandbox(backend, spec)
        started = time.perf_counter()
        sandbox.start()
        starts.append(time.perf_counter() - started)
        started = time.perf_counter()
        sandbox.close()
        closes.append(time.perf_counter() - started)
    return statistics.median(starts) * 1000, statistics.median(closes) * 1000


def measure(backend: str, spec: SandboxSpec, repeat: int) -> list[Figure]:
    """All figures of one backend."""
    start_ms, close_ms = lifecycle_ms(backend, spec, repeat)
    extra: list[Figure] = []
    with make_sandbox(backend, spec) as sandbox:
        sandbox.exec(["true"], 30)
        exec_ms = median_ms(lambda: sandbox.exec(["true"], 30), 5 * repeat)
        command_ms = median_ms(lambda: sandbox.exec("true", 30), 5 * repeat)
        shell = sandbox.shell()
        shell.run("true", 30)
        shell_ms = median_ms(lambda: shell.run("true", 30), 5 * repeat)
        if isinstance(sandbox, DockerSandbox):
            api_ms = median_ms(lambda: sandbox.run_quietly(["true"]), 5 * repeat)
            extra.append(Figure(backend, "API exec true (3 engine calls)", api_ms))
    shell_target = SHELL_TARGET_MS if backend == "local" else None
    command_target = DOCKER_EXEC_TARGET_MS if backend == "docker" else None
    return [
        Figure(backend, "start", start_ms),
        Figure(backend, "exec true (one process)", exec_ms),
        Figure(backend, COMMAND_OP, command_ms, command_target),
        *extra,
        Figure(backend, SHELL_OP, shell_ms, shell_target),
        Figure(backend, "close", close_ms),
    ]


def docker_spec() -> SandboxSpec:
    """The spec for the Docker runs (raises SandboxError when there is no engine or no busybox)."""
    from res_repro.sandbox.images import ensure_busybox_image

    return SandboxSpec(docker_image=ensure_busybox_image())


def main(argv: list[str] | None = None) -> int:
    """Measure both backends and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="runs of start/close (exec and shell: 5x)")
    args = parser.parse_args(argv)
    baseline_ms = median_ms(lambda: subprocess.run(["true"], check=True), 5 * args.repeat)
    print(f"medians of {args.repeat} runs (exec and shell: {5 * args.repeat} runs)")
    print(f"baseline: {BASELINE}: {baseline_ms:.2f} ms\n")
    print(f"{'backend':<8} {'operation':<30} {'median':>12} {'vs baseline':>11}   target")
    local = measure("local", SandboxSpec(), args.repeat)
    for figure in local:
        print(figure.line(baseline_ms))
    try:
        spec = docker_spec()
    except SandboxError as exc:
        print(f"docker   skipped: {exc}")
        return 0
    docker = measure("docker", spec, args.repeat)
    for figure in docker:
        print(figure.line(baseline_ms))
    _, verdict = docker_exec_verdict(median_of(docker, COMMAND_OP), median_of(local, SHELL_OP))
    print(f"\n{verdict}")
    return 0


def median_of(figures: list[Figure], operation: str) -> float:
    """The median of the figure named ``operation``."""
    return next(figure.median_ms for figure in figures if figure.operation == operation)


if __name__ == "__main__":
    raise SystemExit(main())
