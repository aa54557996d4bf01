"""RES on Claw-Eval-Live tasks acts on the task's own records, as its services answer them.

The operators see the records each mock service loads (the task's fixture file) and change what the
agent gets back through layers over the services' answers, whatever envelope a service uses; the task's
data, its services and its grader stay as they are.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from res_repro.env.formats.claw_eval_live import CLAW_EVAL_LIVE
from res_repro.env.formats.claw_eval_live.task_file import SCALED_FIXTURES_DIR, load_claw_eval_live
from res_repro.env.task import Task
from res_repro.env.tools import ToolCall
from res_repro.res.graph import DependencyGraph
from res_repro.res.operators import OPERATORS

FIXTURE = Path(__file__).parent / "fixtures" / "claw_eval_live" / "checkout"
T01 = "CTB_T01_vpn_ticket_close"

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURE, tmp_path / "Claw-Eval-Live"))


def _copy(checkout: Path, dest: Path) -> tuple[Task, Path]:
    task = next(t for t in load_claw_eval_live(checkout) if t.task_id == T01)
    CLAW_EVAL_LIVE.copy(task, dest)
    return task, dest


def test_the_draft_ties_each_tool_to_the_records_its_service_loads(checkout: Path, tmp_path: Path) -> None:
    _, dest = _copy(checkout, tmp_path / "child")
    draft = CLAW_EVAL_LIVE.draft(dest)
    tools = {t.name: t for t in draft.config.tools}
    assert {t.collection for t in tools.values()} == {"tickets"}
    assert tools["helpdesk_get_ticket"].id_field == "ticket_id"
    assert [r["ticket_id"] for r in draft.fixtures["helpdesk"]["tickets"]][:2] == ["TK-101", "TK-102"]
    draft.save()  # the task's data is never copied into the harness's own fixtures
    assert not (dest / SCALED_FIXTURES_DIR).exists()


def test_a_quota_rationing_an_argument_the_tool_does_not_take_is_not_applied(
    checkout: Path, tmp_path: Path
) -> None:
    _, dest = _copy(checkout, tmp_path / "child")
    draft = CLAW_EVAL_LIVE.draft(dest)
    quota = OPERATORS["call_quota"]
    proposed = quota.propose(draft, DependencyGraph(), random.Random(0))
    assert proposed is not None and proposed["argument"] == "ticket_id"
    mismatched = {**proposed, "tool": "helpdesk_get_ticket", "argument": "id"}
    quota.apply(draft, mismatched, DependencyGraph())
    problem = quota.applied(draft, mismatched)
    assert problem is not None and "takes no argument 'id'" in problem


def test_pagination_and_stale_copies_act_on_the_services_own_envelope(checkout: Path, tmp_path: Path) -> None:
    parent, dest = _copy(checkout, tmp_path / "child")
    draft = CLAW_EVAL_LIVE.draft(dest)
    graph = DependencyGraph()
    copies = OPERATORS["superseded_copies"].propose(draft, graph, random.Random(0))
    assert copies is not None and copies["collection"] == "tickets"
    OPERATORS["superseded_copies"].apply(draft, copies, graph)
    OPERATORS["paginate"].apply(draft, {"tool": "helpdesk_list_tickets", "page_size": 3}, graph)
    draft.save()
    child = CLAW_EVAL_LIVE.load(dest, "claw_eval_live", CLAW_EVAL_LIVE.context(parent))
    with CLAW_EVAL_LIVE.open(child, "local", 0) as environment:
        first = environment.call(ToolCall("helpdesk_list_tickets", {})).body
        second = environment.call(ToolCall("helpdesk_list_tickets", {"cursor": first["next_cursor"]})).body
    listed = first["tickets"] + second["tickets"]
    superseded = [t for t in listed if t.get("record_state") == "superseded"]
    assert len(superseded) == len(copies["copies"]) and len(listed) == 4 + len(superseded)
    assert len(first["tickets"]) == 3 and first["next_cursor"] and second["next_cursor"] is None
    fixture = dest / "fixtures" / "helpdesk" / "tickets.json"
    assert len(json.loads(fixture.read_text())) == 4  # the task's own data is untouched
