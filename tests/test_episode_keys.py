"""Episode ids: sandbox limits that can change an episode are part of its id; the defaults are not."""

from __future__ import annotations

from res_repro.sandbox import SandboxBackend, SandboxLimits, backend_key


def test_default_limits_keep_the_plain_name_and_others_are_keyed_apart():
    assert backend_key("local") == backend_key(SandboxBackend("local")) == "local"
    small = backend_key(SandboxBackend("local", SandboxLimits(output_cap_bytes=4096)))
    tiny_disk = backend_key(SandboxBackend("local", SandboxLimits(workspace_mb=8)))
    assert len({"local", small, tiny_disk}) == 3
    assert small.startswith("local[") and "output_cap_bytes=4096" in small
