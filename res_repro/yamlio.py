"""YAML reading and writing through libyaml's C parser when PyYAML was built with it (several times
faster on task files; the pure-Python classes are the fallback and give the same documents)."""

from __future__ import annotations

from typing import Any

import yaml

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def load_yaml(text: str) -> Any:
    """Parse one YAML document with the safe loader."""
    return yaml.load(text, Loader=_Loader)


def dump_yaml(data: Any) -> str:
    """Serialise ``data`` as block-style YAML, keys in insertion order."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
