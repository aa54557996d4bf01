"""What model requests cost: tokens per model from episode records, and their price in US dollars.

Prices come from each model's config, in dollars per million tokens, as the providers structure them:
``input_price_per_mtok`` for prompt tokens, ``cached_input_price_per_mtok`` for those read from the
provider's prompt cache and ``cache_write_price_per_mtok`` for those written to it (each defaults to the
input price), and ``output_price_per_mtok`` for generated tokens, reasoning included (providers bill
reasoning as output). ``prices_from`` says where the prices were read and when. A model without prices
(served locally) has tokens but no cost.
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
    input_tokens: int = 0  # every prompt token, cached and cache-written ones included
    output_tokens: int = 0  # every generated token, reasoning included
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

    def add(self, other: TokenUsage) -> None:
        """Add ``other``'s counts to these."""
        for name in vars(self):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def price(usage: TokenUsage, model: Mapping[str, Any]) -> float | None:
    """The dollars ``usage`` costs at ``model``'s prices (see the module's description), or None when the
    model has none."""
    per_input, per_output = model.get("input_price_per_mtok"), model.get("output_price_per_mtok")
    if per_input is None or per_output is None:
        return None
    per_cached = model.get("cached_input_price_per_mtok")
    per_written = model.get("cache_write_price_per_mtok")
    uncached = usage.input_tokens - usage.cached_tokens - usage.cache_write_tokens
    dollars = (
        uncached * per_input
        + usage.cached_tokens * (per_input if per_cached is None else per_cached)
        + usage.cache_write_tokens * (per_input if per_written is None else per_written)
        + usage.output_tokens * per_output
    )
    return dollars / MILLION


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
            int(accounting.get("cached_tokens", 0)),
            int(accounting.get("cache_write_tokens", 0)),
            int(accounting.get("reasoning_tokens", 0)),
        )
        totals.setdefault(record.agent, TokenUsage()).add(usage)
    return totals


def cost_lines(usage: Mapping[str, TokenUsage], models: Mapping[str, Any]) -> list[str]:
    """One line per model: episodes, requests, input and output tokens, and the cost (or "no price")."""
    lines = []
    for name, counts in usage.items():
        dollars = price(counts, models[name])
        shown = "no price (local or free)" if dollars is None else f"${dollars:,.2f}"
        parts = [f"{counts.cached_tokens:,} cached"] if counts.cached_tokens else []
        parts += [f"{counts.cache_write_tokens:,} written to the cache"] if counts.cache_write_tokens else []
        detail = f" ({', '.join(parts)})" if parts else ""
        reasoning = f" ({counts.reasoning_tokens:,} reasoning)" if counts.reasoning_tokens else ""
        source = models[name].get("prices_from")
        lines.append(
            f"{name}: {counts.episodes} episodes, {counts.requests} requests, {counts.input_tokens:,} input"
            f"{detail} and {counts.output_tokens:,} output tokens{reasoning}, {shown}"
            + (f" (prices: {source})" if source and dollars is not None else "")
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
        metrics[f"cost.{name}.cached_tokens"] = float(counts.cached_tokens)
        metrics[f"cost.{name}.reasoning_tokens"] = float(counts.reasoning_tokens)
        dollars = price(counts, models[name])
        if dollars is not None:
            metrics[f"cost.{name}.usd"] = dollars
    return metrics
