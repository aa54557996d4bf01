"""Helpers for the fault-injection tests: what is left running on the host, and a scripted agent."""

from __future__ import annotations

import os
import random
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from res_repro.agents.base import Agent, Attempt
from res_repro.env.environment import Environment
from res_repro.env.outcome import AgentOutcome, StopReason
from res_repro.env.task import Task
from res_repro.env.tools import ToolCall

Step = Callable[[Environment], Any]

# How long the polling helpers wait for a condition: they return as soon as it holds, so a generous
# deadline costs nothing when things work and keeps a loaded machine from failing a test.
DEADLINE_S = 30.0


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of a process, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return int(fields[1]), fields[0]


def descendants(root: int | None = None) -> list[int]:
    """Live (not zombie) processes below ``root`` (default: this test process) on the host."""
    root = os.getpid() if root is None else root
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (info := _stat(int(entry.name))) and info[1] != "Z":
            parents[int(entry.name)] = info[0]
    found, frontier = [], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


def wait_for_no_descendants(within: float = DEADLINE_S) -> list[int]:
    """Poll until this process has no live descendants; return those left after ``within`` seconds."""
    deadline = time.monotonic() + within
    while (left := descendants()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def sleep_marker() -> tuple[str, bytes]:
    """A ``sleep`` with a unique duration, and its command line as /proc shows it."""
    seconds = str(random.randrange(10_000_000, 99_999_999))
    return f"sleep {seconds}", b"sleep\0" + seconds.encode() + b"\0"


def host_pids_with(cmdline: bytes) -> list[int]:
    """Host processes (containers' included) whose command line is exactly ``cmdline``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes() == cmdline:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def wait_until_gone(cmdline: bytes, within: float = DEADLINE_S) -> list[int]:
    """Poll until no host process has ``cmdline``; return the survivors after ``within`` seconds."""
    deadline = time.monotonic() + within
    while (alive := host_pids_with(cmdline)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def wait_until_removed(paths: Sequence[Path], within: float = DEADLINE_S) -> list[Path]:
    """Poll until none of ``paths`` exists (a closed sandbox's cgroup and folders are removed in the
    background); return those left after ``within`` seconds."""
    deadline = time.monotonic() + within
    while (left := [path for path in paths if path.exists()]) and time.monotonic() < deadline:
        time.sleep(0.01)
    return left


def wait_until_present(cmdline: bytes, within: float = DEADLINE_S, count: int = 1) -> bool:
    """Poll until at least ``count`` host processes have ``cmdline``; return whether they appeared
    within ``within`` seconds."""
    deadline = time.monotonic() + within
    while len(host_pids_with(cmdline)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return len(host_pids_with(cmdline)) >= count


def container_exists(container_id: str) -> bool:
    """Whether Docker still has the container (running or not)."""
    listed = subprocess.run(
        ["docker", "ps", "-a", "-q", "--no-trunc", "--filter", f"id={container_id}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return bool(listed.stdout.strip())


class ScriptedFaultAgent(Agent):
    """Runs a fixed list of steps per task id (tool calls, or anything done to the environment).

    Each step's result is kept as a message; ``runs`` counts the attempts per task id, so a test can
    see how often the runner retried.
    """

    name = "scripted-faults"

    def __init__(self, scripts: Mapping[str, Sequence[Step | ToolCall]]) -> None:
        self.scripts = scripts
        self.runs: Counter[str] = Counter()

    def run(self, task: Task, environment: Environment, attempt: Attempt) -> AgentOutcome:
        """Play the task's script and answer ``done``."""
        self.runs[task.task_id] += 1
        messages: list[dict[str, Any]] = []
        calls = 0
        for step in self.scripts[task.task_id]:
            if isinstance(step, ToolCall):
                calls += 1
                response = environment.call(step)
                messages.append(
                    {"role": "tool", "name": step.tool, "status": response.status, "content": response.text()}
                )
            else:
                step(environment)
        return AgentOutcome(
            StopReason.ANSWERED, answer="done", turns=len(messages), tool_calls=calls, messages=messages
        )


def port_is_free(port: int) -> bool:
    """True when a new server could listen on ``port`` (connections in TIME_WAIT do not count)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True
