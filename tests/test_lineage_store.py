"""The lineage store: nodes are reused by id, and a node edited by hand is refused with one clear line."""

from __future__ import annotations

import pytest
from scalers import build_scaler
from tool_factory import make_tool_task

from res_repro.env.errors import TaskFormatError
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.res.lineage import LineageStore
from res_repro.res.operators import library
from res_repro.res.proposer import ProgrammaticProposer


class CountingProposer(ProgrammaticProposer):
    """The programmatic proposer, counting its proposals."""

    calls = 0

    def propose(self, context, rng, cost):
        CountingProposer.calls += 1
        return super().propose(context, rng, cost)


def _scale(tmp_path, depth_cap: int = 2, proposer=None):
    scaler = build_scaler(tmp_path / "lineages", depth_cap=depth_cap, proposer=proposer)
    return scaler.scale(load_tool_task(make_tool_task(tmp_path / "seed")))


def test_a_rerun_reuses_every_node(tmp_path):
    first = _scale(tmp_path)
    manifests = sorted((tmp_path / "lineages").rglob("manifest.json"))
    stamps = [p.stat().st_mtime_ns for p in manifests]
    second = _scale(tmp_path)
    assert [n.manifest.node_id for n in second.nodes] == [n.manifest.node_id for n in first.nodes]
    assert [p.stat().st_mtime_ns for p in manifests] == stamps
    assert all(c["passed"] for n in first.nodes[1:] for c in n.manifest.checks)


def test_a_rerun_proposes_nothing_and_other_settings_grow_anew(tmp_path):
    CountingProposer.calls = 0
    first = _scale(tmp_path, proposer=CountingProposer(library(None)))
    built = CountingProposer.calls
    assert built >= 2
    again = _scale(tmp_path, proposer=CountingProposer(library(None)))
    assert CountingProposer.calls == built  # every child was recalled, none re-proposed
    assert [n.manifest.node_id for n in again.nodes] == [n.manifest.node_id for n in first.nodes]
    _scale(tmp_path, proposer=CountingProposer(library(None), per_child=2))
    assert CountingProposer.calls > built  # a different proposer is a different growth key


def test_a_node_edited_by_hand_is_refused(tmp_path):
    result = _scale(tmp_path, depth_cap=1)
    node = result.last
    fixture = node.env_dir / "fixtures" / "crm.json"
    edited = fixture.read_text().replace("Acme", "Acne")
    assert edited != fixture.read_text()
    fixture.write_text(edited)
    with pytest.raises(TaskFormatError) as info:
        LineageStore(tmp_path / "lineages").load(node.manifest.seed_task_id, node.manifest.node_id)
    assert "manifest.json: field 'content_hash'" in str(info.value)
    assert "edited by hand" in str(info.value)
