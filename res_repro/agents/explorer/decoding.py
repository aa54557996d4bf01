"""Decoding a value by the scheme a codec record states: base64, rot13, a caesar shift, or a scale."""

from __future__ import annotations

import base64
import binascii
import codecs
from typing import Any


def _shift_back(text: str, shift: int) -> str:
    """Undo a forward shift of letters (a-z, A-Z) and digits (0-9), each wrapping within its range."""

    def back(ch: str) -> str:
        for first, size in (("a", 26), ("A", 26), ("0", 10)):
            if ord(first) <= ord(ch) < ord(first) + size:
                return chr(ord(first) + (ord(ch) - ord(first) - shift) % size)
        return ch

    return "".join(back(ch) for ch in text)


def _decode_text(scheme: str, shift: int, text: str) -> str:
    if scheme == "base64":
        return base64.b64decode(text.encode()).decode()
    if scheme == "rot13":
        return codecs.decode(text, "rot13")
    if scheme == "caesar":
        return _shift_back(text, shift)
    raise ValueError(f"unknown text scheme {scheme!r}")


def decode_value(scheme: str, shift: int, value: Any) -> Any:
    """``value`` decoded; numbers under ``scale`` are divided by ``shift`` (staying whole when they can)."""
    scheme = scheme.lower()
    if scheme == "scale":
        if isinstance(value, int) and not isinstance(value, bool) and value % shift == 0:
            return value // shift
        return round(float(value) / shift, 6)
    if isinstance(value, list):
        return [_decode_text(scheme, shift, item) for item in value]
    return _decode_text(scheme, shift, str(value))


def try_decode(scheme: str, shift: Any, value: Any) -> tuple[bool, Any]:
    """(True, decoded) when the scheme applies to the value, else (False, value)."""
    try:
        return True, decode_value(scheme, int(shift or 1), value)
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError, ZeroDivisionError):
        return False, value
