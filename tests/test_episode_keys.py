"""Episode ids: sandbox limits that can change an episode are part of its id; the defaults are not."""

from __future__ import annotations

import dataclasses

import pytest
from hydra_config import CONF_DIR, compose_config

from res_repro.sandbox import DEFAULT_LIMITS, SandboxBackend, backend_from_config, backend_key


def test_default_limits_keep_the_plain_name_and_others_are_keyed_apart():
    assert backend_key("local") == backend_key(SandboxBackend("local")) == "local"
    small = backend_key(SandboxBackend("local", dataclasses.replace(DEFAULT_LIMITS, output_cap_bytes=4096)))
    tiny_disk = backend_key(SandboxBackend("local", dataclasses.replace(DEFAULT_LIMITS, workspace_mb=8)))
    assert len({"local", small, tiny_disk}) == 3
    assert small.startswith("local[") and "output_cap_bytes=4096" in small


@pytest.mark.parametrize("option", sorted(p.stem for p in (CONF_DIR / "sandbox").glob("*.yaml")))
def test_the_configured_limits_are_the_defaults_so_episode_ids_keep_the_plain_name(option):
    backend = backend_from_config(compose_config(f"sandbox={option}").sandbox)
    assert backend.limits == DEFAULT_LIMITS
    assert backend_key(backend) == option
