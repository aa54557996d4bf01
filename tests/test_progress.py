"""Progress without a terminal: labelled plain lines with done/total, and one closing line."""

from __future__ import annotations

import logging

from res_repro.evaluation.progress import progress


def test_piped_progress_prints_labelled_plain_lines(caplog):
    caplog.set_level(logging.INFO, logger="res_repro.evaluation.progress")
    with progress("suite: evaluation", 4, completed=1, every_s=0.0) as advance:
        for _ in range(3):
            advance()
    lines = [r.getMessage() for r in caplog.records]
    assert [line.split(",")[0] for line in lines[:2]] == ["suite: evaluation: 2/4", "suite: evaluation: 3/4"]
    assert all("s left" in line for line in lines[:2])
    assert lines[2].startswith("suite: evaluation: 4/4 done in ") and len(lines) == 3


def test_disabled_or_empty_progress_says_nothing(caplog):
    caplog.set_level(logging.INFO, logger="res_repro.evaluation.progress")
    for enabled, total in ((False, 3), (True, 0)):
        with progress("x", total, enabled=enabled) as advance:
            advance()
    assert caplog.records == []
