"""Sequences cut to the maximum length, cut here and counted, so that nothing is dropped silently."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from res_repro.sft.labels import IGNORE

REPORT_FILE = "truncation.json"


@dataclass(frozen=True)
class TruncationReport:
    """How many samples and tokens of one condition's training set exceeded ``max_length``."""

    max_length: int
    samples: int
    tokens: int  # before cutting
    samples_over: int
    tokens_cut: int
    longest: int
    samples_dropped: int  # left with no labelled token after the cut, so they teach nothing

    def line(self, condition: str) -> str:
        """One printable line: what was cut, or that every sample was kept whole."""
        if not self.samples_over:
            return (
                f"{condition}: all {self.samples} samples fit in {self.max_length} tokens "
                f"(longest {self.longest}); nothing cut"
            )
        share = self.tokens_cut / self.tokens if self.tokens else 0.0
        return (
            f"{condition}: {self.samples_over} of {self.samples} samples exceed {self.max_length} tokens "
            f"(longest {self.longest}); {self.tokens_cut} of {self.tokens} tokens ({share:.1%}) cut from "
            f"their ends; {self.samples_dropped} left without an assistant token and dropped"
        )

    def write(self, out: Path) -> Path:
        """Save the report as ``truncation.json`` in ``out``."""
        path = out / REPORT_FILE
        path.write_text(json.dumps(asdict(self), indent=2), encoding="utf-8")
        return path


def truncate(
    rows: Iterable[tuple[list[int], list[int]]], max_length: int
) -> tuple[list[tuple[list[int], list[int]]], TruncationReport]:
    """Cut every (ids, labels) pair to ``max_length`` tokens, keeping the start, and count what was cut;
    a pair left with no labelled token is dropped (and counted)."""
    kept, lengths = [], []
    for ids, labels in rows:
        lengths.append(len(ids))
        cut = labels[:max_length]
        if any(label != IGNORE for label in cut):
            kept.append((ids[:max_length], cut))
    over = [n for n in lengths if n > max_length]
    report = TruncationReport(
        max_length=max_length,
        samples=len(lengths),
        tokens=sum(lengths),
        samples_over=len(over),
        tokens_cut=sum(n - max_length for n in over),
        longest=max(lengths, default=0),
        samples_dropped=len(lengths) - len(kept),
    )
    return kept, report
