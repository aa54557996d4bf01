"""`res-repro lineages STORE`: a lineage store summarised by family, operator and depth, with composition
(on task content or on what earlier changes added) and the seeds left unscaled with their reason.

The store is built by hand with :class:`LineageStore` (real manifests, real node folders, a recorded
rejection) so its mix is known: three seeds; two families among five accepted changes; one change composed
on a record node and one on a tool an earlier change added; one seed with no child.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from cli_runs import run_in_process
from tool_factory import make_tool_task

from res_repro.env.formats.tool_api import load_tool_task
from res_repro.pipelines.lineage_summary import composed_on, is_task_content
from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph, Edge
from res_repro.res.lineage import MANIFEST, LineageStore, Manifest, Node, node_id
from res_repro.res.operators.base import Application
from res_repro.res.scaling import root_node

SECRET = "record:vault/secrets/cred-crm#token"
LIST_TOOL = "tool:crm_list_customers"
PARENT_FAILS = "the parent's reference still completes the task"


def _grow(store: LineageStore, parent: Node, applications: list[Application]) -> Node:
    """Store a child of ``parent`` with ``applications`` as its change (its env/ a copy of the parent's)."""
    work = store.workspace(parent.manifest.seed_task_id)
    shutil.copytree(parent.env_dir, work / "env")
    (work / "env" / f"change-{len(parent.manifest.history)}.txt").write_text("changed\n")
    edges = [edge for application in applications for edge in application.edges]
    manifest = Manifest(
        node_id(parent.manifest.node_id, "", applications),
        parent.manifest.seed_task_id,
        parent.manifest.kind,
        parent.manifest.node_id,
        parent.manifest.depth + 1,
        applications,
        [*parent.manifest.history, *applications],
        parent.manifest.graph.extend(edges),
        "",
    )
    return store.save(work / "env", manifest)


def _app(operator: str, family: str, *edges: tuple[str, str, str]) -> Application:
    return Application(operator, family, {}, tuple(Edge(*edge) for edge in edges))


def _rejection(revision: int, check: str, detail: str) -> dict:
    return {
        "parent_id": None,  # filled in with the root's id
        "depth": 1,
        "revision": revision,
        "steps": [{"operator": "archive_records", "params": {}}],
        "rationale": "",
        "checks": [
            {"name": "applied", "passed": True, "detail": ""},
            {"name": check, "passed": False, "detail": detail},
        ],
    }


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Seed ``alpha``: require_token + open_session at depth 1, encode_field composed on the vault record at
    depth 2. Seed ``beta``: paginate at depth 1, call_quota composed on the listing tool at depth 2. Seed
    ``gamma``: no child, two rejected candidates at depth 1."""
    tmp = tmp_path_factory.mktemp("summary")
    lineages = LineageStore(tmp / "lineages")
    roots = {
        name: root_node(load_tool_task(make_tool_task(tmp / "seeds", name)), lineages)
        for name in ("alpha", "beta", "gamma")
    }
    execution, access = "execution_dependencies", "information_access"
    alpha = _grow(
        lineages,
        roots["alpha"],
        [
            _app(
                "require_token",
                execution,
                (OBSERVATION, SECRET, "the 401 error names the vault record"),
                (SECRET, "token:crm", "the record holds the token"),
                ("token:crm", GOAL, "the crm tools need the token"),
            ),
            _app("open_session", execution, ("token:crm", "session:crm", "a session opens with the token")),
        ],
    )
    _grow(
        lineages,
        alpha,
        [
            _app(
                "encode_field",
                access,
                (OBSERVATION, "record:vault/codecs/CODEC-1#scheme", "the records name the codec"),
                (SECRET, "decoded:vault/secrets/token", "composed: token is encoded (caesar)"),
            )
        ],
    )
    beta = _grow(lineages, roots["beta"], [_app("paginate", access, (OBSERVATION, LIST_TOOL, "listed"))])
    _grow(
        lineages,
        beta,
        [_app("call_quota", execution, (LIST_TOOL, "bulk:crm_list_customers_bulk", "composed: rationed"))],
    )
    for revision, check, detail in [
        (0, "nop_fails", "nop passed"),
        (1, "parent_reference_fails", f"{PARENT_FAILS}\n(score 1.0)"),
    ]:
        record = _rejection(revision, check, detail)
        record["parent_id"] = roots["gamma"].manifest.node_id
        lineages.record_rejection("gamma", record)
    return tmp / "lineages"


def test_the_json_counts_changes_by_family_operator_and_depth(store, capsys):
    status, out, err = run_in_process(["lineages", str(store), "--json"], capsys)
    assert status == 0, err
    data = json.loads(out)
    assert (data["changes"], data["children"]) == (5, 4)
    assert data["by_family"] == {
        "information_access": {"changes": 2, "share": 0.4, "composed": 1, "composition_rate": 0.5},
        "resource_relations": {"changes": 0, "share": 0.0, "composed": 0, "composition_rate": None},
        "execution_dependencies": {"changes": 3, "share": 0.6, "composed": 1, "composition_rate": 0.3333},
    }
    assert {op: row["changes"] for op, row in data["by_operator"].items()} == {
        "encode_field": 1,
        "paginate": 1,
        "call_quota": 1,
        "open_session": 1,
        "require_token": 1,
    }
    assert data["by_operator"]["encode_field"] == {
        "family": "information_access",
        "changes": 1,
        "share": 0.2,
        "composed": 1,
    }
    assert data["by_depth"] == {"1": {"changes": 3, "composed": 0}, "2": {"changes": 2, "composed": 2}}


def test_composition_says_what_each_composed_change_built_on(store, capsys):
    data = json.loads(run_in_process(["lineages", str(store), "--json"], capsys)[1])
    assert data["composition"] == {
        "composed": 2,
        "rate": 0.4,
        "on_task_content": 0,
        "on_harness_added": 2,  # encode_field on the vault record (machinery), call_quota on a listing tool
        "on_both": 0,
        "by_node_kind": {"record": 1, "tool": 1},
        "records_by_collection": {"vault/secrets": 1},
    }


def test_seeds_reach_their_depths_and_the_unscaled_one_says_why(store, capsys):
    seeds = json.loads(run_in_process(["lineages", str(store), "--json"], capsys)[1])["seeds"]
    assert (seeds["count"], seeds["with_depth_1_child"]) == (3, 2)
    assert seeds["depth_reached"] == {"alpha": 2, "beta": 2, "gamma": 0}
    [gamma] = seeds["unscaled"]
    assert gamma["seed"] == "gamma" and gamma["stop"] == "no_valid_child"
    assert (gamma["check"], gamma["revision"], gamma["operators"]) == (
        "parent_reference_fails",
        1,
        ["archive_records"],
    )  # the last rejection, not the first
    assert gamma["reason"] == (
        f"last candidate (archive_records, depth 1, revision 1) failed parent_reference_fails: {PARENT_FAILS}"
    )


def test_the_table_shows_the_same_counts(store, capsys):
    status, out, _ = run_in_process(["lineages", str(store)], capsys)
    assert status == 0
    assert (
        "3 seed(s), 2 with a child at depth 1, 1 unscaled; 4 accepted children, 5 accepted change(s), " in out
    )
    assert "| information_access | 2 | 40.0% | 1 | 50.0% |" in out
    assert "| execution_dependencies | 3 | 60.0% | 1 | 33.3% |" in out
    assert "| resource_relations | 0 | 0.0% | 0 | n/a |" in out
    assert "| task content | 0 | 0.0% |" in out and "| harness-added | 2 | 100.0% |" in out
    assert "| gamma | 0 | 0 | last candidate (archive_records, depth 1, revision 1) failed" in out
    assert "| alpha | 2 | 2 |  |" in out


def test_a_composed_edge_into_an_earlier_artifact_is_read_from_its_dependent_end():
    alias = "record:crm/customers_aliases/C1#alias"
    earlier = _app("require_token", "execution_dependencies", (OBSERVATION, SECRET, "names it"))
    aliased = _app(
        "alias_ids",
        "resource_relations",
        ("alias:crm/customers", alias, "the alias of the record"),
        (alias, SECRET, "composed: the record is served by its alias only"),
    )
    manifest = Manifest("n", "s", "tool", "p", 2, [aliased], [earlier, aliased], DependencyGraph(), "")
    assert composed_on(manifest, 0) == (SECRET,)


def test_summarising_leaves_the_store_as_it_was(store, capsys):
    before = sorted(p.relative_to(store) for p in store.rglob("*"))
    run_in_process(["lineages", str(store)], capsys)
    assert sorted(p.relative_to(store) for p in store.rglob("*")) == before


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda tmp: tmp / "nowhere", r"nowhere: not found; expected a lineage store"),
        (lambda tmp: tmp, r": holds no node manifest; expected a lineage store"),
        (lambda tmp: (tmp / "file.txt").write_text("x") and tmp / "file.txt", r"file\.txt: not a folder"),
    ],
    ids=["missing", "not a store", "a file"],
)
def test_a_folder_that_is_not_a_store_is_one_line(make, says, tmp_path, capsys):
    status, out, err = run_in_process(["lineages", str(make(tmp_path))], capsys)
    assert status == 2 and not out and "Traceback" not in err
    [line] = err.strip().splitlines()
    assert line.startswith("error: ") and re.search(says, line), line


def test_a_corrupt_manifest_is_one_line_naming_it(store, tmp_path, capsys):
    copy = Path(shutil.copytree(store, tmp_path / "lineages"))
    manifest = next((copy / "beta").glob(f"*/{MANIFEST}"))
    manifest.write_text(manifest.read_text()[:40])
    status, out, err = run_in_process(["lineages", str(copy)], capsys)
    assert status == 2 and not out
    [line] = err.strip().splitlines()
    assert line.startswith(f"error: {manifest}: unreadable (") and "expected a node manifest" in line
    assert manifest.is_file()  # reported, not moved aside
    manifest.write_text(json.dumps({"node_id": "x"}))
    [line] = run_in_process(["lineages", str(copy)], capsys)[2].strip().splitlines()
    assert line.startswith(f"error: {manifest}: damaged (KeyError") and "expected a node manifest" in line


@pytest.mark.parametrize(
    ("node", "content"),
    [
        ("record:directory/messages_from/FR-1a2b3c#from", True),  # a party the task's records name
        ("record:gmail/attachments/ATT-1", True),  # a field moved out of the task's records
        ("file:notes/plan.md", True),
        ("record:vault/secrets/crm-token#token", False),
        ("record:crm/codecs/CODEC-1#scheme", False),
        ("record:crm/customers_aliases/C1#alias", False),
        ("tool:crm_list_customers", False),
    ],
)
def test_task_content_is_the_task_data_not_the_machinery(node, content):
    assert is_task_content(node) is content
