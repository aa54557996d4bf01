"""Sandboxes: isolated places to run an episode's commands, behind one protocol and a backend registry."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from res_repro.errors import UserInputError
from res_repro.sandbox.base import (
    AGENT_LOGS_DIR,
    APP_DIR,
    DEFAULT_LIMITS,
    LOGS_DIR,
    SOLUTION_DIR,
    TESTS_DIR,
    TMP_DIR,
    VERIFIER_LOGS_DIR,
    ExecResult,
    Sandbox,
    SandboxError,
    SandboxLimits,
    SandboxSpec,
    ShellSession,
)
from res_repro.sandbox.docker import DockerSandbox
from res_repro.sandbox.local import LocalSandbox

SANDBOX_BACKENDS: dict[str, type[Sandbox]] = {"local": LocalSandbox, "docker": DockerSandbox}


@dataclasses.dataclass(frozen=True)
class SandboxBackend:
    """A backend by name with the limits every sandbox it makes enforces.

    Pass it wherever a backend name is accepted (the runner, checks, episodes): it travels unchanged to
    :func:`make_sandbox`. Concurrency limits count by its name; episode ids also carry limits that
    differ from the defaults (see :func:`backend_key`), since an output cap or a workspace size can change
    what an agent sees and achieves.
    """

    name: str
    limits: SandboxLimits = DEFAULT_LIMITS


def backend_from_config(config: Mapping[str, Any]) -> SandboxBackend:
    """The backend and limits of a ``sandbox`` config group (see ``conf/sandbox``); an unknown backend
    fails here, before any sandbox is wanted."""
    sandbox_class(str(config["backend"]))
    return SandboxBackend(
        name=str(config["backend"]),
        limits=SandboxLimits(
            pids=int(config["pids_limit"]),
            workspace_mb=int(config["workspace_mb"]),
            output_cap_bytes=int(config["output_cap_bytes"]),
            output_kill_bytes=int(config["output_kill_bytes"]),
        ),
    )


Backend = str | SandboxBackend
"""A sandbox backend by name (default limits) or with its limits."""


def backend_name(backend: Backend) -> str:
    """The name of a backend given by name or as a :class:`SandboxBackend`."""
    return backend.name if isinstance(backend, SandboxBackend) else backend


def backend_key(backend: Backend) -> str:
    """The backend as part of an episode's id: its name, plus its limits when they are not the defaults
    (so episodes cached under the default limits stay valid, and others never mix with them)."""
    if not isinstance(backend, SandboxBackend) or backend.limits == DEFAULT_LIMITS:
        return backend_name(backend)
    limits = ",".join(f"{k}={v}" for k, v in sorted(dataclasses.asdict(backend.limits).items()))
    return f"{backend.name}[{limits}]"


def make_sandbox(backend: str | SandboxBackend, spec: SandboxSpec) -> Sandbox:
    """Create (without starting) a sandbox of ``backend`` for ``spec``.

    A :class:`SandboxBackend` replaces the spec's limits with its own.
    """
    if isinstance(backend, SandboxBackend):
        spec = dataclasses.replace(spec, limits=backend.limits)
    return sandbox_class(backend_name(backend))(spec)


def sandbox_class(name: str) -> Callable[[SandboxSpec], Sandbox]:
    """The sandbox class of the backend called ``name``; an unknown name is bad input."""
    try:
        return SANDBOX_BACKENDS[name]
    except KeyError:
        known = ", ".join(sorted(SANDBOX_BACKENDS))
        where = "sandbox.backend, or check --sandbox"
        raise UserInputError(f"unknown sandbox backend {name!r} ({where}); known backends: {known}") from None


__all__ = [
    "AGENT_LOGS_DIR",
    "APP_DIR",
    "DEFAULT_LIMITS",
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
    "SandboxBackend",
    "SandboxError",
    "SandboxLimits",
    "SandboxSpec",
    "ShellSession",
    "backend_from_config",
    "backend_name",
    "make_sandbox",
    "sandbox_class",
]
