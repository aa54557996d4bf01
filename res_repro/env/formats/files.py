"""Reading and writing task files: one-line errors that name the file and the field, for every format;
parsed YAML documents kept by content hash, so a task file read again (a lineage node loaded, copied,
drafted and checked) is parsed once; YAML and indented JSON written from the kept text of each
top-level entry, so a file that grows by one entry per lineage node serialises that entry alone."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
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
    _keep(text, _json_exact(document))
    return document


def dump_yaml_cached(document: Any) -> str:
    """``document`` as YAML text (see :func:`~res_repro.yamlio.dump_yaml`), kept as that text's parse,
    so reading the file just written parses nothing.

    A mapping that JSON carries exactly is written entry by entry, a non-empty list entry item by item,
    each text kept by its JSON encoding: block-style YAML starts every top-level entry and every item of
    a top-level list at column 0, so their texts join into the whole document's (that of its JSON copy,
    which differs only where one list or mapping object sits in two places: YAML's anchors). A task
    file that grew by one tool or layer then serialises that one alone."""
    encoded = _json_exact(document)
    if encoded is None or not isinstance(document, dict) or not document:
        text = dump_yaml(document)
    else:
        text = "".join(_yaml_entry(key, value) for key, value in json.loads(encoded).items())
    _keep(text, encoded)
    return text


def dump_json_cached(document: Any, *, ensure_ascii: bool) -> str:
    """``json.dumps(document, indent=1, ensure_ascii=ensure_ascii)``, joined from the kept texts of the
    entries of a mapping (string keys) or the items of a list: JSON escapes the newlines inside
    strings, so an entry nests by indenting each of its lines one space."""
    if isinstance(document, dict) and document and all(isinstance(key, str) for key in document):
        entries = [
            f"{json.dumps(key, ensure_ascii=ensure_ascii)}: {_json_nested(value, ensure_ascii)}"
            for key, value in document.items()
        ]
        return "{\n " + ",\n ".join(entries) + "\n}"
    if isinstance(document, list) and document:
        return "[\n " + ",\n ".join(_json_nested(item, ensure_ascii) for item in document) + "\n]"
    return json.dumps(document, indent=1, ensure_ascii=ensure_ascii)


MAX_SERIALISED = 4096  # entry texts kept (a tool, a layer, a fixture collection: under a few KB each)
_serialised: dict[str, str] = {}  # "<writer> <JSON encoding of a part>" -> the part's text


def _kept_text(key: str, write: Callable[[], str]) -> str:
    """The text kept under ``key``, written (and kept) on first use."""
    text = _serialised.get(key)
    if text is None:
        text = write()
        if len(_serialised) >= MAX_SERIALISED:
            del _serialised[next(iter(_serialised))]  # the oldest entry
        _serialised[key] = text
    return text


def _yaml_entry(key: str, value: Any) -> str:
    """One top-level entry of a YAML mapping; a non-empty list under a plain key as the key's line and
    its items, each item written as under a plain key (in the same indentless block sequence)."""
    unit = {key: value}
    plain = _kept_text(f"yaml-key {json.dumps(key)}", lambda: dump_yaml({key: [None]})) == f"{key}:\n- null\n"
    if not isinstance(value, list) or not value or not plain:
        return _kept_text(f"yaml {json.dumps(unit, ensure_ascii=False)}", lambda: dump_yaml(unit))
    items = (
        _kept_text(
            f"yaml-item {json.dumps(item, ensure_ascii=False)}", lambda i=item: dump_yaml({"k": [i]})[3:]
        )
        for item in value
    )
    return f"{key}:\n" + "".join(items)


def _json_nested(value: Any, ensure_ascii: bool) -> str:
    """``value`` as indented JSON one level down (each line after the first indented one space)."""
    return _kept_text(
        f"json-{ensure_ascii} {json.dumps(value, ensure_ascii=False)}",
        lambda: json.dumps(value, indent=1, ensure_ascii=ensure_ascii).replace("\n", "\n "),
    )


def _text_key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _json_exact(document: Any) -> str | None:
    """``document``'s JSON encoding when decoding it gives the same document back, else None."""
    try:
        encoded = json.dumps(document, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None
    return encoded if json.loads(encoded) == document else None


def _keep(text: str, encoded: str | None) -> None:
    """Keep the document JSON-encoded as ``encoded`` as the parse of ``text`` (None: nothing to keep)."""
    if encoded is None:
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
    except UnicodeDecodeError as exc:
        raise TaskFormatError(path, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if not isinstance(raw, dict):
        raise TaskFormatError(path, None, "expected a mapping at the top level")
    return raw


def has_top_level_key(path: Path, key: str) -> bool:
    """True when the YAML file ``path`` has ``key`` at its top level (read as text, without parsing)."""
    pattern = re.compile(rf"^{re.escape(key)}\s*:", re.MULTILINE)
    return path.is_file() and pattern.search(path.read_text(encoding="utf-8", errors="replace")) is not None
