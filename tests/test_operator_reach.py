"""``res-repro operators TARGET``: for each operator, how many tasks of a benchmark it would change."""

from __future__ import annotations

from cli_runs import run_in_process

from res_repro.benchmarks.registry import load_benchmark
from res_repro.pipelines.operator_reach import operator_reach
from res_repro.res.operators import OPERATORS


def test_every_operator_of_the_tasks_kind_is_counted(tmp_path):
    tasks = load_benchmark("claw_bundled", generated_dir=tmp_path / "generated")
    reach = operator_reach(tasks)
    assert reach.tasks == {"tool": len(tasks)}
    tool_operators = {name for name, op in OPERATORS.items() if op.kind == "tool"}
    assert {row[0] for row in reach.table().rows} == tool_operators  # no Harbor operator: no Harbor task
    assert all(0 <= reach.applies[name] <= len(tasks) for name in tool_operators)
    assert reach.applies["paginate"] == len(tasks)  # every bundled Claw-style task lists something
    assert reach.applies["retire_search"] < len(tasks)  # only tasks with a search tool


def test_the_command_prints_the_table(tmp_path, capsys):
    status, out, err = run_in_process(["operators", "terminal_bundled"], capsys)
    assert status == 0, err
    assert "| operator | family | kind | applies to |" in out
    assert "paginate" not in out  # tool operators have no Harbor task to act on
    assert "Tasks: " in out and " harbor." in out
