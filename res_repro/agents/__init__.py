"""Agents, looked up by name in a registry."""

from __future__ import annotations

from res_repro.agents.base import Agent
from res_repro.agents.outcome import AgentOutcome, StopReason
from res_repro.agents.reference import NopAgent, OracleAgent

AGENTS: dict[str, type[Agent]] = {cls.name: cls for cls in (OracleAgent, NopAgent)}


def make_agent(name: str) -> Agent:
    """Return a new agent by registry name; unknown names get an error listing the known ones."""
    try:
        return AGENTS[name]()
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; expected one of {sorted(AGENTS)}") from None


__all__ = ["AGENTS", "Agent", "AgentOutcome", "StopReason", "make_agent"]
