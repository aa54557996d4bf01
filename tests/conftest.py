"""Shared test helpers: no downloads, and access to a Docker engine (skipped where there is none, except
under CI)."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

from res_repro.sandbox.base import SandboxError


@pytest.fixture(autouse=True)
def offline_hubs(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may download anything: the model and dataset hubs' clients are told they are offline."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


@pytest.fixture(autouse=True)
def collector_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that runs a job in the test process (``cli.main``, ``hydra_main``) leaves the garbage
    collector as it was: freezing is for processes that run jobs and exit (``tests/test_job_process.py``
    checks it in a child interpreter), not for the test session."""
    monkeypatch.setattr("res_repro.app.freeze_the_job_modules", lambda task_name: None)
    monkeypatch.setattr("res_repro.app.freeze_at_exit", lambda: None)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that needs a Docker engine starts containers, seconds each: it is slow too, so the
    everyday loop (``make test-fast``, ``-m "not slow"``) leaves it to ``make test``."""
    for item in items:
        if item.get_closest_marker("docker") is not None:
            item.add_marker(pytest.mark.slow)


def docker_unavailable(reason: str) -> NoReturn:
    """Skip the current test for lack of Docker, or fail it when CI=true (CI always provides Docker)."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true, so Docker tests must run, but: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def docker_image() -> str:
    """The busybox test image on a reachable Docker engine (built locally on first use)."""
    from res_repro.sandbox.docker import connect
    from res_repro.sandbox.images import ensure_busybox_image

    try:
        client = connect()
        try:
            return ensure_busybox_image(client)
        finally:
            client.close()
    except SandboxError as exc:
        docker_unavailable(str(exc))
