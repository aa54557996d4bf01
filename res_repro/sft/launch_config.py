"""The accelerate config file of a recipe and the DeepSpeed JSON it names, read without the training stack."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from res_repro.errors import UserInputError


def accelerate_settings(path: str | Path) -> dict[str, Any]:
    """The accelerate config file named by ``sft.launch.accelerate_config``, as a dict."""
    file = Path(path)
    if not file.is_file():
        raise UserInputError(
            f"sft.launch.accelerate_config: expected an accelerate config file, got {path!r}"
        )
    return yaml.safe_load(file.read_text(encoding="utf-8"))


def deepspeed_settings(path: str | Path) -> dict[str, Any] | None:
    """The DeepSpeed JSON named by the accelerate config at ``path`` (beside it), or None without one."""
    name = (accelerate_settings(path).get("deepspeed_config") or {}).get("deepspeed_config_file")
    if name is None:
        return None
    return json.loads((Path(path).parent / name).read_text(encoding="utf-8"))
