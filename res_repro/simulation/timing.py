"""How a simulated model behaves in time, as a hosted one does: each answer takes a while (lognormal
around a median, seeded per request) and requests beyond a per-minute limit are refused with HTTP 429
and a ``retry-after`` header, as the providers' rate limits are (the harness's retry layer honours it)."""

from __future__ import annotations

import math
import random
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

WINDOW_S = 60.0  # a rate limit counts the requests of the last minute


class RateLimited(Exception):
    """A request over the model's limit; ``retry_after`` says when one will be taken again."""

    def __init__(self, model: str, limit: int, retry_after: float) -> None:
        super().__init__(
            f"Rate limit reached for {model} on requests per min (RPM): Limit {limit}. "
            f"Please try again in {retry_after:.1f}s."
        )
        self.retry_after = retry_after


@dataclass
class Timing:
    """One model's answer time (``latency_s`` median, ``latency_spread`` log-space deviation) and rate
    limit (``requests_per_minute``, None: none)."""

    latency_s: float = 0.0
    latency_spread: float = 0.0
    requests_per_minute: int | None = None
    _taken: deque[float] = field(default_factory=deque, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_spec(cls, fields: dict[str, Any]) -> Timing:
        """The timing a simulator spec gives a model."""
        return cls(
            latency_s=float(fields.get("latency_s") or 0.0),
            latency_spread=float(fields.get("latency_spread") or 0.0),
            requests_per_minute=fields.get("requests_per_minute"),
        )

    def admit(self, model: str, now: float | None = None) -> None:
        """Count a request, or raise :class:`RateLimited` when the last minute already holds the limit."""
        if self.requests_per_minute is None:
            return
        now = time.monotonic() if now is None else now
        with self._lock:
            while self._taken and self._taken[0] <= now - WINDOW_S:
                self._taken.popleft()
            if len(self._taken) >= self.requests_per_minute:
                raise RateLimited(model, self.requests_per_minute, self._taken[0] + WINDOW_S - now)
            self._taken.append(now)

    def latency(self, seed: int, model: str, number: int) -> float:
        """Seconds the answer to request ``number`` takes (the same for the same seed, model and number)."""
        if self.latency_s <= 0:
            return 0.0
        if self.latency_spread <= 0:
            return self.latency_s
        rng = random.Random(f"{seed}-{model}-{number}")
        return rng.lognormvariate(math.log(self.latency_s), self.latency_spread)
