"""A small table model rendered as Markdown, CSV and LaTeX, so every result exists in all three."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}
"""Characters LaTeX reads as commands in running text, and what prints them literally. ``<`` and ``>``
print as other glyphs under the default OT1 font encoding (a bootstrap p of ``<1e-04``)."""


def latex_escape(text: str) -> str:
    """``text`` with every LaTeX special character replaced by what prints it literally.

    Characters are replaced one at a time, so the braces a replacement adds (``\\textbackslash{}``) are
    never escaped again.
    """
    return "".join(LATEX_SPECIAL.get(char, char) for char in text)


@dataclass
class Table:
    """A titled grid of strings with notes underneath (who produced the numbers, what is missing)."""

    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add_row(self, *cells: object) -> None:
        """Append a row; cells are turned into strings, and the count must match the columns."""
        if len(cells) != len(self.columns):
            raise ValueError(f"row has {len(cells)} cells, table {self.title!r} has {len(self.columns)}")
        self.rows.append(["" if cell is None else str(cell) for cell in cells])

    def to_markdown(self) -> str:
        """GitHub-flavoured Markdown with the title as a heading and the notes as a list."""
        lines = [f"### {self.title}", "", "| " + " | ".join(self.columns) + " |"]
        lines.append("|" + "|".join("---" for _ in self.columns) + "|")
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        if self.notes:
            lines += [""] + [f"- {note}" for note in self.notes]
        return "\n".join(lines) + "\n"

    @staticmethod
    def heading_and_notes(markdown: str) -> tuple[str, list[str]]:
        """The title and the notes of a table that :meth:`to_markdown` wrote (the cells are read from the
        CSV): the ``###`` heading, and each ``- `` line after the grid."""
        lines = markdown.splitlines()
        title = next((line[4:] for line in lines if line.startswith("### ")), "")
        grid = [i for i, line in enumerate(lines) if line.startswith("|")]
        after = lines[grid[-1] + 1 :] if grid else []
        return title, [line[2:] for line in after if line.startswith("- ")]

    def to_csv(self) -> str:
        """CSV with a header row; notes are left out (they live in the Markdown)."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.columns)
        writer.writerows(self.rows)
        return buffer.getvalue()

    def to_latex(self) -> str:
        """A booktabs ``tabular`` with the title as a comment."""
        spec = "l" * len(self.columns)
        title = " ".join(self.title.splitlines())  # a line break would end the comment
        lines = [f"% {title}", rf"\begin{{tabular}}{{{spec}}}", r"\toprule"]
        lines.append(" & ".join(latex_escape(c) for c in self.columns) + r" \\")
        lines.append(r"\midrule")
        lines += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in self.rows]
        lines += [r"\bottomrule", r"\end{tabular}"]
        return "\n".join(lines) + "\n"

    def write(self, folder: Path | str, name: str) -> list[Path]:
        """Write ``name.md``, ``name.csv`` and ``name.tex`` into ``folder``; return their paths."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for suffix, text in (("md", self.to_markdown()), ("csv", self.to_csv()), ("tex", self.to_latex())):
            path = folder / f"{name}.{suffix}"
            path.write_text(text, encoding="utf-8")
            written.append(path)
        return written
