"""Reading task files: one-line errors that name the file and the field, for every format; parsed
YAML documents kept by content hash, so a task file read again (a lineage node loaded, copied, drafted
and checked) is parsed once."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from res_repro.env.errors import TaskFormatError
from res_repro.yamlio import dump_yaml, load_yaml


def pydantic_error(path: Path, exc: ValidationError) -> TaskFormatError:
    """Pydantic's first complaint about a task file as one line naming the file and the field."""
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    return TaskFormatError(path, field, f"{first['msg']} (got {first.get('input')!r})")


MAX_PARSED = 512  # documents kept (a task file is a few to tens of KB)
_parsed: dict[str, str] = {}  # sha256 of a task file's text -> its document as JSON text


def parse_yaml_cached(text: str) -> Any:
    """The YAML document ``text``, parsed once per distinct content: later calls with the same text
    decode a JSON copy of it (a fresh object each time, so callers may change what they get). A
    document that JSON does not carry exactly (dates, non-string keys) is parsed every time."""
    kept = _parsed.get(_text_key(text))
    if kept is not None:
        return json.loads(kept)
    document = load_yaml(text)
    _keep(text, document)
    return document


def dump_yaml_cached(document: Any) -> str:
    """``document`` as YAML text (see :func:`~res_repro.yamlio.dump_yaml`), kept as that text's parse, so
    reading the file just written parses nothing."""
    text = dump_yaml(document)
    _keep(text, document)
    return text


def _text_key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _keep(text: str, document: Any) -> None:
    """Keep ``document`` as the parse of ``text`` when JSON carries it exactly."""
    try:
        encoded = json.dumps(document, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return
    if json.loads(encoded) != document:
        return
    if len(_parsed) >= MAX_PARSED:
        del _parsed[next(iter(_parsed))]  # the oldest entry
    _parsed[_text_key(text)] = encoded


def read_yaml_mapping(path: Path, needed_by: str) -> dict[str, Any]:
    """A YAML file whose top level is a mapping; a missing or malformed file is a :class:`TaskFormatError`."""
    try:
        raw = parse_yaml_cached(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskFormatError(path, None, f"missing; {needed_by}") from None
    except yaml.YAMLError as exc:
        raise TaskFormatError(path, None, f"not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise TaskFormatError(path, None, "expected a mapping at the top level")
    return raw


def has_top_level_key(path: Path, key: str) -> bool:
    """True when the YAML file ``path`` has ``key`` at its top level (read as text, without parsing)."""
    pattern = re.compile(rf"^{re.escape(key)}\s*:", re.MULTILINE)
    return path.is_file() and pattern.search(path.read_text(encoding="utf-8", errors="replace")) is not None
