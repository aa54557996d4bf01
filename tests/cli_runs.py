"""The harness started as a user starts it: ``python -m res_repro`` with Hydra overrides, in a child
process."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

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
