"""The table model renders the same cells in Markdown, CSV and LaTeX."""

from __future__ import annotations

import csv
import io

import pytest

from res_repro.reporting.tables import Table, latex_escape


def _table() -> Table:
    table = Table(title="T", columns=["agent", "Pass@1 (%)"], notes=["scripted"])
    table.add_row("oracle", "100.00")
    table.add_row("nop_x", 0)
    return table


def test_markdown_has_header_rows_and_notes():
    text = _table().to_markdown()
    assert "| agent | Pass@1 (%) |" in text
    assert "| nop_x | 0 |" in text
    assert "- scripted" in text


def test_the_heading_and_notes_are_read_back_from_the_markdown():
    table = _table()
    table.add_row("- not a note", "1")  # a cell that looks like a note stays in the grid
    table.notes.append("a note naming | a pipe")
    assert Table.heading_and_notes(table.to_markdown()) == ("T", ["scripted", "a note naming | a pipe"])
    assert Table.heading_and_notes("") == ("", [])


def test_csv_round_trips():
    rows = list(csv.reader(io.StringIO(_table().to_csv())))
    assert rows == [["agent", "Pass@1 (%)"], ["oracle", "100.00"], ["nop_x", "0"]]


def test_latex_escapes_specials():
    text = _table().to_latex()
    assert r"Pass@1 (\%)" in text
    assert r"nop\_x & 0 \\" in text


def test_row_length_is_checked():
    with pytest.raises(ValueError, match="row has 1 cells"):
        _table().add_row("only-one")


def test_write_makes_three_files(tmp_path):
    paths = _table().write(tmp_path, "t")
    assert sorted(p.name for p in paths) == ["t.csv", "t.md", "t.tex"]


def test_latex_escapes_every_special_character():
    table = Table(title="T\nsecond line", columns=["a"])
    table.add_row(r"C:\dir ~/x a^2 & 50% $5 #1 f_x {y} p <1e-04 >0")
    text = table.to_latex()
    expected = (
        r"C:\textbackslash{}dir \textasciitilde{}/x a\textasciicircum{}2 \& 50\% \$5 \#1 f\_x \{y\} "
        r"p \textless{}1e-04 \textgreater{}0 \\"
    )
    assert expected in text.splitlines()
    assert text.splitlines()[0] == "% T second line"


def test_latex_escape_leaves_plain_text_and_escapes_backslash_once():
    assert latex_escape("Pass@1 (scripted) 91.01") == "Pass@1 (scripted) 91.01"
    assert latex_escape("\\{") == r"\textbackslash{}\{"
