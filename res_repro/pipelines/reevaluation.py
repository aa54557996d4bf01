"""Depth reevaluation (Table A1's second protocol): one attempt per agent at every accepted node.

Each distinct node is evaluated once (its episode cached under ``depth k``); budgets beyond a chain's
last depth reuse its final node's episode, so Table 3C, Table A4 and Figures 2, 4 and A1-A4 are views of
the same records.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from omegaconf import DictConfig

from res_repro.agents import Agent
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.runner import EpisodeRequest
from res_repro.pipelines.budgets import current_values, historical_values
from res_repro.pipelines.cells import FailedAgents, split_failed
from res_repro.pipelines.lineages import build_lineages, configured_agents, configured_tasks, run_requests
from res_repro.res.scaling import LineageResult

Measure = Callable[[EpisodeRecord], float]


def tokens(record: EpisodeRecord) -> float:
    """Input plus output tokens of an episode (0 for scripted agents, which call no model)."""
    return float(record.accounting.get("input_tokens", 0) + record.accounting.get("output_tokens", 0))


MEASURES: dict[str, Measure] = {
    "score": lambda r: r.score,
    "turns": lambda r: float(r.turns),
    "tool calls": lambda r: float(r.tool_calls),
    "tokens": tokens,
    "wall seconds": lambda r: r.wall_seconds,
}
"""Per-episode measurements that budgets average, by name. Pass@1 is not one: it is a verdict on the
score under the configured threshold (``metrics.pass_flags``), applied after the lookup."""


@dataclass
class DepthRecords:
    """Every agent's episode at every accepted node of every lineage, in task order; agents whose every
    episode failed have no chains, only their errors (``failed``)."""

    lineages: list[LineageResult]
    agents: dict[str, Agent]
    chains: dict[str, list[list[EpisodeRecord]]]  # agent -> per seed, one record per node (root first)
    episodes: list[EpisodeRecord]  # every episode, in run order
    failed: FailedAgents = field(default_factory=FailedAgents)

    @property
    def depths(self) -> list[int]:
        """Each chain's last accepted depth."""
        return [lineage.last.manifest.depth for lineage in self.lineages]

    @property
    def max_depth(self) -> int:
        """The deepest chain's depth."""
        return max(self.depths)

    def measured(self, agent: str, measure: str) -> list[list[float]]:
        """Per seed, the named measurement at each node of its chain."""
        return [[MEASURES[measure](r) for r in chain] for chain in self.chains[agent]]

    def current(self, agent: str, measure: str, budget: int) -> list[float]:
        """Per seed, the measurement of its retained state at ``budget``."""
        return current_values(self.measured(agent, measure), budget)

    def historical(self, agent: str, measure: str, budget: int) -> list[float]:
        """Per seed, its historical mean of the measurement at ``budget``."""
        return historical_values(self.measured(agent, measure), budget)


def depth_caps(cfg: DictConfig) -> list[int]:
    """The swept caps (``sweep.depth_caps``) that the configured scaling cap covers, in increasing order."""
    return sorted({int(c) for c in cfg.sweep.depth_caps if c <= cfg.scaling.depth_cap})


def depth_records(cfg: DictConfig) -> DepthRecords:
    """Scale the configured benchmark (cap ``scaling.depth_cap``) and evaluate every agent at every node."""
    agents = configured_agents(cfg, cfg.agents)
    lineages = build_lineages(cfg, configured_tasks(cfg))
    requests = [
        EpisodeRequest(node.task, key, environment=f"depth {node.manifest.depth}")
        for key in agents
        for lineage in lineages
        for node in lineage.nodes
    ]
    episodes = run_requests(cfg, requests, agents, lineages)
    flat = iter(episodes)
    chains = {key: [[next(flat) for _ in lineage.nodes] for lineage in lineages] for key in agents}
    ran, failed = split_failed(agents, episodes)
    # a seed with an episode that failed for infrastructure reasons (after its retries) is left out for
    # every agent that ran: an ungraded episode says nothing about the agent and must not count as a failure
    keep = [
        i
        for i in range(len(lineages))
        if not any(record.infrastructure_failure for key in ran for record in chains[key][i])
    ]
    return DepthRecords(
        lineages=[lineages[i] for i in keep],
        agents=ran,
        chains={key: [chains[key][i] for i in keep] for key in ran},
        episodes=episodes,
        failed=failed,
    )
