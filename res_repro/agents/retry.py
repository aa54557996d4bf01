"""Bounded retries with exponential backoff and jitter, honouring ``Retry-After``."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from res_repro.agents.providers.base import ProviderError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """At most ``max_attempts`` tries; waits grow as base * 2^n, capped, times (1 + jitter * U[0,1)).

    Built from ``agent_loop.retry`` (conf/agent_loop/default.yaml holds the values)."""

    max_attempts: int
    base_delay_s: float
    max_delay_s: float
    jitter: float

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before try ``attempt + 1``; a server's Retry-After wins when it is longer."""
        backoff = min(self.max_delay_s, self.base_delay_s * 2**attempt) * (1 + self.jitter * rng.random())
        return min(self.max_delay_s, max(backoff, retry_after or 0.0))


def call_with_retries(
    function: Callable[[], T],
    policy: RetryPolicy,
    rng: random.Random,
    *,
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Callable[[ProviderError, float], None] | None = None,
) -> T:
    """Call ``function``, retrying retryable provider errors; the last error is raised when tries run out."""
    for attempt in range(policy.max_attempts):
        try:
            return function()
        except ProviderError as exc:
            if not exc.retryable or attempt == policy.max_attempts - 1:
                raise
            wait = policy.delay(attempt, exc.retry_after, rng)
            if on_retry is not None:
                on_retry(exc, wait)
            sleep(wait)
    raise AssertionError("unreachable: the loop returns or raises")
