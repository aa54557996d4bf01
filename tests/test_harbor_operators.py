"""The Harbor operator library: each change passes the execution-grounded checks, composes, and is seeded."""

from __future__ import annotations

import random
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from scalers import build_scaler

from res_repro.benchmarks.registry import load_benchmark
from res_repro.env.formats import load_task_dir
from res_repro.env.formats.harbor import PRELUDE_DIR, HarborDraft
from res_repro.env.task import Task, hash_tree
from res_repro.res.checks import run_checks
from res_repro.res.graph import DependencyGraph
from res_repro.res.operators import OPERATORS, Application, Family
from res_repro.res.operators.harbor_common import TAGGED, mentioned, task_text, workspace_files
from res_repro.res.operators.harbor_operators import HARBOR_OPERATORS

NAMES = [op.name for op in HARBOR_OPERATORS]
PHOTO = "photos/My Album/beach 1.jpg"  # a path with a space, two folders down


@cache
def seed(task_id: str) -> Task:
    """A bundled terminal task."""
    return next(t for t in load_benchmark("terminal_bundled") if t.task_id == task_id)


def copy(task: Task, dest: Path) -> HarborDraft:
    """An editable copy of a task directory."""
    shutil.copytree(task.path, dest, symlinks=True)
    return HarborDraft(dest)


def change(draft: HarborDraft, name: str, params: dict[str, Any], graph: DependencyGraph) -> Application:
    """Apply one operator to the draft; the application it makes."""
    operator = OPERATORS[name]
    assert operator.validate(params) is None
    edges = operator.apply(draft, params, graph)
    return Application(name, operator.family.value, params, tuple(edges))


def failures(parent: Task, draft: HarborDraft, application: Application, graph: DependencyGraph) -> dict:
    """The checks the candidate fails, by name."""
    child = load_task_dir(draft.root, benchmark=parent.benchmark)
    results = run_checks(
        parent, child, [application], graph.extend(application.edges), draft, backend="local"
    )
    return {r.name: r.detail for r in results if not r.passed}


def test_the_library_spans_the_three_families():
    assert len(HARBOR_OPERATORS) >= 9
    assert len(set(NAMES)) == len(NAMES)
    for family in Family:
        assert sum(op.family == family for op in HARBOR_OPERATORS) >= 3, family
    for operator in HARBOR_OPERATORS:
        assert operator.kind == "harbor" and operator.description
        assert operator.params_schema["additionalProperties"] is False
        assert OPERATORS[operator.name] is operator


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_each_operator_passes_every_check(tmp_path, name):
    parent = seed("csv-sales-summary")
    draft = copy(parent, tmp_path / "child")
    params = OPERATORS[name].propose(draft, DependencyGraph(), random.Random(0))
    assert params is not None
    application = change(draft, name, params, DependencyGraph())
    assert OPERATORS[name].applied(draft, params) is None
    assert failures(parent, draft, application, DependencyGraph()) == {}


@pytest.mark.parametrize(
    ("name", "params"),
    [
        (
            "archive_inputs",
            {"files": [PHOTO, "photos/2023/07 summer/sunset copy.jpg"], "archive": "in-1.tar.gz"},
        ),
        ("encode_file", {"file": PHOTO, "scheme": "xor", "key": "a1b2", "tag": "0000a1"}),
        ("split_parts", {"file": PHOTO, "parts": 4, "tag": "0000a2"}),
        ("opaque_rename", {"files": [PHOTO], "tag": "0000a3"}),
        ("stale_copies", {"file": PHOTO, "copies": 4, "current": 2, "tag": "0000a4"}),
        ("alias_chain", {"file": PHOTO, "hops": 3, "tag": "0000a5"}),
        ("setup_gate", {"file": PHOTO, "tag": "0000a6", "key": "0f0e", "tool": "bin/fetch-0000a6"}),
        (
            "broken_helper",
            {"file": PHOTO, "tag": "0000a7", "key": "7777", "tool": "bin/restore-0000a7", "fault": "key"},
        ),
    ],
)
@pytest.mark.slow
def test_operators_handle_nested_paths_with_spaces(tmp_path, name, params):
    parent = seed("find-duplicate-files")
    draft = copy(parent, tmp_path / "child")
    application = change(draft, name, params, DependencyGraph())
    assert OPERATORS[name].applied(draft, params) is None
    assert failures(parent, draft, application, DependencyGraph()) == {}


