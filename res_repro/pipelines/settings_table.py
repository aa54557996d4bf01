"""Tables of settings beside the paper's: one row per setting, a column per configuration, each followed
by the paper's value for it (blank where the paper gives none)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from res_repro.reporting.tables import Table

NOT_STATED = "not stated"  # a setting the paper does not report


@dataclass(frozen=True)
class Setting:
    """One row: its label, the value under each configuration, and the paper's for those it reports."""

    label: str
    ours: Mapping[str, str]  # configuration -> value
    paper: Mapping[str, str]  # configuration -> the paper's value (missing: the paper has no such column)


def settings_table(title: str, configurations: Sequence[str], rows: Sequence[Setting]) -> Table:
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
