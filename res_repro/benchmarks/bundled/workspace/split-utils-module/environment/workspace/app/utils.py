"""Assorted helpers."""

import re
import unicodedata
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

_SPACES = re.compile(r"\s+")


def _clean(text):
    """NFKD-normalise and strip accents."""
    text = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def slugify(text):
    text = _clean(text).lower()
    text = re.sub(r"[^a-z0-9]+", "-", text)
    return text.strip("-")


def legacy_slug(text):
    """Old slug format (underscores), kept from the 2019 importer."""
    return re.sub(r"\W+", "_", text.lower()).strip("_")


def normalize_whitespace(text):
    return _SPACES.sub(" ", _clean(text)).strip()


def truncate(text, width, suffix="…"):
    if len(text) <= width:
        return text
    return text[: max(width - len(suffix), 0)].rstrip() + suffix


def parse_date(value):
    """Accept 2024-03-01, 01.03.2024 or 2024/03/01."""
    for fmt in ("%Y-%m-%d", "%d.%m.%Y", "%Y/%m/%d"):
        try:
            return datetime.strptime(value.strip(), fmt).date()
        except ValueError:
            continue
    raise ValueError(f"unrecognised date: {value!r}")


def business_days_between(start, end):
    """Working days (Mon-Fri) after ``start`` up to and including ``end``."""
    days, current = 0, start
    while current < end:
        current += timedelta(days=1)
        if current.weekday() < 5:
            days += 1
    return days


def quarter_of(day):
    return f"{day.year}-Q{(day.month - 1) // 3 + 1}"


def format_eur(amount):
    amount = Decimal(amount).quantize(Decimal("0.01"), ROUND_HALF_UP)
    whole, frac = f"{amount:.2f}".split(".")
    sign = "-" if whole.startswith("-") else ""
    whole = whole.lstrip("-")
    groups = []
    while whole:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    return f"{sign}{'.'.join(groups)},{frac} €"


def parse_amount(text):
    """Parse '1.234,50 €' or '1234.50' into a Decimal."""
    text = text.replace("€", "").strip()
    if "," in text:
        text = text.replace(".", "").replace(",", ".")
    return Decimal(text)


def today():
    return date.today()
