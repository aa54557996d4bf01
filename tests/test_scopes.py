"""The process-wide scope that the run's pools (warm sandboxes, Claw-Eval-Live services) share."""

from __future__ import annotations

import pytest

from res_repro.scopes import ProcessWide


def test_nested_blocks_share_the_outermost_object_and_only_it_closes() -> None:
    scope: ProcessWide[list[str]] = ProcessWide()
    closed: list[list[str]] = []
    made = 0

    def make() -> list[str]:
        nonlocal made
        made += 1
        return [f"pool {made}"]

    with scope.scope(make, closed.append) as outer:
        with scope.scope(make, closed.append) as inner:
            assert inner is outer and scope.current is outer
        assert closed == [] and scope.current is outer
    assert (made, closed, scope.current) == (1, [["pool 1"]], None)


def test_a_failing_block_still_clears_and_closes() -> None:
    scope: ProcessWide[list[str]] = ProcessWide()
    closed: list[list[str]] = []
    with pytest.raises(RuntimeError), scope.scope(lambda: ["pool"], closed.append):
        raise RuntimeError("episode failed")
    assert (closed, scope.current) == ([["pool"]], None)
