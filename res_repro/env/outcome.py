"""What an agent reports about its attempt, and why the attempt ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class StopReason(StrEnum):
    """Why an episode ended. Task outcomes and infrastructure failures are kept apart."""

    ANSWERED = "answered"  # the agent finished on its own
    TURN_LIMIT = "turn_limit"
    TIME_LIMIT = "time_limit"
    CONTEXT_LENGTH = "context_length"  # the conversation outgrew the model's context window
    TRUNCATED = "truncated"  # the model's reply was cut at its output token limit (the episode ends)
    PROVIDER_ERROR = "provider_error"  # infrastructure: the model's service failed after retries
    SANDBOX_ERROR = "sandbox_error"  # infrastructure: the sandbox failed
    # Infrastructure: a service behind the task's tools died or stopped answering during the episode.
    # The agent saw its calls fail (an error response, never a hang), but a grade of what it managed
    # against a dead mock service would score the harness, not the agent: retried, never scored.
    SERVICE_ERROR = "service_error"

    @property
    def is_infrastructure(self) -> bool:
        """True for failures that say nothing about the agent and are retried, never scored."""
        return self in {StopReason.PROVIDER_ERROR, StopReason.SANDBOX_ERROR, StopReason.SERVICE_ERROR}


PERMANENT_ERROR = "permanent_error"
"""An outcome's accounting key, 1 when its infrastructure failure cannot change on a retry (a provider's
400 on the request as sent): the runner does not run the episode again."""


@dataclass
class AgentOutcome:
    """An agent's account of its own attempt: why it stopped, its final answer, and its effort."""

    stop_reason: StopReason
    answer: str | None = None
    turns: int = 0
    tool_calls: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)
    accounting: dict[str, float] = field(default_factory=dict)  # tokens, model seconds, retries
    error: str | None = None
