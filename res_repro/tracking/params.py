"""What a run records about its config: flattened params, secrets kept out, a config hash, the commit."""

from __future__ import annotations

import functools
import hashlib
import json
import re
import subprocess
from collections.abc import Iterable, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

from res_repro.storage import write_bytes_atomic

MAX_PARAM_CHARS = 6000  # MLflow's limit on a param value
# config entries that hold secrets themselves (``api_key_env`` only names a variable, so it is kept)
SECRET_NAME = re.compile(r"(^|[._-])(api[_-]?key|access[_-]?key|token|secret|password)$", re.IGNORECASE)
REDACTED = "REDACTED"  # a plain word: a redacted YAML file still parses


def flatten(mapping: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Flatten nested mappings into dotted keys: ``{"a": {"b": 1}}`` becomes ``{"a.b": 1}``."""
    flat: dict[str, Any] = {}
    for key, value in mapping.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def is_secret(dotted_key: str) -> bool:
    """True for a flattened config key whose value is a secret: a name like ``*_token`` or ``api_key``,
    or any environment variable handed to workers (``...env_vars.NAME``)."""
    return ".env_vars." in f".{dotted_key}" or bool(SECRET_NAME.search(dotted_key.rsplit(".", 1)[-1]))


def secret_values(flat: Mapping[str, Any]) -> set[str]:
    """The values of the secret entries of a flattened config (to scrub from artifacts)."""
    return {str(v) for k, v in flat.items() if is_secret(k) and v is not None and len(str(v)) >= 4}


def redacted(data: bytes, secrets: Iterable[str]) -> bytes:
    """``data`` with every secret in it replaced by :data:`REDACTED`."""
    for secret in secrets:
        data = data.replace(secret.encode(), REDACTED.encode())
    return data


def redact_files(paths: Iterable[Path], secrets: Iterable[str]) -> None:
    """Rewrite each existing file with the ``secrets`` in it replaced, readable by its owner only (such
    files, like Hydra's copies of the config, may hold a secret that no key name marks)."""
    secrets = list(secrets)
    for path in paths:
        with suppress(FileNotFoundError):
            write_bytes_atomic(path, redacted(path.read_bytes(), secrets), durable=False)


def param_values(flat: Mapping[str, Any]) -> dict[str, str]:
    """Flattened params as MLflow keeps them: strings cut to its limit, secrets replaced."""
    return {k: REDACTED if is_secret(k) else str(v)[:MAX_PARAM_CHARS] for k, v in flat.items()}


def config_hash(config: Mapping[str, Any]) -> str:
    """A short stable hash of a resolved config."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]


@functools.cache
def git_commit(root: Path | str) -> str:
    """The checkout's HEAD commit, ``-dirty`` when there are uncommitted changes; ``unknown`` outside git.
    Asked once per process (``git status`` takes 0.1-0.2 s): the code a process runs is what it loaded."""
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}-dirty" if dirty else head
