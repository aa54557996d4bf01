"""Builds small Harbor task directories for tests."""

from __future__ import annotations

from pathlib import Path

TASK_TOML = """\
[task]
name = "{name}"
version = "1.0"

[metadata]
category = "shell"
difficulty = "easy"
tags = ["test"]

[verifier]
timeout_sec = 30

[agent]
timeout_sec = 60

[environment]
allow_internet = false

[solution]
timeout_sec = 30
"""

PASS_IF_DONE = """\
#!/bin/bash
mkdir -p /logs/verifier
if [ "$(cat /app/out.txt 2>/dev/null)" = "done" ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
"""


def make_task(
    root: Path,
    name: str = "write-done",
    *,
    solve: str = "echo done > /app/out.txt\n",
    test: str = PASS_IF_DONE,
    toml: str | None = None,
    image: str = "res-repro/busybox:local",
) -> Path:
    """Write a minimal Harbor task whose verifier passes when /app/out.txt says ``done``; its environment
    builds ``FROM image``."""
    task = root / name
    (task / "environment" / "workspace").mkdir(parents=True)
    (task / "environment" / "workspace" / "README").write_text("start here\n")
    (task / "environment" / "Dockerfile").write_text(f"FROM {image}\nWORKDIR /app\n")
    (task / "solution").mkdir()
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\n" + solve)
    (task / "tests").mkdir()
    (task / "tests" / "test.sh").write_text(test)
    (task / "instruction.md").write_text("Write the word done into /app/out.txt.\n")
    (task / "task.toml").write_text(toml if toml is not None else TASK_TOML.format(name=name))
    return task
