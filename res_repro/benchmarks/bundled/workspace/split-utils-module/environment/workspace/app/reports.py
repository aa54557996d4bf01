"""Quarterly report lines."""

from app.utils import normalize_whitespace as tidy
from app.utils import quarter_of, truncate


def report_line(day, customer, note, width=30):
    return f"{quarter_of(day)} | {tidy(customer)} | {truncate(tidy(note), width)}"
