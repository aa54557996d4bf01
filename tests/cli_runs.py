"""The harness started as a user starts it: ``python -m res_repro`` with Hydra overrides, in a child
process, or its command line run in the test's own process (:func:`run_in_process`)."""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from hydra.core.global_hydra import GlobalHydra

from res_repro import cli

ONE_LEVEL = ("scaling.depth_cap=1", "scaling.target=null")
"""Scale each seed task by one level only, with no agent as the scaling target."""


def table1_command(root: Path, *overrides: str, flags: Sequence[str] = ()) -> list[str]:
    """The command line of a Table 1 run that writes under ``root`` and draws no progress bars, with
    Hydra ``flags`` (``--multirun``) and then ``overrides``."""
    return [
        sys.executable,
        "-m",
        "res_repro",
        *flags,
        "experiment=table1",
        f"paths.root_dir={root}",
        "show_progress=false",
        *overrides,
    ]


def run_in_process(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``res-repro ARGV`` in this process: its exit status, stdout and stderr (signal handlers, Hydra's
    global state and the root logger's handlers put back as they were)."""
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE)}
    saved = sys.argv
    sys.argv = ["res-repro", *argv]
    status = 0
    try:
        cli.main()
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = saved
        for number, handler in handlers.items():
            signal.signal(number, handler)
        GlobalHydra.instance().clear()
        for handler in logging.root.handlers[:]:  # Hydra's, writing to this case's captured streams
            logging.root.removeHandler(handler)
    captured = capsys.readouterr()
    return status, captured.out, captured.err
