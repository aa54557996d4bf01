"""The recipes of docs/extending.md work exactly as written, through the harness's own registries.

Blocks titled ``recipe: <name>`` are taken from the document: Python blocks run as one module each (a
block titled with a path as the module of that path), YAML blocks become config files in a scratch
folder on Hydra's search path, and the Makefile block runs through ``make -n``. Every registration a
recipe makes is undone after its test.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import types
from collections.abc import Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any

import pytest
from hydra_config import compose_config
from scalers import build_scaler
from task_factory import make_task
from tool_factory import make_tool_task

from res_repro.agents import build_agents
from res_repro.env import adapters
from res_repro.env.errors import TaskFormatError
from res_repro.env.formats import FORMATS, detect_format, load_path, load_task_dir, open_environment
from res_repro.env.middleware import MIDDLEWARE
from res_repro.env.tools import ToolCall
from res_repro.errors import UserInputError
from res_repro.evaluation.check import check_tasks
from res_repro.evaluation.episode import EpisodeRecord, run_episode
from res_repro.evaluation.store import EpisodeStore
from res_repro.pipelines import PIPELINES, pipeline_function, run_pipeline
from res_repro.res.operators import OPERATORS, library
from res_repro.sandbox import SANDBOX_BACKENDS, SandboxSpec, backend_from_config, make_sandbox

DOC = Path(__file__).resolve().parents[1] / "docs" / "extending.md"
BLOCK = re.compile(r'^```(\w+) title="recipe: ([\w-]+)(?:, ([^"]+))?"\n(.*?)^```$', re.MULTILINE | re.DOTALL)
REGISTRIES: tuple[MutableMapping[str, Any], ...] = (
    FORMATS,
    OPERATORS,
    MIDDLEWARE,
    SANDBOX_BACKENDS,
    PIPELINES,
)
CHECKS = {"applied", "dependencies_feasible", "objective_untouched", "reference_passes", "nop_fails"}


def recipe_blocks(name: str) -> list[tuple[str, str | None, str]]:
    """(language, path or None, code) of every block of the recipe ``name``, in document order."""
    blocks = [
        (lang, path, code) for lang, recipe, path, code in BLOCK.findall(DOC.read_text()) if recipe == name
    ]
    assert blocks, f"docs/extending.md has no block titled 'recipe: {name}'"
    return blocks


def test_every_recipe_has_blocks_and_every_block_a_known_recipe() -> None:
    names = {recipe for _, recipe, _, _ in BLOCK.findall(DOC.read_text())}
    assert names == {"operator", "format", "sandbox", "table"}
    titled = re.findall(r'^```\w+ title="recipe:', DOC.read_text(), re.MULTILINE)
    assert len(titled) == len(BLOCK.findall(DOC.read_text()))  # no titled block escapes the parser


@pytest.fixture
def run_recipe(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Run a recipe's Python blocks and write its other blocks under a scratch folder (returned).

    Whatever the blocks add to a registry is removed again at teardown, as are their modules.
    """
    monkeypatch.setattr(adapters, "_found", dict(adapters._found))

    def run(name: str) -> Path:
        scratch = tmp_path / f"recipe-{name}"
        before = [dict(registry) for registry in REGISTRIES]
        try:
            for lang, path, code in recipe_blocks(name):
                if lang == "python":
                    module_name = path.removesuffix(".py").replace("/", ".") if path else f"recipe_{name}"
                    module = sys.modules.get(module_name) or types.ModuleType(module_name)
                    monkeypatch.setitem(sys.modules, module_name, module)
                    exec(compile(code, f"{DOC}[{name}]", "exec"), module.__dict__)
                else:
                    assert path, f"a {lang} block of recipe {name} names no file"
                    (scratch / path).parent.mkdir(parents=True, exist_ok=True)
                    (scratch / path).write_text(code)
        finally:
            for registry, old in zip(REGISTRIES, before, strict=True):
                for key in set(registry) - set(old):
                    value = registry.pop(key)
                    monkeypatch.setitem(registry, key, value)  # removed again at teardown
                assert all(registry[key] is value for key, value in old.items()), "a recipe replaced an entry"
        return scratch

    yield run
    monkeypatch.undo()
    added = {"qa", "require_confirmation", "confirmation", "audited", "table_calls"}
    assert all(not added & set(registry) for registry in REGISTRIES)


# -- operator --------------------------------------------------------------------------------------------


