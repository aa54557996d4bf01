"""`res-repro view`: lineage places on episode records, rejected candidates in the lineage store, and the
static pages built over a run folder."""

from __future__ import annotations

import csv
import html
import json
import re
import shutil

import pytest
from scalers import build_scaler
from tool_factory import make_tool_task

from res_repro import subcommands
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.errors import UserInputError
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.jobs import EpisodeRequest
from res_repro.pipelines.lineages import placed, write_manifests
from res_repro.pipelines.reporting import write_episodes
from res_repro.res import scaling
from res_repro.res.checks import CheckResult
from res_repro.viewer import cache, resolve_source, write_bundle, write_cached_bundle
from res_repro.viewer.bundle import group_id
from res_repro.viewer.diff import tree_diff
from res_repro.viewer.pairs import page_id

REFUSAL = "nop passes the candidate: the change does not matter"


@pytest.fixture
def rejecting_checks(monkeypatch):
    """The RES checks, with the first candidate of each seed failing one more check."""
    real, seen = scaling.run_checks, set()

    def checks(parent, child, *args, **kwargs):
        found = real(parent, child, *args, **kwargs)
        if parent.task_id not in seen:
            seen.add(parent.task_id)
            found.append(CheckResult("nop_fails", False, REFUSAL))
        return found

    monkeypatch.setattr(scaling, "run_checks", checks)


def _lineage(root, depth_cap=2):
    scaler = build_scaler(root / ".cache" / "lineages", depth_cap=depth_cap, max_revisions=2)
    return scaler.store, scaler.scale(load_tool_task(make_tool_task(root / "seed")))


def _record(task, agent, environment, score):
    record = EpisodeRecord.from_dict(
        {
            "episode_id": f"{agent}-{environment}-{task.task_id}".replace("+", "p"),
            "task_id": task.task_id,
            "benchmark": task.benchmark,
            "task_hash": task.content_hash,
            "agent": agent,
            "scripted": True,
            "environment": environment,
            "sandbox": "local",
            "stop_reason": "answered",
            "grade": {"score": score, "passed": score >= 1.0, "rubric": [], "evidence": {}},
            "messages": [
                {"role": "user", "content": "do the task"},
                {"role": "assistant", "content": "done"},
            ],
        }
    )
    return record


def test_rejected_candidates_are_kept_with_their_failed_checks(tmp_path, rejecting_checks):
    store, result = _lineage(tmp_path)
    assert result.last.manifest.depth == 2  # the rejection spent a revision; the lineage still grew
    [rejection] = store.rejections(result.nodes[0].manifest.seed_task_id)
    assert rejection["parent_id"] == result.nodes[0].manifest.node_id
    assert (rejection["depth"], rejection["revision"]) == (1, 0)
    assert rejection["steps"] and all(step["operator"] for step in rejection["steps"])
    failed = [c for c in rejection["checks"] if not c["passed"]]
    assert failed == [{"name": "nop_fails", "passed": False, "detail": REFUSAL}]


def test_episode_records_carry_their_lineage_node_depth_seed_and_role(tmp_path):
    _, result = _lineage(tmp_path, depth_cap=1)
    root, child = result.nodes
    requests = placed([EpisodeRequest(child.task, "oracle"), EpisodeRequest(root.task, "nop")], [result])
    labelled = [r.label(_record(r.task, r.agent, "x", 1.0)) for r in requests]
    assert [(e.seed_task_id, e.node_id, e.depth) for e in labelled] == [
        (root.manifest.seed_task_id, child.manifest.node_id, 1),
        (root.manifest.seed_task_id, root.manifest.node_id, 0),
    ]
    teacher = EpisodeRequest(root.task, "oracle", role="teacher").label(labelled[0])
    assert (teacher.role, teacher.node_id) == ("teacher", None)  # a request without a place clears it
    assert EpisodeRecord.from_dict(labelled[0].to_dict()) == labelled[0]


