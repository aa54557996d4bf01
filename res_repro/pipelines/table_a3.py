"""Table A3: the SFT settings of every recipe, read from the configs the runs use, beside the paper's.

Each recipe is an ``sft`` option composed under ``sft_recipes`` (conf/experiment/table_a3.yaml); the
distributed setup and the optimizer that actually runs come from its accelerate config and the DeepSpeed
JSON it names. Updates and the last batch are computed for the paper's trajectory count per condition.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from omegaconf import DictConfig

from res_repro.errors import UserInputError
from res_repro.pipelines.lineages import plain
from res_repro.pipelines.paper import paper_values
from res_repro.pipelines.reporting import publish
from res_repro.pipelines.settings_table import NOT_STATED, ConfiguredSetting, configurations_table
from res_repro.reporting.tables import Table
from res_repro.sft.launch_config import accelerate_settings, deepspeed_settings


def updates(train: Mapping[str, Any], samples: int) -> tuple[int, int]:
    """Optimizer updates over ``samples`` for the configured epochs, and the examples in the last one."""
    batch = train["effective_batch_size"]
    per_epoch = math.ceil(samples / batch)
    return per_epoch * math.ceil(train["epochs"]), samples - (per_epoch - 1) * batch


def optimizer_text(sft: Mapping[str, Any]) -> str:
    """The optimizer that runs: DeepSpeed's (CPU Adam under optimizer offload) or the trainer's."""
    deepspeed = deepspeed_settings(sft["launch"]["accelerate_config"])
    if deepspeed is None or "optimizer" not in deepspeed:
        return sft["train"]["optimizer"]
    kind = deepspeed["optimizer"]["type"]
    offload = deepspeed["zero_optimization"].get("offload_optimizer", {}).get("device", "none")
    return f"{kind} (DeepSpeedCPUAdam)" if offload == "cpu" else kind


def distribution_text(sft: Mapping[str, Any]) -> str:
    """How the run is spread: accelerate's backend, processes and DeepSpeed's ZeRO stage and offloads."""
    accelerate = accelerate_settings(sft["launch"]["accelerate_config"])
    processes = sft["launch"]["num_processes"] or accelerate["num_processes"]
    deepspeed = deepspeed_settings(sft["launch"]["accelerate_config"])
    if deepspeed is None:
        return f"accelerate, {processes} {'CPU ' if accelerate.get('use_cpu') else ''}process(es)"
    zero = deepspeed["zero_optimization"]
    offloads = [
        f"{part} offload to {zero[key]['device']}"
        for part, key in (("optimizer", "offload_optimizer"), ("parameter", "offload_param"))
        if zero.get(key, {}).get("device", "none") != "none"
    ]
    return (
        f"DeepSpeed ZeRO-{zero['stage']} ({', '.join(offloads) or 'no offload'}), {processes} GPU processes"
    )


def recipe_settings(sft: Mapping[str, Any], samples: int) -> dict[str, str]:
    """Every setting of one recipe as table cells, keyed by row."""
    train = sft["train"]
    count, last = updates(train, samples)
    warmup = math.ceil(train["warmup_ratio"] * count)
    return {
        "Peak learning rate": f"{train['learning_rate']:g}",
        "Epoch / updates": f"{train['epochs']:g} / {count}",
        "Maximum sequence length": f"{train['max_length']:,} tokens (longer samples cut and counted)",
        "Effective batch size": f"{train['effective_batch_size']} ({last} in the last update)",
        "Learning-rate schedule": f"{train['lr_scheduler'].capitalize()}, {train['warmup_ratio']:.2%} "
        f"warmup ({warmup} steps)",
        "Optimizer": optimizer_text(sft),
        "Distribution": distribution_text(sft),
        "Precision": "bf16 compute, fp32 master weights" if train["bf16"] else "fp32",
        "Loss": "assistant turns only" if train["assistant_only_loss"] else "every token",
        "Packing": "yes" if train["packing"] else "no (one sample per sequence)",
        "Activation checkpointing": "yes" if train["activation_checkpointing"] else "no",
    }


def paper_settings(reported: Mapping[str, Any], model: str) -> dict[str, str]:
    """The paper's Table A3 values for ``model`` (settings it does not report are left out)."""
    return {
        "Peak learning rate": f"{reported['peak_lr'][model]:g}",
        "Epoch / updates": f"{reported['epochs']} / {reported['updates']}",
        "Maximum sequence length": f"{reported['max_sequence_tokens']:,} tokens",
        "Effective batch size": reported["effective_batch_size"],
        "Learning-rate schedule": reported["schedule"],
        "Optimizer": reported["optimizer"],
    }


def build_table_a3(recipes: Mapping[str, Mapping[str, Any]], samples: int) -> Table:
    """Rows of settings, a column per recipe, with the paper's column beside each model it reports."""
    reported = paper_values()["table_a3_sft_settings"]
    ours = {sft["name"]: recipe_settings(sft, samples) for sft in recipes.values()}
    paper = {name: paper_settings(reported, name) for name in ours if name in reported["peak_lr"]}
    labels = list(next(iter(ours.values())))
    rows = [
        ConfiguredSetting(
            label,
            {name: cells[label] for name, cells in ours.items()},
            {name: cells.get(label, NOT_STATED) for name, cells in paper.items()},
        )
        for label in labels
    ]
    table = configurations_table(
        "Table A3: SFT settings of every recipe, beside the paper's", list(ours), rows
    )
    table.notes = [
        f"Updates and the last batch are computed for the paper's {samples:,} trajectories per condition; "
        "an offline run's own count is in Table 2 (train steps).",
        "Each recipe is an sft option (conf/sft/*.yaml; the paper's shared values in "
        "conf/sft/paper/table_a3.yaml), launched by accelerate with the config in conf/sft/accelerate/; "
        "'not stated' marks settings the paper does not report.",
        "Weights load in fp32; with bf16, DeepSpeed computes in bf16 and its optimizer updates fp32 master "
        "copies. Labels cover the chat template's assistant turns (the closing token included).",
    ]
    return table


def run_table_a3(cfg: DictConfig) -> Table:
    """Publish Table A3 from the composed recipes."""
    if not cfg.sft_recipes:
        raise UserInputError(
            "sft_recipes: expected the recipes to tabulate (see conf/experiment/table_a3.yaml)"
        )
    samples = paper_values()["table_a3_sft_settings"]["trajectories_per_condition"]
    table = build_table_a3({key: plain(sft) for key, sft in cfg.sft_recipes.items()}, samples)
    publish(cfg, table, "table_a3", {}, per_benchmark=False)
    return table