def test_text_operators_apply_to_text_inputs(tmp_path):
    parent = seed("request-trace")
    for index, (name, params) in enumerate(
        [
            ("transcode_text", {"file": "logs/auth.log", "form": "utf-16", "tag": "0000b1"}),
            ("include_fragments", {"file": "logs/orders.log", "cut": 0.1, "tag": "0000b2"}),
        ]
    ):
        draft = copy(parent, tmp_path / f"child{index}")
        application = change(draft, name, params, DependencyGraph())
        assert OPERATORS[name].applied(draft, params) is None
        assert failures(parent, draft, application, DependencyGraph()) == {}


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("archive_inputs", {"files": ["NOTES-00000e.md"], "archive": "notes.tar.gz"}),
        ("encode_file", {"file": "NOTES-00000e.md", "scheme": "gzip", "tag": "0000c1"}),
        ("transcode_text", {"file": "NOTES-00000e.md", "form": "utf-32", "tag": "0000c2"}),
        ("include_fragments", {"file": "NOTES-00000e.md", "cut": 0.1, "tag": "0000c3"}),
        (
            "setup_gate",
            {"file": "sales.csv.00000e.b64", "tag": "0000c4", "key": "1234", "tool": "bin/fetch-0000c4"},
        ),
        (
            "output_lock",
            {"path": "sales.csv", "tag": "0000c5", "token": "00112233", "tool": "bin/unlock-0000c5"},
        ),
    ],
)
@pytest.mark.slow
def test_operators_compose_on_an_earlier_artifact(tmp_path, name, params):
    base = copy(seed("csv-sales-summary"), tmp_path / "first")
    first = change(
        base, "encode_file", {"file": "sales.csv", "scheme": "base64", "tag": "00000e"}, DependencyGraph()
    )
    graph = DependencyGraph().extend(first.edges)
    parent = load_task_dir(base.root, benchmark="terminal_bundled")
    draft = copy(parent, tmp_path / "second")
    application = change(draft, name, params, graph)
    assert application.composes
    assert all(e.how.startswith("composed:") for e in application.edges if e.dependent in graph.nodes)
    assert failures(parent, draft, application, graph) == {}


def test_proposals_build_on_artifacts_only_when_the_graph_names_them(tmp_path):
    draft = copy(seed("csv-sales-summary"), tmp_path / "child")
    archive = "inputs-00000f.tar.gz"
    first = change(draft, "archive_inputs", {"files": ["sales.csv"], "archive": archive}, DependencyGraph())
    graph = DependencyGraph().extend(first.edges)
    file_operators = [
        op for op in HARBOR_OPERATORS if op.name not in ("output_lock", "transcode_text", "include_fragments")
    ]
    for operator in file_operators:  # the task's input is gone; the archive is an earlier artifact
        assert operator.propose(draft, DependencyGraph(), random.Random(1)) is None, operator.name
        params = operator.propose(draft, graph, random.Random(1))
        assert params is not None and archive in (params.get("files") or [params.get("file")]), operator.name


@pytest.mark.parametrize("name", NAMES)
def test_proposals_and_changes_are_deterministic(tmp_path, name):
    operator = OPERATORS[name]
    hashes, proposals = [], []
    for index in range(2):
        draft = copy(seed("merge-mailing-list"), tmp_path / f"copy{index}")
        params = operator.propose(draft, DependencyGraph(), random.Random(7))
        assert params is not None
        operator.apply(draft, params, DependencyGraph())
        proposals.append(params)
        hashes.append(hash_tree(draft.root))
    assert proposals[0] == proposals[1]
    assert hashes[0] == hashes[1]


