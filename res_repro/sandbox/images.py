"""Small Docker images built on this machine, without any registry access."""

from __future__ import annotations

import hashlib
import io
import subprocess
import tarfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from res_repro.sandbox.base import SandboxError

if TYPE_CHECKING:
    import docker

BUSYBOX = Path("/bin/busybox")
BUSYBOX_TAG = "res-repro/busybox:local"
BUSYBOX_LABEL = "res-repro.busybox-sha256"
ROOT_PASSWD = b"root:x:0:0:root:/root:/bin/sh\n"
ROOT_GROUP = b"root:x:0:\n"


def _entry(
    name: str, kind: bytes, mode: int, data: bytes = b"", link: str = ""
) -> tuple[tarfile.TarInfo, bytes]:
    """A tar member owned by root."""
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.size, info.linkname = kind, mode, len(data), link
    return info, data


def busybox_rootfs(busybox: bytes, applets: list[str]) -> bytes:
    """A root filesystem as a tar: /bin/busybox, one symlink per applet, /tmp, /root and /etc basics."""
    entries = [
        _entry("bin", tarfile.DIRTYPE, 0o755),
        _entry("bin/busybox", tarfile.REGTYPE, 0o755, busybox),
        *(_entry(f"bin/{name}", tarfile.SYMTYPE, 0o777, link="busybox") for name in applets),
        _entry("etc", tarfile.DIRTYPE, 0o755),
        _entry("etc/passwd", tarfile.REGTYPE, 0o644, ROOT_PASSWD),
        _entry("etc/group", tarfile.REGTYPE, 0o644, ROOT_GROUP),
        _entry("root", tarfile.DIRTYPE, 0o700),
        _entry("tmp", tarfile.DIRTYPE, 0o1777),
    ]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if data else None)
    return buffer.getvalue()


def _applets(busybox: Path) -> list[str]:
    """The applet names the busybox binary provides (``busybox`` itself excluded)."""
    listed = subprocess.run([str(busybox), "--list"], capture_output=True, text=True, check=True).stdout
    return sorted({name for name in listed.split() if name != "busybox" and "/" not in name})


def _docker_client() -> docker.DockerClient:
    """A client for the engine named by the environment (DOCKER_HOST or the default socket)."""
    from res_repro.sandbox.docker import connect

    return connect()


def _image_labels(client: docker.DockerClient, tag: str) -> dict[str, Any] | None:
    """The labels of the image ``tag``, or None when there is no such image."""
    import docker.errors

    try:
        image = client.images.get(tag)
    except docker.errors.ImageNotFound:
        return None
    return image.labels or {}


def ensure_busybox_image(client: docker.DockerClient | None = None, tag: str = BUSYBOX_TAG) -> str:
    """Make sure ``tag`` is a busybox-only image built from this host's static busybox; return the tag.

    Nothing is pulled: the image is imported from a tar made in memory. An existing image is reused when
    it was built from the same busybox binary (recorded in a label), and rebuilt otherwise.
    """
    if not BUSYBOX.is_file():
        raise SandboxError(f"{BUSYBOX} is missing: apt-get install busybox-static")
    client = client or _docker_client()
    binary = BUSYBOX.read_bytes()
    digest = hashlib.sha256(binary).hexdigest()
    labels = _image_labels(client, tag)
    if labels is not None and labels.get(BUSYBOX_LABEL) == digest:
        return tag
    repository, _, version = tag.rpartition(":")
    client.api.import_image_from_data(
        busybox_rootfs(binary, _applets(BUSYBOX)),
        repository=repository,
        tag=version,
        changes=[f"LABEL {BUSYBOX_LABEL}={digest}", 'CMD ["sh"]'],
    )
    return tag
