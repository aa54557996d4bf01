"""The tiny randomly initialised causal LM of offline runs, saved as the shared starting checkpoint.

Both conditions load the same directory, so they start from identical weights and the same tokenizer.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM


def tiny_model(tokenizer: PreTrainedTokenizerFast, tiny: Mapping[str, Any], seed: int) -> Qwen2ForCausalLM:
    """A small Qwen2-style causal LM with random weights drawn from ``seed``, sized for ``tokenizer``."""
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=tiny["hidden_size"],
        intermediate_size=tiny["intermediate_size"],
        num_hidden_layers=tiny["num_layers"],
        num_attention_heads=tiny["num_heads"],
        num_key_value_heads=tiny["num_heads"],
        max_position_embeddings=tokenizer.model_max_length,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    return Qwen2ForCausalLM(config)


def save_tiny_init(tokenizer: PreTrainedTokenizerFast, tiny: Mapping[str, Any], seed: int, out: Path) -> Path:
    """Build the tiny model and save it with its tokenizer as the shared starting checkpoint."""
    tiny_model(tokenizer, tiny, seed).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out
