"""YAML reading and writing through libyaml's C parser when PyYAML was built with it (several times
faster on task files; the pure-Python classes are the fallback and give the same documents)."""

from __future__ import annotations

from typing import Any

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


MAX_NODES = 1_000_000  # values a document may expand to through its aliases


class ExpansionError(yaml.YAMLError):
    """A document whose aliases expand it past :data:`MAX_NODES` values (a "billion laughs" bomb)."""


def _expanded_size(value: Any, limit: int) -> int:
    """How many values ``value`` holds with every alias expanded, counted up to just past ``limit``."""
    count, pending = 0, [value]
    while pending and count <= limit:
        item = pending.pop()
        count += 1
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return count


def load_yaml(text: str) -> Any:
    """Parse one YAML document with the safe loader; a document whose aliases expand it past
    :data:`MAX_NODES` values raises :class:`ExpansionError` (what reads it next would take the memory)."""
    document = yaml.load(text, Loader=_Loader)
    if "&" in text and _expanded_size(document, MAX_NODES) > MAX_NODES:
        raise ExpansionError(f"the document's aliases expand it past {MAX_NODES:,} values")
    return document


def dump_yaml(data: Any) -> str:
    """Serialise ``data`` as block-style YAML, keys in insertion order."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
