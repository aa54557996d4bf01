"""Where both fine-tuning runs start: the tiny random model built locally, or a local checkpoint.

Checked before any work, without importing the training libraries.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from res_repro.errors import UserInputError

INITS = ("tiny", "pretrained")


def pretrained_dir(model_path: str | None) -> Path:
    """The local checkpoint directory named by ``sft.model_path``."""
    path = Path(model_path).expanduser() if model_path else None
    if path is None or not (path / "config.json").is_file():
        raise UserInputError(
            f"sft.model_path: expected a local checkpoint directory holding config.json, got {model_path!r}"
        )
    return path


def checked_start(sft: Mapping[str, Any]) -> Path | None:
    """Check ``sft.init`` and, for a pretrained model, its directory (None for the tiny model)."""
    if sft["init"] not in INITS:
        raise UserInputError(f"sft.init: expected one of {list(INITS)}, got {sft['init']!r}")
    if sft["init"] == "tiny" and sft.get("tiny") is None:
        raise UserInputError(
            "sft.tiny: sft.init=tiny needs the tiny model's sizes (as in conf/sft/tiny.yaml)"
        )
    return pretrained_dir(sft["model_path"]) if sft["init"] == "pretrained" else None