def test_operator_recipe_grows_a_lineage_whose_child_passes_every_check(run_recipe, tmp_path: Path) -> None:
    run_recipe("operator")
    assert [op.name for op in library(["require_confirmation"])] == ["require_confirmation"]
    task = load_task_dir(make_tool_task(tmp_path / "tasks"))
    scaler = build_scaler(
        tmp_path / "lineages", depth_cap=2, operators=["require_confirmation"], max_revisions=0
    )
    result = scaler.scale(task)
    # depth 1 confirms the only write tool; at depth 2 the operator no longer applies
    assert [node.manifest.depth for node in result.nodes] == [0, 1]
    assert result.stop_reason == "no_valid_child"
    child = result.last.manifest
    applied = [(a.operator, a.params["tool"]) for a in child.applications]
    assert applied == [("require_confirmation", "mail_send")]
    assert {c["name"]: c["passed"] for c in child.checks} == dict.fromkeys(
        [*CHECKS, "parent_reference_fails"], True
    )
    assert ("confirmation:mail_send", "goal") in {(e.prerequisite, e.dependent) for e in child.graph.edges}
    # the layer is really there: an unconfirmed write is refused with the code, a confirmed one acts
    code = child.applications[0].params["code"]
    with open_environment(result.last.task, backend="local") as env:
        arguments = {"to": "ops@acme.test", "subject": "s", "body": "b"}
        refused = env.call(ToolCall("mail_send", arguments))
        accepted = env.call(ToolCall("mail_send", {**arguments, "confirm": code}))
    assert (refused.status, accepted.status) == (409, 200)
    assert code in refused.text()


def test_operator_recipe_adapter_is_found_after_an_earlier_lookup(run_recipe, tmp_path: Path) -> None:
    adapters._found = {"unrelated": lambda call, params: call}  # looked up before the recipe registered
    run_recipe("operator")
    calls: list[tuple[str, dict[str, Any]]] = []
    call = adapters.adapted(
        lambda name, **arguments: calls.append((name, arguments)),
        [{"operator": "require_confirmation", "params": {"tool": "mail_send", "code": "00ab12"}}],
        tmp_path / "adapters.json",
    )
    call("mail_send", to="x")
    call("crm_get", id="C1")
    assert calls == [("mail_send", {"to": "x", "confirm": "00ab12"}), ("crm_get", {"id": "C1"})]
    with pytest.raises(TaskFormatError, match="no reference adapter named 'nonexistent'"):
        adapters.adapted(lambda name: None, [{"operator": "nonexistent", "params": {}}], tmp_path / "a.json")


# -- task format -----------------------------------------------------------------------------------------


def _qa_task(root: Path, task_id: str, answer: str, **documents: str) -> Path:
    """A Q&A task whose reference reads every document and answers with the one naming a capital."""
    task = root / task_id
    (task / "documents").mkdir(parents=True)
    for name, text in documents.items():
        (task / "documents" / f"{name}.md").write_text(text)
    (task / "solution").mkdir()
    (task / "solution" / "solve.py").write_text(
        "def solve(call):\n"
        "    for name in call('list_documents')['documents']:\n"
        "        text = call('read_document', name=name)['text']\n"
        "        if 'capital' in text:\n"
        "            return text.split('capital is ')[1].rstrip('.\\n')\n"
        "    return 'unknown'\n"
    )
    instruction = "Which city is the capital? Answer with its name only."
    (task / "qa.yaml").write_text(f"id: {task_id}\ninstruction: {instruction}\nanswer: {answer}\n")
    return task


def test_format_recipe_loads_checks_runs_and_scales_its_tasks(run_recipe, tmp_path: Path) -> None:
    run_recipe("format")
    folder = tmp_path / "qa"
    _qa_task(folder, "qa-1", "Paris", a="Rain in spring.", b="The capital is Paris.")
    _qa_task(folder, "qa-2", "Lima", notes="The capital is Lima.")
    tasks = load_path(folder)
    assert [(t.task_id, t.kind) for t in tasks] == [("qa-1", "qa"), ("qa-2", "qa")]
    # each directory has exactly one format, the built-in ones included
    tool_dir, harbor_dir = make_tool_task(tmp_path / "tool"), make_task(tmp_path / "harbor")
    for path, name in ((tasks[0].path, "qa"), (tool_dir, "tool"), (harbor_dir, "harbor")):
        assert [f.name for f in FORMATS.values() if f.detect(path)] == [name]
        assert detect_format(path) is FORMATS[name]

    with open_environment(tasks[0], backend="local") as env:
        assert [tool.name for tool in env.tools] == ["list_documents", "read_document"]
        assert env.call(ToolCall("read_document", {"name": "../qa.yaml"})).status == 404
        assert env.grade(" paris ").passed and not env.grade("Lyon").passed

    verdicts = check_tasks(tasks, backend="local", store=EpisodeStore(tmp_path / "episodes"))
    assert [(v.valid, v.oracle.score, v.nop.score) for v in verdicts] == [(True, 1.0, 0.0)] * 2
    explorer = build_agents(["explorer-basic"])["explorer-basic"]
    record = run_episode(tasks[0], explorer, backend="local", episode_id="qa-explorer")
    assert record.passed and record.tool_calls == 3  # list, then the two documents in order

    scaler = build_scaler(tmp_path / "lineages", depth_cap=3)
    result = scaler.scale(tasks[0])
    assert (result.stop_reason, len(result.nodes), result.last.task.kind) == ("no_valid_child", 1, "qa")

    (folder / "qa-2" / "qa.yaml").write_text("id: qa-2\ninstruction: Which city?\n")
    with pytest.raises(TaskFormatError, match=r"qa\.yaml: field 'answer': expected a non-empty string"):
        load_task_dir(folder / "qa-2")


