"""The training recipe's parts: assistant-only labels from the chat template, counted truncation, the
accelerate and DeepSpeed configs of every recipe, and a tiny model trained through the same launcher."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hydra_config import CONF_DIR, compose_config
from omegaconf import OmegaConf

from res_repro.errors import UserInputError
from res_repro.sft.labels import IGNORE, tokenize_example
from res_repro.sft.tokenizer import train_tokenizer
from res_repro.sft.truncation import REPORT_FILE, truncate

SFT_OPTIONS = sorted(p.stem for p in CONF_DIR.joinpath("sft").glob("*.yaml"))
TOOLS = [{"type": "function", "function": {"name": "read", "description": "Read a file", "parameters": {}}}]
CHAT = {
    "messages": [
        {"role": "system", "content": "You are careful."},
        {"role": "user", "content": "Open notes.txt please"},
        {
            "role": "assistant",
            "content": "Reading it.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read", "arguments": {"path": "notes.txt"}},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "hello world"},
        {"role": "assistant", "content": "It says hello world."},
    ],
    "tools": TOOLS,
}


def _sft(option: str, tmp_path: Path) -> dict:
    cfg = compose_config("experiment=table2", f"sft={option}", root=tmp_path, output_dir=tmp_path / "run")
    return OmegaConf.to_container(cfg.sft, resolve=True)


@pytest.fixture(scope="module")
def tokenizer():
    return train_tokenizer([CHAT] * 4, vocab_size=300, max_length=512)


def test_only_assistant_turns_carry_labels(tokenizer):
    ids, labels = tokenize_example(tokenizer, CHAT, assistant_only=True)
    assert len(ids) == len(labels)
    kept = [token for token, label in zip(ids, labels, strict=True) if label != IGNORE]
    assert all(label in (IGNORE, token) for token, label in zip(ids, labels, strict=True))
    text = tokenizer.decode(kept)
    assert text.startswith("Reading it.<tool_call>") and text.endswith("It says hello world.<|end|>")
    for other in ("You are careful.", "Open notes.txt", "hello world<|end|><|assistant|>", "<|user|>"):
        assert other not in text
    # the same tokens the template's {% generation %} markers select
    marked = tokenizer.apply_chat_template(
        CHAT["messages"], tools=TOOLS, tokenize=True, return_dict=True, return_assistant_tokens_mask=True
    )
    assert marked["input_ids"] == ids
    assert [label != IGNORE for label in labels] == [bool(m) for m in marked["assistant_masks"]]
    _, every = tokenize_example(tokenizer, CHAT, assistant_only=False)
    assert every == ids


def test_a_template_that_rewrites_earlier_turns_is_refused():
    rewriting = train_tokenizer([CHAT], vocab_size=300, max_length=512)
    rewriting.chat_template = "{% for m in messages %}{{ messages | length }} {{ m.content }}\n{% endfor %}"
    with pytest.raises(UserInputError, match=r"^sft: the chat template does not render"):
        tokenize_example(rewriting, CHAT, assistant_only=True)


def test_truncation_counts_samples_and_tokens_beyond_the_limit(tmp_path):
    rows = [
        ([1, 2, 3], [IGNORE, 2, 3]),  # fits
        ([1, 2, 3, 4, 5, 6], [IGNORE, 2, 3, 4, 5, 6]),  # 2 tokens over
        ([1, 2, 3, 4, 5, 6, 7], [IGNORE, IGNORE, IGNORE, IGNORE, IGNORE, 6, 7]),  # 3 over, no label left
    ]
    kept, report = truncate(rows, 4)
    assert kept == [([1, 2, 3], [IGNORE, 2, 3]), ([1, 2, 3, 4], [IGNORE, 2, 3, 4])]
    assert (report.samples, report.tokens, report.samples_over, report.tokens_cut) == (3, 16, 2, 5)
    assert (report.longest, report.samples_dropped) == (7, 1)
    line = report.line("res")
    assert line.startswith("res: 2 of 3 samples exceed 4 tokens (longest 7); 5 of 16 tokens (31.2%) cut")
    assert json.loads(report.write(tmp_path).read_text())["tokens_cut"] == 5
    assert (tmp_path / REPORT_FILE).is_file()
    _, whole = truncate(rows, 7)
    assert whole.samples_over == 0 and "nothing cut" in whole.line("original")


def test_the_effective_batch_must_split_over_the_processes():
    from res_repro.sft.train import accumulation_steps

    train = {"per_device_batch_size": 1, "effective_batch_size": 16}
    assert [accumulation_steps(train, n) for n in (1, 2, 8)] == [16, 8, 2]
    with pytest.raises(UserInputError, match=r"^sft\.train\.effective_batch_size: expected a multiple"):
        accumulation_steps(train, 3)


@pytest.mark.parametrize("option", SFT_OPTIONS)
def test_every_recipe_names_an_accelerate_config_that_loads(tmp_path, option):
    from accelerate.commands.config.config_args import load_config_from_file

    sft = _sft(option, tmp_path)
    path = Path(sft["launch"]["accelerate_config"])
    cluster = load_config_from_file(str(path))  # unknown keys or values fail here
    assert cluster.num_machines == 1 and cluster.num_processes >= 1
    if sft["init"] == "tiny":
        assert cluster.distributed_type.value == "NO" and cluster.use_cpu
        return
    assert cluster.distributed_type.value == "DEEPSPEED" and not cluster.use_cpu
    assert sft["train"]["bf16"] and sft["train"]["assistant_only_loss"]
    ds_file = path.parent / cluster.deepspeed_config["deepspeed_config_file"]
    _validate_deepspeed(json.loads(ds_file.read_text()), sft["train"], tmp_path)


def _validate_deepspeed(ds: dict, train: dict, tmp_path: Path) -> None:
    """Fill the config's "auto" values as the trainer does, then validate it with DeepSpeed's own models."""
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig, ZeroStageEnum
    from deepspeed.runtime.zero.offload_config import OffloadDeviceEnum
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    from res_repro.sft.train import trainer_args

    args = trainer_args({**train, "bf16": False}, tmp_path, 0, False, processes=8)  # no GPU here for bf16
    args.bf16 = train["bf16"]
    hf = HfTrainerDeepSpeedConfig(ds)
    hf.trainer_config_process(args)
    model = type("Model", (), {"config": type("Config", (), {"hidden_size": 2560})()})()
    hf.trainer_config_finalize(args, model, num_training_steps=527)
    filled = hf.config
    assert "auto" not in json.dumps(filled)
    zero = DeepSpeedZeroConfig(**filled["zero_optimization"])
    assert zero.stage == ZeroStageEnum.weights
    assert zero.offload_optimizer.device == OffloadDeviceEnum.cpu  # DeepSpeedCPUAdam, as in the paper
    assert filled["bf16"]["enabled"] is True  # bf16 compute, fp32 master weights in the optimizer
    assert filled["optimizer"]["type"] == "AdamW"
    assert filled["optimizer"]["params"]["lr"] == train["learning_rate"]
    assert filled["train_micro_batch_size_per_gpu"] * filled["gradient_accumulation_steps"] * 8 == 16


@pytest.mark.slow
def test_the_tiny_model_trains_through_the_accelerate_launcher(tmp_path, capsys):
    from res_repro.sft.recipe import fine_tune

    sft = _sft("tiny", tmp_path)
    sft["train"] |= {"max_steps": 2, "max_length": 96, "effective_batch_size": 2}
    data = tmp_path / "res.jsonl"
    data.write_text("\n".join(json.dumps(CHAT) for _ in range(4)) + "\n")
    result = fine_tune(sft, {"res": data}, tmp_path / "checkpoints", seed=0, show_progress=False)["res"]
    assert result.steps == 2 and len(result.losses) == 2 and all(math.isfinite(x) for x in result.losses)
    assert (result.checkpoint / "model.safetensors").is_file()
    report = result.truncation
    assert report.samples == 4 and report.samples_over == 4 and report.max_length == 96
    assert report.tokens_cut == report.tokens - 4 * 96
    assert json.loads((result.checkpoint / REPORT_FILE).read_text())["samples_over"] == 4
    assert "res: 4 of 4 samples exceed 96 tokens" in capsys.readouterr().out


def test_table_a3_reads_every_recipe_beside_the_paper(tmp_path):
    from res_repro.pipelines.paper import paper_values
    from res_repro.pipelines.table_a3 import build_table_a3

    cfg = compose_config("experiment=table_a3", root=CONF_DIR.parent, output_dir=tmp_path)
    recipes = OmegaConf.to_container(cfg.sft_recipes, resolve=True)
    assert sorted(recipes) == sorted(o for o in SFT_OPTIONS)
    reported = paper_values()["table_a3_sft_settings"]
    table = build_table_a3(recipes, reported["trajectories_per_condition"])
    rows = {row[0]: row[1:] for row in table.rows}
    assert table.columns[1:4] == ["Qwen3.5-4B", "paper", "Qwen3.5-9B"]
    assert rows["Epoch / updates"][:2] == ["1 / 527", f"1 / {reported['updates']}"]
    assert (
        rows["Effective batch size"][0] == rows["Effective batch size"][1] == reported["effective_batch_size"]
    )
    assert rows["Learning-rate schedule"][0].endswith("warmup (16 steps)")
    assert rows["Optimizer"][0] == rows["Optimizer"][1] == reported["optimizer"]
    assert "parameter offload to cpu" in rows["Distribution"][4]  # 35B-A3B
    assert rows["Peak learning rate"][4:6] == ["5e-06", "5e-06"]
    assert rows["Loss"][-1] == "assistant turns only" and rows["Distribution"][-1].endswith(
        "1 CPU process(es)"
    )
