"""What model requests cost: tokens per model from episode records, and their price in US dollars.

Prices come from each model's config (``input_price_per_mtok`` and ``output_price_per_mtok``, dollars per
million tokens); a model without prices (served locally) has tokens but no cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from res_repro.evaluation.episode import EpisodeRecord

MILLION = 1_000_000


@dataclass
class TokenUsage:
    """Episodes, model requests (turns) and tokens of one model."""

    episodes: int = 0
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, other: TokenUsage) -> None:
        """Add ``other``'s counts to these."""
        self.episodes += other.episodes
        self.requests += other.requests
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens


def price(usage: TokenUsage, model: Mapping[str, Any]) -> float | None:
    """The dollars ``usage`` costs at ``model``'s prices, or None when the model has none."""
    per_input, per_output = model.get("input_price_per_mtok"), model.get("output_price_per_mtok")
    if per_input is None or per_output is None:
        return None
    return (usage.input_tokens * per_input + usage.output_tokens * per_output) / MILLION


def usage_by_model(records: Iterable[EpisodeRecord], models: Mapping[str, Any]) -> dict[str, TokenUsage]:
    """Token usage per model (keys of ``models``) summed over the records' accounting; scripted agents
    and agents that are not models are left out."""
    totals: dict[str, TokenUsage] = {}
    for record in records:
        if record.agent not in models:
            continue
        accounting = record.accounting
        usage = TokenUsage(
            1,
            record.turns,
            int(accounting.get("input_tokens", 0)),
            int(accounting.get("output_tokens", 0)),
        )
        totals.setdefault(record.agent, TokenUsage()).add(usage)
    return totals


def cost_lines(usage: Mapping[str, TokenUsage], models: Mapping[str, Any]) -> list[str]:
    """One line per model: episodes, requests, input and output tokens, and the cost (or "no price")."""
    lines = []
    for name, counts in usage.items():
        dollars = price(counts, models[name])
        shown = "no price (local or free)" if dollars is None else f"${dollars:,.2f}"
        lines.append(
            f"{name}: {counts.episodes} episodes, {counts.requests} requests, "
            f"{counts.input_tokens:,} input and {counts.output_tokens:,} output tokens, {shown}"
        )
    return lines


def cost_metrics(usage: Mapping[str, TokenUsage], models: Mapping[str, Any]) -> dict[str, float]:
    """MLflow metrics per model: ``cost.<model>.input_tokens``, ``.output_tokens``, ``.requests`` and
    ``.usd`` (left out for a model without prices)."""
    metrics: dict[str, float] = {}
    for name, counts in usage.items():
        metrics[f"cost.{name}.requests"] = float(counts.requests)
        metrics[f"cost.{name}.input_tokens"] = float(counts.input_tokens)
        metrics[f"cost.{name}.output_tokens"] = float(counts.output_tokens)
        dollars = price(counts, models[name])
        if dollars is not None:
            metrics[f"cost.{name}.usd"] = dollars
    return metrics