# -- sandbox backend -------------------------------------------------------------------------------------


def test_sandbox_recipe_is_selected_by_name_and_runs_episodes(
    run_recipe, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = run_recipe("sandbox")
    log = tmp_path / "audit.jsonl"
    monkeypatch.setenv("RES_SANDBOX_AUDIT_LOG", str(log))
    cfg = compose_config(f"hydra.searchpath=[file://{scratch / 'conf'}]", "sandbox=audited")
    backend = backend_from_config(cfg.sandbox)
    assert backend.name == "audited"
    with make_sandbox(backend, SandboxSpec()) as sandbox:
        assert type(sandbox).__name__ == "AuditedSandbox"
        result = sandbox.exec("echo hello > /tmp/x && cat /tmp/x", timeout=30)
        assert result.ok and result.stdout == "hello\n"
        assert sandbox.shell().run("cd /tmp && pwd", timeout=30).stdout.strip() == "/tmp"
        assert sandbox.read_file("/tmp/x") == b"hello\n"

    task = load_task_dir(make_task(tmp_path / "tasks"))
    verdicts = check_tasks([task], backend="audited", store=EpisodeStore(tmp_path / "episodes"))
    assert verdicts[0].valid and verdicts[0].oracle.sandbox == "audited"
    explorer = build_agents(["explorer-basic"])["explorer-basic"]
    assert run_episode(task, explorer, backend=backend, episode_id="audited-explorer").passed

    commands = [(entry["how"], entry["command"]) for entry in map(json.loads, log.read_text().splitlines())]
    assert commands[:2] == [("exec", "echo hello > /tmp/x && cat /tmp/x"), ("shell", "cd /tmp && pwd")]
    assert ("exec", "bash /solution/solve.sh") in commands  # the oracle's reference solution
    assert any(how == "shell" and "done" in command for how, command in commands[2:])  # the explorer's
    with pytest.raises(UserInputError, match="unknown sandbox backend 'audit'"):
        make_sandbox("audit", SandboxSpec())


# -- paper table -----------------------------------------------------------------------------------------


def test_table_recipe_runs_from_its_make_target_and_reports_its_records(run_recipe, tmp_path: Path) -> None:
    scratch = run_recipe("table")
    assert pipeline_function("table_calls").__name__ == "run_table_calls"
    assert shutil.which("make")
    makefile = scratch / "Makefile"
    makefile.write_text("CLI := res-repro\ninstall:\n\t@:\n" + makefile.read_text())
    help_line = re.compile(r"^[a-zA-Z0-9_-]+:.*?## ", re.MULTILINE)  # what `make help` lists
    assert help_line.search(makefile.read_text())
    dry = subprocess.run(
        ["make", "-n", "-f", str(makefile), "table_calls"], capture_output=True, text=True, check=True
    )
    command = next(line.split() for line in dry.stdout.splitlines() if line.startswith("res-repro"))
    assert command[1:] == ["experiment=table_calls", "save_results=true"]

    root, out = tmp_path / "root", tmp_path / "root" / "runs" / "table_calls"
    cfg = compose_config(
        *command[1:],
        f"hydra.searchpath=[file://{scratch / 'conf'}]",
        "benchmark.limit=2",
        "tracking=none",
        "show_progress=false",
        "workers=1",
        root=root,
        output_dir=out,
    )
    assert (cfg.task_name, cfg.benchmark.name) == ("table_calls", "claw_bundled")
    table = run_pipeline(cfg)

    lines = (out / "episodes.jsonl").read_text().splitlines()
    records = [EpisodeRecord.from_dict(json.loads(line)) for line in lines]
    assert len(records) == 2 * len(cfg.agents)
    rows = {row[0]: dict(zip(table.columns, row, strict=True)) for row in table.rows}
    assert list(rows) == list(cfg.agents)
    for agent, row in rows.items():
        mine = [r for r in records if r.agent == agent]
        assert row["agent kind"] == "scripted" and row["n"] == "2"
        assert row["mean tool calls"] == f"{sum(r.tool_calls for r in mine) / 2:.2f}"
        assert row["passed (%)"] == f"{100 * sum(r.passed for r in mine) / 2:.1f}"
    assert rows["oracle"]["passed (%)"] == "100.0" and float(rows["oracle"]["mean tool calls"]) > 0
    saved = root / "results" / "table_calls_claw_bundled.md"  # save_results=true, from the make target
    assert saved.read_text() == (out / "table_calls.md").read_text()
