"""Values as a reader wants them: JSON pretty-printed (a string holding JSON is parsed first, so tool
arguments and results never show as escaped strings), each multi-line string inside it shown as text of
its own under its path (the JSON names the path in its place), and numbers rounded as the tables round
them."""

from __future__ import annotations

import json
from typing import Any

DIGITS = 2  # the tables' rounding (rates, scores x 100, seconds)


def parsed(value: Any) -> Any:
    """``value``, or what it holds when it is a string holding a JSON object or array."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _elided(value: Any, path: str = "") -> Any:
    """``value`` with each multi-line string inside replaced by a pointer to where :func:`long_texts` shows
    it."""
    if isinstance(value, dict):
        return {k: _elided(v, f"{path}.{k}" if path else str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_elided(v, f"{path}[{i}]") for i, v in enumerate(value)]
    if _multiline(value) and path:
        return f"<{value.count(chr(10)) + 1} lines: see {path} below>"
    return value


def _multiline(value: Any) -> bool:
    return isinstance(value, str) and "\n" in value.strip()


def pretty(value: Any) -> str:
    """``value`` (parsed first) as JSON indented by two spaces, its multi-line strings elided (shown by
    :func:`long_texts`); a plain string is shown as it is."""
    value = parsed(value)
    if isinstance(value, str):
        return value
    return json.dumps(_elided(value), indent=2, ensure_ascii=False, default=str)


def long_texts(value: Any, path: str = "") -> list[tuple[str, str]]:
    """``(path, text)`` of every multi-line string inside ``value`` (parsed first), which JSON can only show
    with escaped line breaks; a path is its keys and indexes joined by dots."""
    value = parsed(value)
    if isinstance(value, dict):
        return [found for k, v in value.items() for found in long_texts(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [found for i, v in enumerate(value) for found in long_texts(v, f"{path}[{i}]")]
    if _multiline(value) and path:
        return [(path, value)]
    return []


def number(value: Any, scale: float = 1.0) -> str:
    """A number times ``scale`` rounded as the tables round (two decimals); anything else as text, None
    as nothing."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{value * scale:.{DIGITS}f}"
