"""Agents: scripted ones by registry name, LLM agents built from model configs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from res_repro.agents.base import Agent
from res_repro.agents.explorer import EXPLORERS, ExplorerAgent
from res_repro.agents.llm_agent import LLMAgent
from res_repro.agents.providers import make_provider, missing_keys
from res_repro.agents.providers.base import Generation
from res_repro.agents.reference import NopAgent, OracleAgent
from res_repro.agents.response_cache import ResponseCache
from res_repro.agents.retry import RetryPolicy
from res_repro.env.outcome import AgentOutcome, StopReason
from res_repro.errors import MissingKeyError, UserInputError

SCRIPTED_AGENTS: dict[str, type[Agent]] = {cls.name: cls for cls in (OracleAgent, NopAgent, *EXPLORERS)}


def generation_problem(model: Mapping[str, Any]) -> str | None:
    """What in a model's generation settings its provider refuses ("field: why"), or None."""
    budget = model.get("thinking_budget")
    if budget is None:
        return None
    if model["provider"] != "anthropic":
        return (
            "thinking_budget: Anthropic's setting; an OpenAI-compatible server takes reasoning_effort or "
            "its own field in extra_body (DeepSeek: thinking: {type: enabled})"
        )
    if model.get("temperature") is not None:
        return "temperature: Anthropic refuses a temperature with extended thinking on; set it to null"
    if (model.get("max_output_tokens") or 0) <= budget:
        return f"max_output_tokens: must exceed thinking_budget ({budget}), which it includes"
    return None


def make_llm_agent(
    key: str, model: Mapping[str, Any], loop: Mapping[str, Any], cache_dir: Path | None, seed: int
) -> LLMAgent:
    """An LLM agent from a model config (a ``models`` entry) and the loop limits (``agent_loop``, retries
    included); a missing API key fails here, before any work, and so does a simulated model whose
    simulator is not running (no ``address``)."""
    if model.get("simulated") and not model.get("address"):
        raise UserInputError(
            f"models.{key}: a simulated model needs the simulator running (it sets models.{key}.address); "
            "runs start it themselves"
        )
    problem = generation_problem(model)
    if problem:
        raise UserInputError(f"models.{key}.{problem}")
    if model.get("reasoning_effort") is not None and model["provider"] == "anthropic":
        raise UserInputError(
            f"models.{key}.reasoning_effort: an OpenAI-style setting that the Anthropic API does not take; "
            f"set extended thinking in models.{key}.extra_body instead (thinking: {{type: enabled, "
            "budget_tokens: N})"
        )
    provider = make_provider(
        model["provider"],
        model=model["model"],
        api_key_env=model.get("api_key_env"),
        base_url=model.get("base_url"),
        timeout_s=float(model["timeout_s"]),
        address=model.get("address"),
    )
    return LLMAgent(
        name=key,
        model=model["model"],
        provider=provider,
        max_turns=int(loop["max_turns"]),
        time_limit_s=float(loop["time_limit_s"]),
        max_tool_output_chars=int(loop["max_tool_output_chars"]),
        retry=RetryPolicy(**loop["retry"]),
        cache=ResponseCache(cache_dir) if cache_dir else None,
        generation=Generation.from_model(model),
        seed=seed,
    )


def scripted_agent(name: str, loop: Mapping[str, Any] | None) -> Agent:
    """The scripted agent ``name``; an explorer takes the turn and time limits of ``loop`` when given."""
    cls = SCRIPTED_AGENTS[name]
    if loop and issubclass(cls, ExplorerAgent):
        return cls(max_turns=int(loop["max_turns"]), time_limit_s=float(loop["time_limit_s"]))
    return cls()


def build_agents(
    names: Sequence[str],
    *,
    models: Mapping[str, Mapping[str, Any]] | None = None,
    loop: Mapping[str, Any] | None = None,
    cache_dir: Path | None = None,
    seed: int = 0,
) -> dict[str, Agent]:
    """Build every named agent up front: scripted names from the registry, the rest from ``models``.

    ``loop`` (``agent_loop``) limits every agent that acts: a model's turns and time, and an explorer's
    turns (its tier's budget capped at ``max_turns``) and time alike. The reference agents (oracle, nop)
    validate tasks and take no limits."""
    models = models or {}
    unset = missing_keys(
        {name: models[name] for name in names if name not in SCRIPTED_AGENTS and name in models}
    )
    if unset:
        raise MissingKeyError(f"agents: API keys missing from the environment: {', '.join(unset)}")
    agents: dict[str, Agent] = {}
    for name in names:
        if name in SCRIPTED_AGENTS:
            agents[name] = scripted_agent(name, loop)
        elif name in models:
            agents[name] = make_llm_agent(name, models[name], loop or {}, cache_dir, seed)
        else:
            known = sorted({*SCRIPTED_AGENTS, *models})
            raise UserInputError(f"agents: unknown agent {name!r}; expected one of {known}")
    return agents


__all__ = ["SCRIPTED_AGENTS", "Agent", "AgentOutcome", "LLMAgent", "StopReason", "build_agents"]
