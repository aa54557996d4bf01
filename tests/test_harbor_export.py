"""`res-repro export-harbor`: scaled environments and task folders out as a Harbor dataset that Harbor's
own task loader accepts (Harbor 0.25 in a Python 3.12 environment of its own, made once under .cache/)."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import pytest
from scalers import build_scaler

from res_repro.benchmarks.registry import BUNDLED_DIR
from res_repro.env.formats import load_path
from res_repro.res.harbor_export import export_harbor
from res_repro.res.operators.harbor_operators import HARBOR_OPERATORS

ROOT = Path(__file__).resolve().parents[1]
TERMINAL = BUNDLED_DIR / "terminal"
SEEDS = ("csv-sales-summary", "wordfreq-cli")

# Loads every task directory under argv[1] with Harbor's Task model; prints one line per failure.
HARBOR_LOADER = """
import sys
from pathlib import Path
from harbor.models.task.task import Task
failed = 0
for task_dir in sorted(p for p in Path(sys.argv[1]).iterdir() if p.is_dir()):
    try:
        Task(task_dir)
    except Exception as exc:
        failed += 1
        print(f"{task_dir.name}: {type(exc).__name__}: {exc}")
sys.exit(1 if failed else 0)
"""


def _metadata(task_dir: Path) -> dict:
    return tomllib.loads((task_dir / "task.toml").read_text())["metadata"]["res_repro"]


@pytest.fixture(scope="module")
def lineage_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Lineages of two bundled terminal tasks, two levels deep (programmatic proposer, no target)."""
    root = tmp_path_factory.mktemp("lineages")
    scaler = build_scaler(
        root,
        depth_cap=2,
        operators=[op.name for op in HARBOR_OPERATORS],
        inheritance=True,
        composition=True,
        max_revisions=2,
    )
    tasks = {task.task_id: task for task in load_path(TERMINAL)}
    for seed in SEEDS:
        assert scaler.scale(tasks[seed]).stop_reason == "depth_cap"
    return root


@pytest.fixture(scope="module")
def bundled_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled terminal suite exported as a Harbor dataset."""
    out = tmp_path_factory.mktemp("bundled-export") / "bundled"
    export_harbor(TERMINAL, out)
    return out


@pytest.fixture(scope="module")
def exported(
    lineage_store: Path, bundled_export: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """The store exported twice (lineage ends, every node) beside the bundled suite's export."""
    out = tmp_path_factory.mktemp("exports")
    export_harbor(lineage_store, out / "ends")
    export_harbor(lineage_store, out / "all", every_node=True)
    return {"ends": out / "ends", "all": out / "all", "bundled": bundled_export}


@pytest.mark.slow  # end to end: a CLI run or a scaled lineage
def test_each_lineage_exports_its_last_node_under_a_unique_name(exported: dict[str, Path]) -> None:
    ends = sorted(p.name for p in exported["ends"].iterdir())
    assert [name.rsplit("-d", 1)[0] for name in ends] == list(SEEDS)
    assert all("-d2-" in name for name in ends)
    every = {p.name: _metadata(p) for p in exported["all"].iterdir()}
    assert len(every) == 6 and {m["depth"] for m in every.values()} == {0, 1, 2}
    by_node = {m["node"]: m for m in every.values()}
    for meta in every.values():
        assert meta["depth"] == 0 or by_node[meta["parent"]]["depth"] == meta["depth"] - 1
        assert len(meta["operators"]) == meta["depth"]  # one change per level, recorded since E0
    reloaded = load_path(exported["all"])
    assert len({task.task_id for task in reloaded}) == 6  # seed and children never collide


def test_exported_tasks_are_harbor_packages_this_harness_still_runs(bundled_export: Path) -> None:
    for task in load_path(bundled_export):
        toml = tomllib.loads((task.path / "task.toml").read_text())
        assert toml["schema_version"] == "1.4"
        assert toml["task"]["name"] == f"res-repro/{task.task_id}"
        assert "timeout_sec" not in toml.get("solution", {})
        assert toml["environment"]["network_mode"] == "no-network"
        assert toml["metadata"]["res_repro"]["solution_timeout_sec"] == 120.0  # kept, where Harbor allows it
        assert task.config.solution_timeout_sec == 120.0  # and read back


def test_export_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    with pytest.raises(Exception, match="not empty"):
        export_harbor(TERMINAL, tmp_path / "out")


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_harbor_loads_and_lints_every_exported_task(exported: dict[str, Path]) -> None:
    made = subprocess.run(
        ["bash", str(ROOT / "scripts" / "harbor_venv.sh")], capture_output=True, text=True, timeout=840
    )
    if made.returncode != 0:
        if os.environ.get("CI") == "true":
            pytest.fail(f"no Harbor environment: {made.stderr[-2000:]}")
        pytest.skip(f"no Harbor environment: {made.stderr.strip()[-300:]}")
    python = made.stdout.strip().splitlines()[-1]
    harbor = str(Path(python).with_name("harbor"))
    for name, folder in exported.items():
        loaded = subprocess.run([python, "-c", HARBOR_LOADER, str(folder)], capture_output=True, text=True)
        assert loaded.returncode == 0, f"{name}: {loaded.stdout}{loaded.stderr[-2000:]}"
        dirs = sorted(str(p) for p in folder.iterdir() if p.is_dir())
        # shared-verifier is a recommendation: these verifiers read the agent's sandbox by design
        lint = subprocess.run(
            [harbor, "lint", "--ignore", "shared-verifier", *dirs], capture_output=True, text=True
        )
        assert lint.returncode == 0, f"{name}: {lint.stdout}{lint.stderr[-2000:]}"
