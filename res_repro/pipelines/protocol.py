"""The run's protocol beside the paper's: printed when a run starts and logged as MLflow tags.

The ``protocol`` group states the paper's protocol; ``scaling``, ``agent_loop`` and ``metrics`` take
their values from it, and the ``models`` group picks who plays the target and the proposer. Every place
where a run departs from the paper is named: a scripted or simulated target, a programmatic proposer,
scripted or simulated evaluation agents, and any limit or threshold set to another value.
"""

from __future__ import annotations

from typing import Any

from omegaconf import DictConfig

SIMULATED = "simulated models"


def _role(cfg: DictConfig, key: str, paper: str, role: str) -> str | None:
    """How the agent ``key`` in a protocol role departs from the paper's model ``paper`` (None: it is it)."""
    model = cfg.models.get(key)
    if model is not None and model.get("simulated"):
        return SIMULATED
    if key == paper:
        return None
    return f"scripted {role} ({key})" if model is None else f"{role} {key} (paper: {paper})"


def _limits(cfg: DictConfig) -> list[tuple[str, Any, Any]]:
    """(what, this run's value, the paper's) for every limit and threshold the protocol sets."""
    paper, scaling = cfg.protocol, cfg.scaling
    return [
        ("depth cap", scaling.depth_cap, paper.depth_cap),
        ("revisions per child", scaling.max_revisions, paper.max_revisions),
        ("target attempts", scaling.target_attempts, paper.target_attempts),
        ("target turn limit", scaling.target_max_turns, paper.target_max_turns),
        ("stopping on", scaling.stop_on, paper.stop_on),
        ("evaluation turn limit", cfg.agent_loop.max_turns, paper.evaluation_max_turns),
        ("success threshold", cfg.metrics.threshold, paper.success_threshold),
    ]


def deviations(cfg: DictConfig) -> list[str]:
    """Each way this run departs from the paper's protocol, in words, each named once."""
    paper, scaling = cfg.protocol, cfg.scaling
    found: list[str | None] = []
    if scaling.target is None:
        found.append("no scaling target (lineages grow to the depth cap)")
    else:
        found.append(_role(cfg, scaling.target, paper.target, "target"))
    if scaling.proposer.kind == "llm":
        found.append(_role(cfg, scaling.proposer.model, paper.proposer, "proposer"))
    else:
        found.append(f"{scaling.proposer.kind} proposer")
    scripted = [name for name in cfg.agents if name not in cfg.models]
    if scripted:
        found.append(f"scripted evaluation agents ({', '.join(scripted)})")
    if any(cfg.models[name].get("simulated") for name in cfg.agents if name in cfg.models):
        found.append(SIMULATED)
    found += [
        f"{what} {value} (paper: {reported})" for what, value, reported in _limits(cfg) if value != reported
    ]
    if not scaling.inheritance:
        found.append("without inheritance")
    if not scaling.composition:
        found.append("without dependency composition")
    if scaling.library is not None:
        found.append(f"an operator library of {len(scaling.library)} operators (paper: the full library)")
    return list(dict.fromkeys(item for item in found if item is not None))


def protocol_text(cfg: DictConfig) -> str:
    """The protocol and this run's departures from it, as printed when a run starts."""
    paper, scaling = cfg.protocol, cfg.scaling
    proposer = scaling.proposer.model if scaling.proposer.kind == "llm" else scaling.proposer.kind
    lines = [
        f"protocol {paper.name}: target {paper.target}, {paper.target_attempts} attempts of "
        f"{paper.target_max_turns} turns per node, stopping on {paper.stop_on}, depth cap "
        f"{paper.depth_cap}; proposer {paper.proposer} with {paper.max_revisions} revisions; evaluation "
        f"{paper.evaluation_attempts} attempt of {paper.evaluation_max_turns} turns, success at score >= "
        f"{paper.success_threshold}",
        f"this run: target {scaling.target}, proposer {proposer}, agents {', '.join(cfg.agents)}",
    ]
    found = deviations(cfg)
    lines.append(f"deviations from the paper: {'; '.join(found) if found else 'none'}")
    return "\n".join(lines)


def settings_note(cfg: DictConfig) -> str:
    """The note every table carries: the settings it was made under and this run's departures from the
    paper's protocol (a sweep's tables differ here and nowhere else)."""
    found = deviations(cfg)
    return (
        f"Made under: success threshold {cfg.metrics.threshold:g} (metrics.threshold), depth cap "
        f"{cfg.scaling.depth_cap} (scaling.depth_cap), seed {cfg.seed}; deviations from the paper's "
        f"protocol: {'; '.join(found) if found else 'none'}."
    )


def protocol_tags(cfg: DictConfig) -> dict[str, str]:
    """MLflow tags: the protocol's name and this run's deviations from it (``none`` when there are none)."""
    return {"protocol": str(cfg.protocol.name), "protocol.deviations": "; ".join(deviations(cfg)) or "none"}
