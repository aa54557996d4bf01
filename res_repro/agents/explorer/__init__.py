"""Scripted explorer baselines: follow the seed task's reference plan and find out by acting what changed."""

from res_repro.agents.explorer.agent import (
    EXPLORERS,
    BasicExplorer,
    ExpertExplorer,
    ExplorerAgent,
    StandardExplorer,
)
from res_repro.agents.explorer.tiers import Skill, Tier

__all__ = [
    "EXPLORERS",
    "BasicExplorer",
    "ExpertExplorer",
    "ExplorerAgent",
    "Skill",
    "StandardExplorer",
    "Tier",
]
