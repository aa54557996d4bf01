"""A Harbor task with a prebuilt ``docker_image``: pulled from a real registry (Debian's docker-registry
serving on loopback) when the engine lacks it, and one clear, remembered error when it cannot be pulled.
"""

from __future__ import annotations

import io
import shutil
import socket
import subprocess
import tarfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import docker_unavailable
from task_factory import make_task

from res_repro.agents.reference import OracleAgent
from res_repro.env.formats import load_task_dir
from res_repro.evaluation.episode import run_episode
from res_repro.sandbox.docker_images import ensure_image

pytestmark = [pytest.mark.docker, pytest.mark.timeout(180)]

REGISTRY_BINARY = "docker-registry"
BASH_SHIM = b'#!/bin/sh\nexec sh "$@"\n'  # the busybox image has no bash; Harbor scripts run under it


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[str]:
    """A registry on 127.0.0.1 (an address Docker trusts without TLS); yields ``host:port``."""
    binary = shutil.which(REGISTRY_BINARY)
    if binary is None:
        docker_unavailable(f"{REGISTRY_BINARY} is not installed (apt-get install docker-registry)")
    port = _free_port()
    config = tmp_path / "registry.yml"
    config.write_text(
        "version: 0.1\n"
        f"storage:\n  filesystem:\n    rootdirectory: {tmp_path / 'blobs'}\n"
        f"http:\n  addr: 127.0.0.1:{port}\n"
    )
    process = subprocess.Popen(
        [binary, "serve", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/", timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    pytest.fail("the registry did not start")
                time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def _push_image(docker_image: str, name: str) -> None:
    """Push the busybox test image, with a bash shim, as ``name``; then drop it from the engine."""
    from res_repro.sandbox.docker import connect

    client = connect()
    container = client.containers.create(docker_image, command=["true"])
    try:
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w") as tar:
            info = tarfile.TarInfo("bin/bash")
            info.mode, info.size = 0o755, len(BASH_SHIM)
            tar.addfile(info, io.BytesIO(BASH_SHIM))
        container.put_archive("/", archive.getvalue())
        repository, _, tag = name.rpartition(":")
        container.commit(repository=repository, tag=tag)
    finally:
        container.remove(force=True)
    for line in client.images.push(repository, tag=tag, stream=True, decode=True):
        assert "error" not in line, line
    client.images.remove(name)
    client.close()


def _prebuilt_task(root: Path, image: str) -> Path:
    """A Harbor task whose environment is only ``docker_image`` (no environment/ folder)."""
    toml = (
        f'schema_version = "1.1"\n[task]\nname = "tests/prebuilt"\n[environment]\ndocker_image = "{image}"\n'
    )
    task = make_task(root, "prebuilt", toml=toml)
    shutil.rmtree(task / "environment")
    return task


def test_a_missing_image_is_pulled_from_the_registry_and_runs(
    registry: str, docker_image: str, tmp_path: Path
) -> None:
    from res_repro.sandbox.docker import connect

    image = f"{registry}/res-repro-tests/busybox-bash:{tmp_path.name[-8:].lower()}"
    _push_image(docker_image, image)
    task = load_task_dir(_prebuilt_task(tmp_path, image))
    record = run_episode(task, OracleAgent(), backend="docker", episode_id="pull", environment="original")
    assert record.error is None and record.passed, record.error
    client = connect()
    try:
        assert client.images.get(image).tags == [image]
    finally:
        client.images.remove(image, force=True)
        client.close()


def test_an_image_that_cannot_be_pulled_fails_once_with_the_fix(docker_image: str, tmp_path: Path) -> None:
    from res_repro.sandbox.docker import connect

    image = f"127.0.0.1:{_free_port()}/nowhere/missing:1"
    task = load_task_dir(_prebuilt_task(tmp_path, image))
    first = run_episode(task, OracleAgent(), backend="docker", episode_id="a", environment="original")
    assert first.infrastructure_failure
    assert (
        image in str(first.error) and "docker pull" in str(first.error) and "docker load" in str(first.error)
    )
    started = time.monotonic()
    with pytest.raises(Exception, match="cannot be pulled") as again:
        ensure_image(connect(), image)
    assert time.monotonic() - started < 1.0  # remembered: no second attempt
    assert str(again.value) in str(first.error)
