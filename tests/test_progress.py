"""Progress without a terminal: labelled plain lines with done/total, and one closing line; parallel jobs
write whole lines, and the jobs of a multirun print a shared protocol once."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

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


def test_jobs_of_a_multirun_print_a_shared_protocol_once(tmp_path, monkeypatch, capsys):
    import res_repro.pipelines as pipelines

    monkeypatch.setattr(pipelines, "multirun_dir", lambda: tmp_path / "sweep")
    for text in ("protocol A", "protocol A", "protocol B"):
        pipelines.announce_once(text)
    assert capsys.readouterr().out.splitlines() == ["protocol A", "protocol B"]
    monkeypatch.setattr(pipelines, "multirun_dir", lambda: None)  # a single run always prints
    pipelines.announce_once("protocol A")
    assert capsys.readouterr().out == "protocol A\n"


WRITER = """
import sys, time
from res_repro.app import whole_lines

whole_lines()
for index in range(1000):
    print(f"{sys.argv[1]} {index:05d} " + sys.argv[1] * 150)
    time.sleep(0.002)  # both jobs write at the same time
"""


@pytest.mark.slow
def test_parallel_jobs_do_not_break_each_others_lines():
    read, write = os.pipe()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # unbuffered, print writes a line in two pieces
    jobs = [subprocess.Popen([sys.executable, "-c", WRITER, name], stdout=write, env=env) for name in "ab"]
    os.close(write)
    with os.fdopen(read) as pipe:
        lines = pipe.read().splitlines()
    assert all(job.wait(timeout=120) == 0 for job in jobs)
    assert len(lines) == 2000
    for line in lines:
        name, index, filler = line.split(" ")
        assert filler == name * 150 and len(index) == 5, line[:40]
