"""Settings tables (Tables A1 and A3): each setting a run used, the config key it was read from, and
the paper's value beside it.

A :class:`Setting` is built from the composed config by key (:func:`from_config`), so the table shows
what the run used and says where to change it; a setting that is not a config value (what a protocol
is for) names no key.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig, OmegaConf

from res_repro.reporting.tables import Table

COLUMNS = ("setting", "this run", "config", "paper", "as in the paper")


@dataclass(frozen=True)
class Setting:
    """One row: the group it belongs to (a protocol, a model size), its name, this run's value, the
    config key(s) it comes from ("" when none) and the paper's value ("" when the paper gives none)."""

    group: str
    name: str
    value: str
    source: str
    paper: str


def from_config(
    cfg: DictConfig,
    group: str,
    name: str,
    key: str,
    paper: Any,
    render: Callable[[Any], str] = str,
) -> Setting:
    """The setting read from ``cfg`` at ``key`` (``render`` writes it as the table shows it)."""
    return Setting(
        group, name, render(OmegaConf.select(cfg, key, throw_on_missing=True)), key, paper_text(paper)
    )


def paper_text(value: Any) -> str:
    """The paper's value as text (``complete_fulfilment`` as ``complete fulfilment``; absent as "")."""
    return "" if value is None else str(value).replace("_", " ")


def same(value: str, paper: str) -> str:
    """``yes`` or ``no`` when both are given (numbers compared as numbers), else ""."""
    if not value or not paper:
        return ""
    try:
        equal = float(value) == float(paper)
    except ValueError:
        equal = value.strip().lower() == paper.strip().lower()
    return "yes" if equal else "no"


def settings_table(title: str, group: str, settings: Sequence[Setting]) -> Table:
    """The table of ``settings``, one row each; ``group`` names the first column. Only settings read
    from the config are compared with the paper's."""
    table = Table(title=title, columns=[group, *COLUMNS])
    for s in settings:
        table.add_row(s.group, s.name, s.value, s.source, s.paper, same(s.value, s.paper) if s.source else "")
    return table
