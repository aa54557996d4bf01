"""Retries say so: a model whose requests keep failing gets one line per model at most every few seconds,
however many episodes wait on it."""

from __future__ import annotations

import logging
import random

import pytest

from res_repro.agents.providers.base import RetryableProviderError
from res_repro.agents.retry import RetryPolicy, RetryReporter, call_with_retries

POLICY = RetryPolicy(max_attempts=4, base_delay_s=0.0, max_delay_s=0.0, jitter=0.0)


def _failing() -> None:
    raise RetryableProviderError("connection refused by http://localhost:9/v1")


def test_a_failing_endpoint_is_reported_with_the_error_and_the_try(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING), pytest.raises(RetryableProviderError):
        call_with_retries(_failing, POLICY, random.Random(0), sleep=lambda _: None, model="my-model")
    lines = [r.getMessage() for r in caplog.records if r.name == "res_repro.agents.retry"]
    assert lines and lines[0].startswith("my-model: connection refused by http://localhost:9/v1; try 2 of 4")


def test_many_retries_of_one_model_give_one_line_then_a_count(caplog: pytest.LogCaptureFixture) -> None:
    clock = iter([0.0, 1.0, 2.0, 30.0])
    report = RetryReporter(every_s=10.0)
    error = RetryableProviderError("429 rate limited")
    with caplog.at_level(logging.WARNING), pytest.MonkeyPatch.context() as patch:
        patch.setattr("res_repro.agents.retry.time.monotonic", lambda: next(clock))
        for attempt in range(4):
            report("m", error, attempt, POLICY, 1.0)
    lines = [r.getMessage() for r in caplog.records if r.name == "res_repro.agents.retry"]
    assert len(lines) == 2 and lines[1].endswith("(2 more retries since the last report)")