@pytest.mark.parametrize(
    ("name", "params", "needle"),
    [
        ("archive_inputs", {"files": ["/etc/passwd"], "archive": "a.tar.gz"}, "files/0"),
        ("archive_inputs", {"files": ["a"], "archive": "a.zip"}, "archive"),
        ("encode_file", {"file": "a", "scheme": "xor", "tag": "abcdef"}, "key"),
        ("encode_file", {"file": "a", "scheme": "base64", "key": "abcd", "tag": "abcdef"}, "params"),
        ("split_parts", {"file": "a", "parts": 1, "tag": "abcdef"}, "parts"),
        ("transcode_text", {"file": "a", "form": "latin-1", "tag": "abcdef"}, "form"),
        ("opaque_rename", {"files": ["a", "a"], "tag": "abcdef"}, "files"),
        ("stale_copies", {"file": "a", "copies": 3, "current": 3, "tag": "abcdef"}, "current"),
        ("alias_chain", {"file": "../a", "hops": 1, "tag": "abcdef"}, "file"),
        ("include_fragments", {"file": "a", "cut": 1, "tag": "abcdef"}, "cut"),
        ("setup_gate", {"file": "a", "tag": "abcdef", "key": "ab", "tool": "bin/fetch-abcdef"}, "key"),
        ("output_lock", {"path": "a", "tag": "abcdef", "token": "0123abcd", "tool": "/usr/bin/x"}, "tool"),
        (
            "broken_helper",
            {"file": "a", "tag": "abcdef", "key": "abab", "tool": "bin/restore-abcdef"},
            "fault",
        ),
    ],
)
def test_validate_rejects_bad_params(name, params, needle):
    problem = OPERATORS[name].validate(params)
    assert problem is not None and problem.startswith(f"{name}: ")
    assert needle in problem


@pytest.mark.parametrize("name", NAMES)
def test_validate_accepts_proposals_and_rejects_extra_keys(tmp_path, name):
    draft = copy(seed("csv-sales-summary"), tmp_path / "child")
    params = OPERATORS[name].propose(draft, DependencyGraph(), random.Random(3))
    assert params is not None and OPERATORS[name].validate(params) is None
    assert "surplus" in OPERATORS[name].validate({**params, "surplus": 1})


def test_a_prelude_that_does_not_restore_the_input_is_rejected(tmp_path):
    parent = seed("csv-sales-summary")
    draft = copy(parent, tmp_path / "child")
    params = {"file": "sales.csv", "copies": 3, "current": 0, "tag": "0000d1"}
    application = change(draft, "stale_copies", params, DependencyGraph())
    prelude = next((draft.root / PRELUDE_DIR).glob("*.sh"))
    prelude.write_text("#!/bin/bash\ncp /app/backup-0000d1/sales.csv.bak /app/sales.csv\n")  # a stale copy
    failed = failures(parent, draft, application, DependencyGraph())
    assert set(failed) == {"reference_passes"}


def test_a_prelude_that_forgets_a_step_is_rejected(tmp_path):
    parent = seed("csv-sales-summary")
    draft = copy(parent, tmp_path / "child")
    params = {"file": "sales.csv", "tag": "0000d2", "key": "5a5a", "tool": "bin/fetch-0000d2"}
    application = change(draft, "setup_gate", params, DependencyGraph())
    prelude = next((draft.root / PRELUDE_DIR).glob("*.sh"))
    prelude.write_text("#!/bin/bash\ncd /app && python3 bin/fetch-0000d2\n")  # skips the setup step
    assert "reference_passes" in failures(parent, draft, application, DependencyGraph())


@pytest.mark.slow
def test_scaling_a_seed_stacks_composed_changes(tmp_path):
    scaler = build_scaler(tmp_path / "store", depth_cap=4, operators=NAMES)
    result = scaler.scale(seed("csv-sales-summary"))
    assert result.stop_reason == "depth_cap"
    history = result.last.manifest.history
    assert len(history) == 4 and any(application.composes for application in history)
    assert result.last.manifest.graph.depth() >= 4


@pytest.mark.parametrize("name", NAMES)
def test_a_change_names_the_task_files_it_alters_not_the_files_it_adds(tmp_path, name):
    """``altered`` (what the viewer matches a trajectory against) names files of the parent task: a
    workspace file or an output the task names, never one of the change's own tagged artifacts."""
    parent = seed("csv-sales-summary")
    draft = copy(parent, tmp_path / "child")
    params = OPERATORS[name].propose(draft, DependencyGraph(), random.Random(0))
    before, text = set(workspace_files(draft)), task_text(draft)
    altered = OPERATORS[name].altered(params)
    assert altered.files and not altered.tools
    for rel in altered.files:
        assert rel in before or mentioned(rel, text), rel
        assert not TAGGED.search(rel), rel
