"""A canary API key for the secret tests, and the scan for it in the files a run leaves behind."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

SECRET = "sk-canary-5f1e2d3c4b5a69788796a5b4c3d2e1f0"

KEY_IN_CONFIG = f"+executor.runtime_env.env_vars.OPENAI_API_KEY={SECRET}"
"""A Hydra override that hands the run's workers :data:`SECRET` through the config."""


def files_below(root: Path) -> list[Path]:
    """The regular files anywhere below ``root``."""
    return [p for p in root.rglob("*") if p.is_file()]


def holding_the_secret(files: Iterable[Path]) -> list[Path]:
    """Those of ``files`` whose bytes hold :data:`SECRET`."""
    return [p for p in files if SECRET.encode() in p.read_bytes()]
