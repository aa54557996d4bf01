"""The SFT recipe on a CPU: real explorer episodes on original and RES environments, exported at equal
counts, a tiny random model trained per condition, and the checkpoints reloaded to generate."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hydra_config import compose_config, metric_settings
from omegaconf import DictConfig, OmegaConf

from res_repro.errors import UserInputError
from res_repro.pipelines.lineages import build_lineages, configured_agents, configured_tasks, run_requests
from res_repro.sft.collect import (
    ORIGINAL,
    RES,
    balance,
    collection_requests,
    split_by_condition,
    trainable_pools,
)
from res_repro.sft.export import export_chat_jsonl, metadata_path
from res_repro.sft.start import checked_start

TEACHER = "explorer-expert"
FAST_TRAIN = ("sft.train.max_steps=6", "sft.train.learning_rate=3e-3")  # whole trajectories


def _config(root: Path, *overrides: str) -> DictConfig:
    return compose_config(
        "experiment=table2",
        "benchmark.limit=2",
        "scaling.depth_cap=2",
        "scaling.target=null",
        "tracking=none",
        "show_progress=false",
        *overrides,
        root=root,
        output_dir=root / "run",
    )


@pytest.fixture(scope="module")
def episodes(tmp_path_factory):
    """The scripted explorer on two Claw-style seeds, their depth-1 and depth-2 environments."""
    root = tmp_path_factory.mktemp("sft")
    cfg = _config(root, *FAST_TRAIN)
    agents = configured_agents(cfg, [TEACHER])
    lineages = build_lineages(cfg, configured_tasks(cfg))
    requests = collection_requests(lineages, [TEACHER])
    records = split_by_condition(
        run_requests(cfg, [r for rs in requests.values() for r in rs], agents), requests
    )
    return cfg, root, records


@pytest.mark.slow
def test_scripted_trajectories_only_when_asked_and_balanced_with_a_seed(episodes):
    _, _, records = episodes
    assert trainable_pools(records, only_passed=True, include_scripted=False) == {ORIGINAL: [], RES: []}
    pools = trainable_pools(records, only_passed=True, include_scripted=True)
    assert len(pools[ORIGINAL]) == 2
    assert len(pools[RES]) > len(pools[ORIGINAL])  # two seeds x depths 1..2
    selected = balance(pools, None, seed=0)
    assert len(selected[ORIGINAL]) == len(selected[RES]) == 2
    again = balance(pools, None, seed=0)
    assert [r.episode_id for r in again[RES]] == [r.episode_id for r in selected[RES]]
    assert all(r.environment.startswith("res-depth-") for r in selected[RES])
    with pytest.raises(UserInputError, match=r"^sft\.collection\.per_condition: expected 1\.\.2"):
        balance(pools, 3, seed=0)


@pytest.mark.slow
def test_tiny_model_trains_per_condition_and_reloads_to_generate(episodes, tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from res_repro.sft.recipe import fine_tune

    cfg, _, records = episodes
    selected = balance(trainable_pools(records, only_passed=True, include_scripted=True), None, seed=0)
    files = {}
    for condition, mine in selected.items():
        files[condition] = tmp_path / f"{condition}.jsonl"
        report = export_chat_jsonl(mine, files[condition], include_scripted=True, settings=metric_settings())
        assert report.written == 2
    example = json.loads(files[RES].read_text().splitlines()[0])
    metadata = json.loads(metadata_path(files[RES]).read_text().splitlines()[0])
    assert metadata["scripted"] is True and metadata["agent"] == TEACHER
    assert any(m.get("tool_calls") for m in example["messages"])

    sft = OmegaConf.to_container(cfg.sft, resolve=True)
    results = fine_tune(sft, files, tmp_path / "checkpoints", seed=cfg.seed, show_progress=False)
    assert [r.samples for r in results.values()] == [2, 2]
    assert [r.steps for r in results.values()] == [6, 6]
    for result in results.values():
        assert len(result.losses) == 6 and all(math.isfinite(loss) for loss in result.losses)
        assert result.losses[-1] < result.losses[0]
        assert json.loads((result.checkpoint / "train_log.json").read_text())["steps"] == 6

    checkpoint = results[RES].checkpoint
    tokenizer = AutoTokenizer.from_pretrained(checkpoint, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(checkpoint, local_files_only=True)
    rendered = tokenizer.apply_chat_template(example["messages"], tools=example["tools"], tokenize=False)
    assert '<tool_call>{"name": "' in rendered
    masks = tokenizer.apply_chat_template(
        example["messages"], tokenize=True, return_dict=True, return_assistant_tokens_mask=True
    )["assistant_masks"]
    assert 0 < sum(masks) < len(masks)  # the template marks assistant turns for assistant-only loss
    prompt = tokenizer.apply_chat_template(
        example["messages"][:2], add_generation_prompt=True, return_tensors="pt", return_dict=True
    )
    generated = model.generate(**prompt, max_new_tokens=4, do_sample=False)
    assert generated.shape[1] > prompt["input_ids"].shape[1]


def test_a_missing_checkpoint_directory_is_named(tmp_path):
    with pytest.raises(UserInputError, match=r"^sft\.model_path: expected a local checkpoint directory"):
        checked_start({"init": "pretrained", "model_path": str(tmp_path / "nowhere")})
    with pytest.raises(UserInputError, match=r"^sft\.init: expected one of"):
        checked_start({"init": "huge", "model_path": None})


@pytest.mark.parametrize("option", ["qwen3_5_4b", "qwen3_5_9b", "qwen3_5_35b_a3b"])
def test_table_a3_recipes_match_the_paper(tmp_path, option):
    from res_repro.pipelines.paper import paper_values

    sft = _config(tmp_path, f"sft={option}").sft
    reported = paper_values()["table_a3_sft_settings"]
    train = sft.train
    assert train.learning_rate == reported["peak_lr"][sft.name]
    assert train.epochs == reported["epochs"] and train.max_steps is None
    assert train.effective_batch_size == 16 and train.assistant_only_loss and train.bf16
    assert train.max_length == reported["max_sequence_tokens"]
    assert (train.lr_scheduler, train.warmup_ratio, train.optimizer) == ("cosine", 0.03, "adamw_torch")
    assert sft.init == "pretrained"
