"""Model providers by name: ``openai`` (also any OpenAI-compatible server) and ``anthropic``."""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from typing import Any

from res_repro.agents.providers.base import (
    ContextLengthError,
    ModelRequest,
    ModelResponse,
    Provider,
    ProviderError,
    RetryableProviderError,
    ToolCallRequest,
    Usage,
)
from res_repro.errors import MissingKeyError, UserInputError

# name -> "module:class"; a provider's SDK is imported only when a run uses it (offline runs import none)
PROVIDERS: dict[str, str] = {
    "openai": "res_repro.agents.providers.openai_chat:OpenAIChatProvider",
    "anthropic": "res_repro.agents.providers.anthropic_messages:AnthropicMessagesProvider",
}

NO_KEY = "not-needed"  # sent to local OpenAI-compatible servers that take no key


def api_key(model: str, variable: str | None) -> str:
    """The key from ``variable``; a clear :class:`MissingKeyError` naming it when unset."""
    if variable is None:
        return NO_KEY
    value = os.environ.get(variable, "")
    if not value:
        raise MissingKeyError(f"model {model!r} needs its API key in the environment variable {variable}")
    return value


def missing_keys(models: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """``VARIABLE (model)`` for each model of ``models`` (by name) whose key variable is unset, in order."""
    return [
        f"{variable} ({name})"
        for name, model in models.items()
        if (variable := model.get("api_key_env")) and not os.environ.get(variable)
    ]


def make_provider(
    provider: str,
    *,
    model: str,
    api_key_env: str | None,
    base_url: str | None,
    timeout_s: float,
    address: str | None = None,
) -> Provider:
    """Build a provider client; fails before any work when the provider is unknown or the key missing.

    ``base_url`` names the endpoint in response-cache keys and fingerprints; ``address``, when given, is
    where requests are sent instead (a simulated endpoint listens on a new loopback port every run, so
    its address cannot name it)."""
    try:
        module, _, name = PROVIDERS[provider].partition(":")
    except KeyError:
        raise UserInputError(f"unknown provider {provider!r}; expected one of {sorted(PROVIDERS)}") from None
    factory = getattr(importlib.import_module(module), name)
    return factory(
        api_key=api_key(model, api_key_env), base_url=base_url, timeout_s=timeout_s, address=address
    )


__all__ = [
    "PROVIDERS",
    "ContextLengthError",
    "MissingKeyError",
    "ModelRequest",
    "ModelResponse",
    "Provider",
    "ProviderError",
    "RetryableProviderError",
    "ToolCallRequest",
    "Usage",
    "make_provider",
]
