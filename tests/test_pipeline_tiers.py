"""The pipelines' tiers: no module imports a result module (a paper result registered in PIPELINES)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from res_repro.pipelines import PIPELINES

PACKAGE = "res_repro.pipelines"
FOLDER = Path(__file__).resolve().parents[1] / "res_repro" / "pipelines"
RESULTS = {target.partition(":")[0].removeprefix(f"{PACKAGE}.") for target in PIPELINES.values()}


def imported(path: Path) -> set[str]:
    """The ``res_repro.pipelines`` modules that ``path`` imports, by their short name."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(f"{PACKAGE}."):
            found.add(node.module.removeprefix(f"{PACKAGE}."))
        elif isinstance(node, ast.ImportFrom) and node.module == PACKAGE:
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix(f"{PACKAGE}.") for a in node.names if a.name.startswith(PACKAGE)}
    return found


@pytest.mark.parametrize("path", sorted(FOLDER.glob("*.py")), ids=lambda p: p.stem)
def test_no_module_imports_a_result(path):
    assert not imported(path) & RESULTS, f"{path.stem} imports a result module; move what it needs to a view"


def test_every_result_is_a_module_of_the_folder():
    assert {path.stem for path in FOLDER.glob("*.py")} >= RESULTS
