"""Table 2's recipe: one model per condition, from the same checkpoint, seed, sample count and steps.

Each condition trains in processes started by ``accelerate launch`` (see :mod:`res_repro.sft.launch`):
the tiny model on a CPU, the paper's models with DeepSpeed ZeRO-3 on GPUs, through the same entry point.

With ``sft.init=tiny`` the shared checkpoint is built here: a tokenizer trained on the union of every
condition's data (so neither condition gets a vocabulary of its own) and a random model drawn from the
seed. With ``sft.init=pretrained`` it is the local directory ``sft.model_path``. Nothing is downloaded.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from res_repro.sft.launch import launch_condition
from res_repro.sft.model import save_tiny_init
from res_repro.sft.start import checked_start
from res_repro.sft.tokenizer import train_tokenizer
from res_repro.sft.train import TrainResult


def read_examples(paths: Sequence[Path]) -> Iterator[dict[str, Any]]:
    """Every chat example in the given JSONL files, file by file."""
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            yield from (json.loads(line) for line in handle if line.strip())


def shared_init(sft: Mapping[str, Any], data: Sequence[Path], out: Path, seed: int) -> Path:
    """The checkpoint every condition starts from (built under ``out`` for the tiny model)."""
    pretrained = checked_start(sft)
    if pretrained is not None:
        return pretrained
    tokenizer = train_tokenizer(
        read_examples(data), vocab_size=sft["tiny"]["vocab_size"], max_length=sft["train"]["max_length"]
    )
    return save_tiny_init(tokenizer, sft["tiny"], seed, out)


def fine_tune(
    sft: Mapping[str, Any], data: Mapping[str, Path], out: Path, *, seed: int, show_progress: bool
) -> dict[str, TrainResult]:
    """Train one model per condition in ``data`` (condition -> chat JSONL) under ``out/<condition>``."""
    init = shared_init(sft, list(data.values()), out / "init", seed)
    return {
        condition: launch_condition(
            sft,
            init=init,
            data=path,
            out=out / condition,
            seed=seed,
            show_progress=show_progress,
            label=condition,
        )
        for condition, path in data.items()
    }
