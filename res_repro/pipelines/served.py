"""A run's own checkpoints served on loopback as ``models`` entries, for Table 2's evaluation offline.

The checkpoint server (:func:`~res_repro.simulation.checkpoint_server`) answers the OpenAI
chat-completions protocol, so the checkpoints are evaluated through the ``openai`` provider, the LLM
agent and the episode runner, exactly as a checkpoint served by vLLM on a GPU machine would be. Each
entry's ``base_url`` names the checkpoint by a hash of its weights and tokenizer (its requests go to the
server's ``address``), so response caches and episode records follow the checkpoint, not the port.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from omegaconf import DictConfig, open_dict

from res_repro.config import ModelConfig
from res_repro.simulation import checkpoint_server

IDENTITY_FILES = ("*.safetensors", "tokenizer.json")  # what makes a checkpoint answer as it does
SERVED_PREFIX = "served_"  # models keys of served checkpoints: served_<name>


def checkpoint_digest(path: Path) -> str:
    """A SHA-256 over the checkpoint's weight files and tokenizer (names and contents)."""
    digest = hashlib.sha256()
    for pattern in IDENTITY_FILES:
        for file in sorted(path.glob(pattern)):
            digest.update(file.name.encode())
            with file.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()


def served_entry(name: str, display: str, path: Path, max_new_tokens: int, address: str) -> ModelConfig:
    """The ``models`` entry of checkpoint ``name`` served at ``address`` (greedy, bounded replies)."""
    return ModelConfig(
        name=display,
        provider="openai",
        model=name,
        base_url=f"local-checkpoint://{checkpoint_digest(path)[:16]}",
        api_key_env=None,
        temperature=0.0,
        max_output_tokens=max_new_tokens,
        timeout_s=120.0,
        input_price_per_mtok=None,
        output_price_per_mtok=None,
        address=address,
    )


@contextmanager
def served_checkpoints(
    cfg: DictConfig, checkpoints: Mapping[str, Path], labels: Mapping[str, str], *, max_new_tokens: int
) -> Iterator[dict[str, str]]:
    """While the block runs, serve each checkpoint (name -> directory) and yield name -> its ``models``
    key; ``labels`` (name -> display name) name them in records. The entries are removed on the way out."""
    keys = {name: f"{SERVED_PREFIX}{name}" for name in checkpoints}
    with checkpoint_server(checkpoints, max_new_tokens=max_new_tokens) as running:
        with open_dict(cfg.models):
            for name, path in checkpoints.items():
                cfg.models[keys[name]] = served_entry(name, labels[name], path, max_new_tokens, running.url)
        try:
            yield keys
        finally:
            with open_dict(cfg.models):
                for key in keys.values():
                    del cfg.models[key]
