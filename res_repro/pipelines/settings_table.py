"""Settings tables beside the paper's, in two layouts: one row per setting a run used, with the config
key it was read from and the paper's value (:func:`settings_table`, Table A1); and one row per setting
with a column per configuration, each followed by the paper's value (:func:`configurations_table`,
Table A3, a column per SFT recipe).

A :class:`Setting` is built from the composed config by key (:func:`from_config`), so the table shows
what the run used and says where to change it; a setting that is not a config value (what a protocol
is for) names no key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig, OmegaConf

from res_repro.reporting.tables import Table

COLUMNS = ("setting", "this run", "config", "paper", "as in the paper")
NOT_STATED = "not stated"  # a setting the paper does not report


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


@dataclass(frozen=True)
class ConfiguredSetting:
    """One row of :func:`configurations_table`: its label, the value under each configuration, and the
    paper's for those it reports."""

    label: str
    ours: Mapping[str, str]  # configuration -> value
    paper: Mapping[str, str]  # configuration -> the paper's value (missing: the paper has no such column)


def configurations_table(
    title: str, configurations: Sequence[str], rows: Sequence[ConfiguredSetting]
) -> Table:
    """A table with each configuration's column followed by the paper's where the paper has that column."""
    reported = [c for c in configurations if any(c in row.paper for row in rows)]
    columns = ["setting"]
    for configuration in configurations:
        columns += [configuration, *(["paper"] if configuration in reported else [])]
    table = Table(title=title, columns=columns)
    for row in rows:
        cells = [row.label]
        for configuration in configurations:
            cells.append(row.ours.get(configuration, ""))
            if configuration in reported:
                cells.append(row.paper.get(configuration, NOT_STATED))
        table.add_row(*cells)
    return table
