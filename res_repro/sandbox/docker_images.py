"""The images Docker sandboxes run: prebuilt ones pulled when missing, task environments built once.

A pull or a build that fails is remembered for the rest of the process: every later sandbox of the
same image fails at once with the same one-line reason, so a suite of episodes reports it once per
task instead of retrying (and printing a build log) for every episode.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections import defaultdict
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from res_repro.sandbox.base import SandboxError

if TYPE_CHECKING:
    import docker

log = logging.getLogger(__name__)

ENV_IMAGE_REPO = "res-repro-env"
PROGRESS_EVERY_S = 5.0
BUILD_LOG_TAIL = 2000

_failed: dict[str, str] = {}  # image or build context -> why it cannot be had
_locks: defaultdict[str, threading.Lock] = defaultdict(threading.Lock)


def _remembered(key: str) -> None:
    if key in _failed:
        raise SandboxError(_failed[key])


def _fail(key: str, message: str) -> SandboxError:
    _failed[key] = message
    log.error("%s", message)
    return SandboxError(message)


def _pull_progress(events: Any, image: str) -> None:
    """Log a pull's progress every few seconds (layers done of layers seen) and at the end."""
    layers: dict[str, str] = {}
    last = time.monotonic()
    for event in events:
        if "error" in event:
            raise RuntimeError(str(event["error"]))
        if "id" in event and "status" in event:
            layers[event["id"]] = event["status"]
        if time.monotonic() - last >= PROGRESS_EVERY_S:
            done = sum(status in {"Pull complete", "Already exists"} for status in layers.values())
            log.info("pulling %s: %d of %d layers", image, done, len(layers))
            last = time.monotonic()


def ensure_image(client: docker.DockerClient, image: str) -> str:
    """``image`` present on the engine: used as it is, or pulled (with progress) when missing.

    When the engine cannot pull it, the error names the image and how to get it there.
    """
    import docker.errors

    _remembered(image)
    with _locks[image]:
        _remembered(image)
        with suppress(docker.errors.ImageNotFound):
            client.images.get(image)
            return image
        log.info("pulling %s (not on this engine yet)", image)
        try:
            _pull_progress(client.api.pull(image, stream=True, decode=True), image)
            client.images.get(image)
        except (docker.errors.DockerException, RuntimeError) as exc:
            reason = str(exc).splitlines()[0][:300]
            raise _fail(
                image,
                f"docker image {image} is not on this engine and cannot be pulled ({reason}); "
                f"run `docker pull {image}` where a registry is reachable, or `docker load` a saved copy",
            ) from exc
        log.info("pulled %s", image)
        return image


def environment_hash(environment_dir: Path) -> str:
    """A content hash of a build context: every file's relative path, executable bit and bytes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in environment_dir.rglob("*") if p.is_file() or p.is_symlink()):
        rel = path.relative_to(environment_dir).as_posix()
        body = os.fsencode(path.readlink().as_posix()) if path.is_symlink() else path.read_bytes()
        digest.update(os.fsencode(f"{rel}\0{path.lstat().st_mode & 0o111:o}\0{len(body)}\0"))
        digest.update(body)
    return digest.hexdigest()[:16]


def build_environment_image(client: docker.DockerClient, environment_dir: Path) -> str:
    """Build (or reuse) the image of a task's environment folder; return its content-hash tag.

    A failed build is reported once, with the tail of its log, and not tried again in this process.
    """
    import docker.errors

    if not (environment_dir / "Dockerfile").is_file():
        raise SandboxError(f"no Dockerfile in {environment_dir}")
    tag = f"{ENV_IMAGE_REPO}:{environment_hash(environment_dir)}"
    _remembered(tag)
    with _locks[tag]:
        _remembered(tag)
        with suppress(docker.errors.ImageNotFound):
            client.images.get(tag)
            return tag
        try:
            client.images.build(path=str(environment_dir), tag=tag, rm=True, forcerm=True)
        except docker.errors.BuildError as exc:
            steps = (str(step.get("stream") or step.get("error") or "") for step in exc.build_log)
            tail = "".join(steps)[-BUILD_LOG_TAIL:]
            log.error("building %s/Dockerfile failed; the end of its log:\n%s", environment_dir, tail)
            raise _fail(tag, f"building {environment_dir}/Dockerfile failed: {exc.msg}") from exc
        return tag
