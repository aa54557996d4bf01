"""The task-format registry: one format per directory, copies load like their originals, and nothing
outside the registry branches on a format's name."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
from scalers import build_scaler
from task_factory import make_task
from tool_factory import make_tool_task

import res_repro
from res_repro.env.errors import TaskFormatError
from res_repro.env.formats import FORMATS, detect_format, format_of, load_copy, load_path, load_task_dir
from res_repro.res.lineage import LineageStore
from res_repro.res.scaling import root_node

CHECKOUT = Path(__file__).parent / "fixtures" / "claw_eval_live" / "checkout"
PACKAGE = Path(res_repro.__file__).parent
FORMATS_DIR = PACKAGE / "env" / "formats"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A fresh copy of the test checkout."""
    return Path(shutil.copytree(CHECKOUT, tmp_path / "Claw-Eval-Live"))


@pytest.fixture
def task_dirs(tmp_path: Path, checkout: Path) -> dict[str, Path]:
    """One task directory of each built-in format."""
    return {
        "harbor": make_task(tmp_path / "harbor"),
        "tool": make_tool_task(tmp_path / "tool"),
        "claw_eval_live": sorted((checkout / "tasks").iterdir())[0],
    }


def test_exactly_one_format_recognises_each_kind_of_directory(task_dirs: dict[str, Path]) -> None:
    assert set(task_dirs) == set(FORMATS)
    for name, path in task_dirs.items():
        assert [f.name for f in FORMATS.values() if f.detect(path)] == [name]
        task = load_task_dir(path)
        assert task.kind == name and format_of(task) is FORMATS[name]


def test_a_folder_of_claw_eval_live_tasks_loads_with_its_checkout(checkout: Path) -> None:
    tasks = load_path(checkout / "tasks")
    assert [t.kind for t in tasks] == ["claw_eval_live"] * 2
    assert {t.config.checkout for t in tasks} == {checkout.resolve()}


def test_a_claw_eval_live_copy_needs_its_checkout_named(checkout: Path, tmp_path: Path) -> None:
    original = load_path(checkout / "tasks")[0]
    copy = Path(shutil.copytree(original.path, tmp_path / "elsewhere" / "copy"))
    assert detect_format(copy) is FORMATS["claw_eval_live"]
    with pytest.raises(TaskFormatError, match="outside a checkout"):
        load_task_dir(copy)
    reloaded = load_copy(original, copy)
    assert (reloaded.kind, reloaded.config.checkout) == ("claw_eval_live", original.config.checkout)
    assert reloaded.config.threshold == original.config.threshold


def test_a_lineage_of_a_claw_eval_live_task_reloads_with_its_format(checkout: Path, tmp_path: Path) -> None:
    task = load_path(checkout / "tasks")[0]
    store = LineageStore(tmp_path / "lineages")
    root = root_node(task, store)
    loaded = store.load(task.task_id, root.manifest.node_id)
    assert loaded is not None
    assert (loaded.task.kind, loaded.task.config.checkout) == ("claw_eval_live", checkout.resolve())
    assert loaded.manifest.context["checkout"] == str(checkout.resolve())


@pytest.mark.slow  # end to end: a CLI run or a scaled lineage
def test_a_claw_eval_live_task_scales_through_the_tool_operators(checkout: Path, tmp_path: Path) -> None:
    task = load_path(checkout / "tasks")[0]
    scaler = build_scaler(
        tmp_path / "lineages", depth_cap=2, inheritance=True, composition=True, max_revisions=3
    )
    result = scaler.scale(task)
    assert result.stop_reason == "depth_cap" and len(result.nodes) == 3
    last = result.nodes[-1]
    assert last.task.kind == "claw_eval_live" and last.task.config.checkout == checkout.resolve()
    assert [c["name"] for c in last.manifest.checks if not c["passed"]] == []
    added = last.task.config.spec.res_repro
    assert last.task.config.spec.middleware or added.tools  # the change sits between agent and services
    original = (checkout / "tasks" / task.path.name / "task.yaml").read_text()
    assert (task.path / "task.yaml").read_text() == original  # the checkout itself is never edited


def _format_names() -> set[str]:
    return set(FORMATS)


def _branches_on_a_format_name(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines comparing something's ``kind`` with a format's name (``x.kind == "harbor"`` and the like)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        mentions_kind = any(isinstance(o, ast.Attribute) and o.attr == "kind" for o in operands)
        literal = any(isinstance(o, ast.Constant) and o.value in names for o in operands)
        if mentions_kind and literal:
            found.append(node.lineno)
    return found


def test_nothing_outside_the_registry_branches_on_a_format_name() -> None:
    names = _format_names()
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if FORMATS_DIR in path.parents or "bundled" in path.parts:
            continue
        lines = _branches_on_a_format_name(ast.parse(path.read_text(encoding="utf-8")), names)
        offenders += [f"{path.relative_to(PACKAGE)}:{line}" for line in lines]
    assert offenders == []


def test_the_branch_detector_finds_a_branch() -> None:
    tree = ast.parse('if task.kind == "harbor":\n    pass\nelif "tool" != draft.kind:\n    pass\n')
    assert _branches_on_a_format_name(tree, _format_names()) == [1, 3]
