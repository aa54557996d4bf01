"""The paper's reported figures, kept in ``experiments/paper_reported.yaml``, for the "paper" column."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

PAPER_FILE = Path(__file__).resolve().parents[2] / "experiments" / "paper_reported.yaml"


@cache
def paper_values() -> dict[str, Any]:
    """The whole reported-figures file, parsed once."""
    return yaml.safe_load(PAPER_FILE.read_text(encoding="utf-8"))


def paper_rows(table: str) -> list[dict[str, Any]]:
    """The rows the paper reports for ``table`` (for example ``table1``)."""
    return list(paper_values()[table]["rows"])