def _run_folder(tmp_path):
    """A run folder as table1 leaves it (table, episodes, manifests) over a real lineage store."""
    _, result = _lineage(tmp_path)
    root, *_, last = result.nodes
    run = tmp_path / "runs" / "table1" / "runs" / "t0"
    requests = placed(
        [EpisodeRequest(root.task, "oracle", "original"), EpisodeRequest(last.task, "oracle", "+RES")],
        [result],
    )
    records = [
        r.label(_record(r.task, r.agent, r.environment, s))
        for r, s in zip(requests, (1.0, 0.25), strict=True)
    ]
    write_episodes(records, run / "episodes.jsonl")
    write_manifests([result], run / "lineages.jsonl")
    with (run / "table1.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["agent", "agent kind", "environment", "n", "Pass@1 (%)"])
        writer.writerow(["oracle", "scripted", "original", "1", "100.00"])
        writer.writerow(["oracle", "scripted", "+RES (by construction)", "1", "0.00"])
        writer.writerow(["GPT-5.6 Sol", "model", "original", "", "not run"])
    return run, result, records


def test_the_bundle_links_cells_to_episodes_and_seeds_to_node_diffs(tmp_path, rejecting_checks):
    run, result, records = _run_folder(tmp_path)
    out = tmp_path / "bundle"
    index = write_bundle(resolve_source(run), out).read_text()
    scaled, agent = group_id("oracle", "+RES"), page_id("oracle")
    assert f'href="agents/{agent}.html">0.00<' in index  # the marker in parentheses is dropped
    assert f'href="agents/{agent}.html">100.00<' in index  # the original row leads to the same pairs
    assert index.count("cell-link") == 2 * 5  # the run-less paper row links nowhere
    paired = (out / "agents" / f"{agent}.html").read_text()
    assert f"groups/{scaled}.html" in paired and "pairs/" in paired
    group = (out / "groups" / f"{scaled}.html").read_text()
    assert f"episodes/{records[1].episode_id}.html" in group
    episode = (out / "episodes" / f"{records[1].episode_id}.html").read_text()
    last = result.last.manifest
    assert f"nodes/{last.seed_task_id}/{last.node_id}.html" in episode and "do the task" in episode
    seed = (out / "seeds" / f"{last.seed_task_id}.html").read_text()
    assert REFUSAL in seed and seed.count('class="node-link"') == 3
    node = (out / "nodes" / last.seed_task_id / f"{last.node_id}.html").read_text()
    change = last.applications[0].operator
    assert change in node and 'class="diff-add"' in node
    assert f"{last.parent_id}.html" in node


def test_a_bundle_of_the_same_content_is_rendered_once_and_copied_with_its_own_label(tmp_path, monkeypatch):
    run, *_ = _run_folder(tmp_path)
    views = tmp_path / "views"
    rendered = []
    monkeypatch.setattr(
        cache, "write_bundle", lambda source, out: rendered.append(out) or write_bundle(source, out)
    )
    first = write_cached_bundle(resolve_source(run), tmp_path / "first", views)
    copy = shutil.copytree(run, tmp_path / "runs" / "table1" / "runs" / "t1")  # a warm rerun's folder
    second = write_cached_bundle(resolve_source(copy), tmp_path / "second", views)
    assert len(rendered) == 1
    direct = tmp_path / "direct"
    write_bundle(resolve_source(copy), direct)
    pages = sorted(p.relative_to(direct) for p in direct.rglob("*") if p.is_file())
    assert pages == sorted(p.relative_to(second.parent) for p in second.parent.rglob("*") if p.is_file())
    assert all((direct / p).read_text() == (second.parent / p).read_text() for p in pages)
    assert str(run) in first.read_text() and str(copy) in second.read_text()
    (copy / "table1.csv").write_text("agent,n\noracle,2\n")  # new content: rendered anew
    write_cached_bundle(resolve_source(copy), tmp_path / "third", views)
    assert len(rendered) == 2


def test_tree_diff_names_added_removed_and_changed_files(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    for folder, files in (
        (old, {"a.txt": "1\n2\n", "gone.txt": "x"}),
        (new, {"a.txt": "1\n3\n", "new.txt": "y"}),
    ):
        folder.mkdir()
        for name, text in files.items():
            (folder / name).write_text(text)
    (new / "same.bin").write_bytes(b"\x00")
    (old / "same.bin").write_bytes(b"\x00")
    diffs = {d.path: d for d in tree_diff(old, new)}
    assert {p: d.status for p, d in diffs.items()} == {
        "a.txt": "changed",
        "gone.txt": "removed",
        "new.txt": "added",
    }
    assert "-2" in diffs["a.txt"].lines and "+3" in diffs["a.txt"].lines


@pytest.mark.slow
def test_stores_are_views_too_and_anything_else_is_one_line(tmp_path):
    run, result, _ = _run_folder(tmp_path)
    lineages = resolve_source(tmp_path / ".cache" / "lineages")
    assert lineages.seeds() == [result.nodes[0].manifest.seed_task_id] and lineages.node_ids is None
    with pytest.raises(UserInputError, match="neither a run folder"):
        resolve_source(tmp_path / "seed")
    with pytest.raises(UserInputError, match="not a folder"):
        subcommands._view([str(tmp_path / "missing"), "--bundle", str(tmp_path / "out")])
    assert subcommands._view([str(run), "--bundle", str(tmp_path / "out")]) == 0
    assert json.loads((run / "episodes.jsonl").read_text().splitlines()[0])["depth"] == 0
    # any folder a user may pass: the project root (holding .cache/ and its durations file), the runs
    # folder above a run, the cache and each store
    for folder in (tmp_path, run.parent, tmp_path / ".cache", tmp_path / ".cache" / "lineages"):
        out = tmp_path / f"view-{folder.name or 'root'}"
        assert subcommands._view([str(folder), "--bundle", str(out)]) == 0, folder
    assert resolve_source(tmp_path).label == str(run)  # a project shows its newest run


def test_every_viewer_cell_equals_its_csv_cell_for_every_committed_table(tmp_path):
    """Tables name columns alike (each metric's "95% CI" and "paper"): cells are read by position."""
    from html.parser import HTMLParser
    from pathlib import Path

    class Cells(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tables: dict[str, list[list[str]]] = {}
            self._table: list[list[str]] | None = None
            self._cell: list[str] | None = None

        def handle_starttag(self, tag, attrs):
            if tag == "table" and dict(attrs).get("id", "").startswith("table-"):
                self._table = self.tables.setdefault(dict(attrs)["id"][len("table-") :], [])
            elif tag == "tr" and self._table is not None:
                self._table.append([])
            elif tag in ("td", "th") and self._table is not None:
                self._cell = []

        def handle_endtag(self, tag):
            if tag in ("td", "th") and self._cell is not None and self._table is not None:
                self._table[-1].append("".join(self._cell))
                self._cell = None
            elif tag == "table":
                self._table = None

        def handle_data(self, data):
            if self._cell is not None:
                self._cell.append(data)

    results = Path(__file__).resolve().parents[1] / "results"
    run = tmp_path / "run"
    run.mkdir()
    for path in sorted(results.glob("*.csv")):
        shutil.copy(path, run / path.name)
    parser = Cells()
    parser.feed(write_bundle(resolve_source(run), tmp_path / "bundle").read_text())
    assert len(parser.tables) == len(list(results.glob("*.csv"))) > 10
    for path in sorted(results.glob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            expected = list(csv.reader(handle))
        assert parser.tables[path.stem] == expected, path.name
    duplicated = [
        p.name
        for p in results.glob("table1_*.csv")
        if len(set(next(csv.reader(p.open())))) < len(next(csv.reader(p.open())))
    ]
    assert duplicated  # the case that made the by-header reading wrong is among them


def test_tables_show_their_notes_and_pages_show_numbers_and_json_readably(tmp_path):
    run, _, records = _run_folder(tmp_path)
    note = "oracle's rows on scaled environments are fixed by construction, not evidence about RES"
    (run / "table1.md").write_text(
        f"### Table 1 (tiny): original vs RES\n\n| agent |\n|---|\n| oracle |\n\n- {note}.\n"
    )
    out = tmp_path / "bundle"
    index = write_bundle(resolve_source(run), out).read_text()
    assert "Table 1 (tiny): original vs RES" in index
    assert f'<ul class="notes" id="notes-table1"><li>{note.replace(chr(39), "&#39;")}.</li></ul>' in index
    assert (out / "style.css").is_file() and 'href="style.css"' in index
    scaled = (out / "episodes" / f"{records[1].episode_id}.html").read_text()
    assert '<span class="failed">25.00</span>' in scaled  # a score as the tables show it: x 100, two decimals
    shown = re.search(r'<pre class="json" id="grade">(.*?)</pre>', scaled, re.S)
    assert shown and json.loads(html.unescape(shown.group(1))) == records[1].grade.to_dict()  # JSON, indented
    assert "\n  " in shown.group(1)


def test_unreadable_records_are_one_line_naming_the_file_and_line(tmp_path):
    run, _, _ = _run_folder(tmp_path)
    with (run / "episodes.jsonl").open("a") as handle:
        handle.write(json.dumps({"episode_id": "x", "task_id": "t"}) + "\n")
    with pytest.raises(
        UserInputError, match=r"episodes\.jsonl:3: not a record with episode_id, task_id, agent"
    ):
        resolve_source(run)
    (run / "episodes.jsonl").write_text("{not json\n")
    with pytest.raises(UserInputError, match=r"episodes\.jsonl:1: not JSON"):
        resolve_source(run)
