"""Reading task files: one-line errors that name the file and the field, for every format."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from res_repro.env.errors import TaskFormatError
from res_repro.yamlio import load_yaml


def pydantic_error(path: Path, exc: ValidationError) -> TaskFormatError:
    """Pydantic's first complaint about a task file as one line naming the file and the field."""
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    return TaskFormatError(path, field, f"{first['msg']} (got {first.get('input')!r})")


def read_yaml_mapping(path: Path, needed_by: str) -> dict[str, Any]:
    """A YAML file whose top level is a mapping; a missing or malformed file is a :class:`TaskFormatError`."""
    try:
        raw = load_yaml(path.read_text(encoding="utf-8"))
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
