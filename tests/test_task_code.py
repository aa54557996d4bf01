"""Python files that ship with tasks load as fresh modules that behave like ordinary ones."""

from __future__ import annotations

from pathlib import Path

from res_repro.env.task_code import call_solve, load_function

PROGRAM = """
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Finding:
    name: str
    amount: float


def solve(call, instruction):
    return Finding(instruction, call("total")).amount
"""


def test_a_reference_program_may_define_dataclasses_and_read_the_instruction(tmp_path: Path) -> None:
    path = tmp_path / "solve.py"
    path.write_text(PROGRAM)
    solve = load_function(path, "solve")
    assert call_solve(solve, lambda tool: 42.0 if tool == "total" else None, "the prompt") == 42.0
    assert call_solve(lambda call: call("x"), lambda tool: tool.upper(), "ignored") == "X"
