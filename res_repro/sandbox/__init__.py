"""Sandboxes: isolated places to run an episode's commands, behind one protocol and a backend registry."""

from __future__ import annotations

from res_repro.errors import UserInputError
from res_repro.sandbox.base import (
    AGENT_LOGS_DIR,
    APP_DIR,
    DEFAULT_OUTPUT_CAP,
    LOGS_DIR,
    SOLUTION_DIR,
    TESTS_DIR,
    TMP_DIR,
    VERIFIER_LOGS_DIR,
    ExecResult,
    Sandbox,
    SandboxError,
    SandboxSpec,
    ShellSession,
)
from res_repro.sandbox.docker import DockerSandbox
from res_repro.sandbox.local import LocalSandbox

SANDBOX_BACKENDS: dict[str, type[Sandbox]] = {"local": LocalSandbox, "docker": DockerSandbox}


def make_sandbox(backend: str, spec: SandboxSpec) -> Sandbox:
    """Create (without starting) a sandbox of the named backend for ``spec``."""
    try:
        factory = SANDBOX_BACKENDS[backend]
    except KeyError:
        known = ", ".join(sorted(SANDBOX_BACKENDS))
        raise UserInputError(f"unknown sandbox backend {backend!r}; known backends: {known}") from None
    return factory(spec)


__all__ = [
    "AGENT_LOGS_DIR",
    "APP_DIR",
    "DEFAULT_OUTPUT_CAP",
    "LOGS_DIR",
    "SANDBOX_BACKENDS",
    "SOLUTION_DIR",
    "TESTS_DIR",
    "TMP_DIR",
    "VERIFIER_LOGS_DIR",
    "DockerSandbox",
    "ExecResult",
    "LocalSandbox",
    "Sandbox",
    "SandboxError",
    "SandboxSpec",
    "ShellSession",
    "make_sandbox",
]
