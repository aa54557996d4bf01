"""Bounded retries with exponential backoff and jitter, honouring ``Retry-After``."""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from res_repro.agents.providers.base import ProviderError
from res_repro.storage import first_line

T = TypeVar("T")
log = logging.getLogger(__name__)
REPORT_EVERY_S = 10.0  # a model's retries are reported at most this often


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


class RetryReporter:
    """Says that a model's requests are being retried, one line per model at most every ``every_s``
    seconds (many episodes waiting on one rate limit give one line, not one each), with the newest error."""

    def __init__(self, every_s: float = REPORT_EVERY_S) -> None:
        self.every_s = every_s
        self._said: dict[str, tuple[float, int]] = {}  # model -> (when last said, retries since)
        self._lock = threading.Lock()

    def __call__(
        self, model: str, error: ProviderError, attempt: int, policy: RetryPolicy, wait: float
    ) -> None:
        """Count a retry of ``model``'s request; say so when the model was not mentioned recently."""
        now = time.monotonic()
        with self._lock:
            said, since = self._said.get(model, (-self.every_s, 0))
            if now - said < self.every_s:
                self._said[model] = (said, since + 1)
                return
            self._said[model] = (now, 0)
        first = first_line(error, limit=160) or type(error).__name__
        more = f" ({since} more retries since the last report)" if since else ""
        log.warning(
            "%s: %s; try %d of %d in %.0f s%s", model, first, attempt + 2, policy.max_attempts, wait, more
        )


REPORT = RetryReporter()


def call_with_retries(
    function: Callable[[], T],
    policy: RetryPolicy,
    rng: random.Random,
    *,
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Callable[[ProviderError, float], None] | None = None,
    model: str | None = None,
) -> T:
    """Call ``function``, retrying retryable provider errors; the last error is raised when tries run out.
    With ``model``, retries are reported (see :class:`RetryReporter`), so a run waiting on an endpoint
    that does not answer says so."""
    for attempt in range(policy.max_attempts):
        try:
            return function()
        except ProviderError as exc:
            if not exc.retryable or attempt == policy.max_attempts - 1:
                raise
            wait = policy.delay(attempt, exc.retry_after, rng)
            if on_retry is not None:
                on_retry(exc, wait)
            if model is not None:
                REPORT(model, exc, attempt, policy, wait)
            sleep(wait)
    raise AssertionError("unreachable: the loop returns or raises")
