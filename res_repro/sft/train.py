"""One fine-tuning run with TRL's SFTTrainer, inside a process started by ``accelerate launch``.

The chat JSONL is tokenized here under the checkpoint's chat template, with labels on the assistant turns
only when ``assistant_only_loss`` (see :mod:`res_repro.sft.labels`), and cut to ``max_length`` with a
count of what was cut (see :mod:`res_repro.sft.truncation`), so TRL receives sequences that already fit.
Weights load in float32, the master copy the optimizer updates; with ``bf16`` the forward and backward
passes run in bfloat16 (autocast, or DeepSpeed's bf16 mode, which keeps fp32 master weights in the
optimizer). Gradient accumulation is derived from the effective batch and the number of processes.
"""

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
from transformers import AutoTokenizer, PreTrainedTokenizerBase
from trl import SFTConfig, SFTTrainer

from res_repro.errors import UserInputError
from res_repro.sft.labels import tokenize_example
from res_repro.sft.truncation import REPORT_FILE, TruncationReport, truncate

MASTER_DTYPE = "float32"  # weights as loaded and as updated by the optimizer
LOG_FILE = "train_log.json"


@dataclass(frozen=True)
class TrainResult:
    """What a run did: its checkpoint, samples, optimizer steps, logged losses and what was cut."""

    checkpoint: Path
    samples: int
    steps: int
    losses: list[float]  # training loss at each logging step, in order
    truncation: TruncationReport

    @property
    def files(self) -> list[Path]:
        """The run's log and truncation report, beside the checkpoint."""
        return [self.checkpoint / LOG_FILE, self.checkpoint / REPORT_FILE]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {**asdict(self), "checkpoint": str(self.checkpoint)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrainResult:
        """The result saved by :meth:`to_dict`."""
        return cls(
            checkpoint=Path(data["checkpoint"]),
            samples=data["samples"],
            steps=data["steps"],
            losses=list(data["losses"]),
            truncation=TruncationReport(**data["truncation"]),
        )


def read_chat(path: Path) -> list[dict[str, Any]]:
    """The examples of a chat JSONL file (messages and tools)."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def training_rows(
    tokenizer: PreTrainedTokenizerBase, path: Path, train: Mapping[str, Any]
) -> tuple[Dataset, TruncationReport]:
    """Token ids and labels of every example, cut to ``max_length``, and the count of what was cut."""
    rows = (
        tokenize_example(tokenizer, example, assistant_only=train["assistant_only_loss"])
        for example in read_chat(path)
    )
    kept, report = truncate(rows, train["max_length"])
    return Dataset.from_dict({"input_ids": [i for i, _ in kept], "labels": [x for _, x in kept]}), report


def accumulation_steps(train: Mapping[str, Any], processes: int) -> int:
    """Micro-batches per optimizer step that keep the effective batch at ``effective_batch_size``."""
    per_step = train["per_device_batch_size"] * processes
    if train["effective_batch_size"] % per_step:
        raise UserInputError(
            f"sft.train.effective_batch_size: expected a multiple of per_device_batch_size x processes "
            f"({train['per_device_batch_size']} x {processes}), got {train['effective_batch_size']}"
        )
    return train["effective_batch_size"] // per_step


def trainer_args(
    train: Mapping[str, Any], out: Path, seed: int, show_progress: bool, processes: int
) -> SFTConfig:
    """SFTTrainer settings from ``sft.train``; the checkpoint is saved once, at the end."""
    return SFTConfig(
        output_dir=str(out),
        learning_rate=train["learning_rate"],
        num_train_epochs=train["epochs"],
        max_steps=train["max_steps"] if train["max_steps"] is not None else -1,
        per_device_train_batch_size=train["per_device_batch_size"],
        gradient_accumulation_steps=accumulation_steps(train, processes),
        lr_scheduler_type=train["lr_scheduler"],
        warmup_steps=train["warmup_ratio"],  # a float below 1 is a fraction of the steps
        max_length=train["max_length"],
        packing=train["packing"],
        optim=train["optimizer"],
        weight_decay=train["weight_decay"],
        bf16=train["bf16"],
        activation_checkpointing=train["activation_checkpointing"],
        model_init_kwargs={"dtype": MASTER_DTYPE, "attn_implementation": train["attn_implementation"]},
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
    from accelerate import PartialState

    if not show_progress:
        datasets.disable_progress_bars()
        transformers.utils.logging.disable_progress_bar()
    state = PartialState()
    tokenizer = AutoTokenizer.from_pretrained(init, local_files_only=True)
    dataset, truncation = training_rows(tokenizer, data, train)
    # the arguments first: under ZeRO-3 the model is then loaded straight into its partitions
    args = trainer_args(train, out, seed, show_progress, state.num_processes)
    trainer = SFTTrainer(model=str(init), args=args, train_dataset=dataset, processing_class=tokenizer)
    trainer.train()
    trainer.save_model(str(out))
    losses = [float(entry["loss"]) for entry in trainer.state.log_history if "loss" in entry]
    result = TrainResult(
        checkpoint=out,
        samples=len(dataset),
        steps=trainer.state.global_step,
        losses=losses,
        truncation=truncation,
    )
    if state.is_main_process:
        tokenizer.save_pretrained(out)
        truncation.write(out)
        (out / LOG_FILE).write_text(json.dumps(result.to_dict(), indent=2), encoding="utf-8")
    return result
