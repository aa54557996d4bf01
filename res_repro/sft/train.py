"""One fine-tuning run with TRL's SFTTrainer: chat JSONL with tools in, a checkpoint and its losses out."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import datasets
import torch
import transformers
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import SFTConfig, SFTTrainer


@dataclass(frozen=True)
class TrainResult:
    """What a run did: its checkpoint, how many samples and optimizer steps, and the logged losses."""

    checkpoint: Path
    samples: int
    steps: int
    losses: list[float]  # training loss at each logging step, in order

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {**asdict(self), "checkpoint": str(self.checkpoint)}


def chat_dataset(path: Path) -> Dataset:
    """The conversations of a chat JSONL file; tools stay JSON text (their schemas differ in shape)."""
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                example = json.loads(line)
                rows.append({"messages": example["messages"], "tools": json.dumps(example["tools"])})
    return Dataset.from_list(rows)


def trainer_args(train: Mapping[str, Any], out: Path, seed: int, show_progress: bool) -> SFTConfig:
    """SFTTrainer settings from ``sft.train``; the checkpoint is saved once, at the end."""
    return SFTConfig(
        output_dir=str(out),
        learning_rate=train["learning_rate"],
        num_train_epochs=train["epochs"],
        max_steps=train["max_steps"] if train["max_steps"] is not None else -1,
        per_device_train_batch_size=train["per_device_batch_size"],
        gradient_accumulation_steps=train["gradient_accumulation_steps"],
        lr_scheduler_type=train["lr_scheduler"],
        warmup_steps=train["warmup_ratio"],  # a float below 1 is a fraction of the steps
        max_length=train["max_length"],
        optim=train["optimizer"],
        weight_decay=train["weight_decay"],
        assistant_only_loss=train["assistant_only_loss"],
        bf16=train["bf16"],
        activation_checkpointing=train["activation_checkpointing"],
        logging_steps=train["logging_steps"],
        seed=seed,
        data_seed=seed,
        save_strategy="no",
        report_to="none",
        disable_tqdm=not show_progress,
        dataloader_num_workers=0,
        dataloader_pin_memory=torch.cuda.is_available(),
    )


def train_condition(
    *, init: Path, data: Path, out: Path, train: Mapping[str, Any], seed: int, show_progress: bool
) -> TrainResult:
    """Fine-tune the checkpoint at ``init`` on the chat JSONL ``data``; save the result to ``out``."""
    if not show_progress:
        datasets.disable_progress_bars()
        transformers.utils.logging.disable_progress_bar()
    tokenizer = AutoTokenizer.from_pretrained(init, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(init, local_files_only=True, dtype="auto")
    dataset = chat_dataset(data)
    trainer = SFTTrainer(
        model=model,
        args=trainer_args(train, out, seed, show_progress),
        train_dataset=dataset,
        processing_class=tokenizer,
    )
    trainer.train()
    trainer.save_model(str(out))
    tokenizer.save_pretrained(out)
    losses = [float(entry["loss"]) for entry in trainer.state.log_history if "loss" in entry]
    result = TrainResult(checkpoint=out, samples=len(dataset), steps=trainer.state.global_step, losses=losses)
    (out / "train_log.json").write_text(json.dumps(result.to_dict(), indent=2), encoding="utf-8")
    return result
