"""Tool-API environments: schema validation, routing, middleware, audit, reference and grading."""

from __future__ import annotations

import json

import pytest
from tool_factory import make_tool_task

from res_repro.env.errors import TaskFormatError
from res_repro.env.formats.tool_api import ToolEnvironment, load_tool_task
from res_repro.env.tools import ToolCall
from res_repro.evaluation.check import check_tasks
from res_repro.evaluation.store import EpisodeStore


def _env(tmp_path, **kwargs) -> ToolEnvironment:
    return ToolEnvironment(load_tool_task(make_tool_task(tmp_path, **kwargs)))


def test_reference_scores_one_and_nop_scores_low(tmp_path):
    env = _env(tmp_path)
    outcome = env.run_reference()
    assert outcome.answer == "Emailed ops@acme.test"
    assert env.grade(outcome.answer).score == 1.0
    nop = _env(tmp_path / "again").grade("")
    assert nop.score == pytest.approx(1 / 5)  # only "no other email" holds
    assert not nop.passed


def test_wrong_recipient_gets_partial_credit(tmp_path):
    env = _env(tmp_path)
    env.call(ToolCall("mail_send", {"to": "it@globex.test", "subject": "s", "body": "b"}))
    grade = env.grade("I emailed ops@acme.test")
    assert grade.score == pytest.approx(1 / 5)
    assert [c["name"] for c in grade.evidence["checks"] if not c["passed"]] == [
        "email sent to Acme",
        "no other email",
    ]


def test_schema_violations_and_unknown_tools_are_answered_and_audited(tmp_path):
    env = _env(tmp_path)
    missing = env.call(ToolCall("crm_get", {}))
    extra = env.call(ToolCall("crm_get", {"id": "C1", "verbose": True}))
    unknown = env.call(ToolCall("crm_delete", {"id": "C1"}))
    absent = env.call(ToolCall("crm_get", {"id": "C9"}))
    assert (missing.status, extra.status, unknown.status, absent.status) == (400, 400, 404, 404)
    assert "'id' is a required property" in missing.text()
    assert "crm_get" in unknown.text()
    assert [(e.tool, e.status) for e in env.audit] == [
        ("crm_get", 400),
        ("crm_get", 400),
        ("crm_delete", 404),
        ("crm_get", 404),
    ]
    assert all(e.response_bytes > 0 for e in env.audit)


def test_list_filters_and_projection(tmp_path):
    env = _env(tmp_path)
    body = env.call(ToolCall("crm_search", {"query": "glob"})).body
    assert body == {"items": [{"id": "C2", "name": "Globex"}], "count": 1}


def test_each_environment_starts_from_the_fixtures(tmp_path):
    path = make_tool_task(tmp_path)
    first = ToolEnvironment(load_tool_task(path))
    first.run_reference()
    assert len(first.state()["mail"]["outbox"]) == 1
    assert ToolEnvironment(load_tool_task(path)).state()["mail"]["outbox"] == []


def test_environments_of_one_task_share_no_state_but_share_tool_specs(tmp_path):
    task = load_tool_task(make_tool_task(tmp_path))
    first = ToolEnvironment(task)
    first.run_reference()
    first.call(ToolCall("crm_get", {"id": "C1"})).body["name"] = "changed in place"
    second = ToolEnvironment(task)
    assert second.state()["mail"]["outbox"] == []
    assert second.call(ToolCall("crm_get", {"id": "C1"})).body["name"] == "Acme Corp"
    assert all(a is b for a, b in zip(first.tools, second.tools, strict=True))  # validators built once


def test_rewritten_fixtures_are_read_again(tmp_path):
    path = make_tool_task(tmp_path)
    task = load_tool_task(path)
    assert ToolEnvironment(task).call(ToolCall("crm_get", {"id": "C1"})).status == 200
    customers = [{"id": "C7", "name": "Initech", "email": "bill@initech.test", "tier": "bronze"}]
    (path / "fixtures" / "crm.json").write_text(json.dumps({"customers": customers}))
    env = ToolEnvironment(task)
    assert env.call(ToolCall("crm_get", {"id": "C1"})).status == 404
    assert env.call(ToolCall("crm_get", {"id": "C7"})).body["name"] == "Initech"


def test_transient_failures_are_seeded_and_bounded(tmp_path):
    layer = {
        "name": "transient_failures",
        "params": {"tools": ["crm_get"], "rate": 1.0, "max_consecutive": 2},
    }
    env = _env(tmp_path, middleware=[layer])
    statuses = [env.call(ToolCall("crm_get", {"id": "C1"})).status for _ in range(3)]
    assert statuses[:2] in ([429, 429], [429, 503], [503, 429], [503, 503])
    assert statuses[2] == 200
    assert env.call(ToolCall("crm_search", {"query": "a"})).status == 200  # untargeted tool
    first = env.audit
    again = _env(tmp_path / "again", middleware=[layer])
    for _ in range(3):
        again.call(ToolCall("crm_get", {"id": "C1"}))
    assert [e.status for e in again.audit] == [e.status for e in first[:3]]


def test_the_reference_can_fail_on_an_unhandled_tool_error(tmp_path):
    layer = {"name": "transient_failures", "params": {"tools": ["crm_get"], "rate": 1.0}}
    env = _env(tmp_path, middleware=[layer])
    outcome = env.run_reference()
    assert outcome.answer is None
    assert env.grade(outcome.answer).score < 1.0


def test_check_validates_tool_tasks(tmp_path):
    task = load_tool_task(make_tool_task(tmp_path))
    [verdict] = check_tasks([task], backend="local", store=EpisodeStore(tmp_path / "store"))
    assert verdict.valid, verdict.problems


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda t: t.replace("operation: search", "operation: erase"), "operation 'erase'"),
        (lambda t: t.replace("service: mail", "service: post"), "tools.2.service"),
        (lambda t: t.replace("max_turns: 20", "max_turns: -1"), "field 'max_turns'"),
        (lambda t: t + "surprise: 1\n", "field 'surprise'"),
    ],
)
def test_malformed_task_yaml_names_the_field(tmp_path, edit, needle):
    path = make_tool_task(tmp_path)
    yaml_path = path / "task.yaml"
    yaml_path.write_text(edit(yaml_path.read_text()))
    with pytest.raises(TaskFormatError) as info:
        load_tool_task(path)
    assert str(yaml_path) in str(info.value)
    assert needle in str(info.value)


def test_unknown_middleware_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="unknown middleware 'paging'"):
        _env(tmp_path, middleware=[{"name": "paging"}])


def test_broken_fixture_file_is_named(tmp_path):
    path = make_tool_task(tmp_path)
    (path / "fixtures" / "crm.json").write_text("{not json")
    with pytest.raises(TaskFormatError, match=r"crm\.json: not valid JSON"):
        load_tool_task(path)
