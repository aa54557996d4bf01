"""The task.toml schema of Harbor tasks, schema versions 1.0 to 1.4 (Terminal-Bench 2.x uses 1.1).

Every field Harbor defines is accepted with its type checked; a known field with a wrong type is a
one-line error. A key Harbor does not define is kept (so a task saves back unchanged) and reported once
as a warning, since newer Harbor releases add fields. The fields that change how an episode runs are
honoured: ``environment.docker_image``, the network policy, the resources, the verifier's environment
mode, timeouts and ``artifacts``.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

log = logging.getLogger(__name__)

KNOWN_SCHEMA_VERSIONS = ("1.0", "1.1", "1.2", "1.3", "1.4")
WRITTEN_SCHEMA_VERSION = "1.4"
METADATA_KEY = "res_repro"  # [metadata.res_repro]: what this harness records about a task it exported


class NetworkMode(StrEnum):
    """Network access during an episode."""

    NO_NETWORK = "no-network"
    PUBLIC = "public"
    ALLOWLIST = "allowlist"


class VerifierMode(StrEnum):
    """Whether the verifier runs in the agent's sandbox or in a fresh one."""

    SHARED = "shared"
    SEPARATE = "separate"


class _Section(BaseModel):
    """A task.toml table: known fields are typed; unknown ones are kept (see :func:`unknown_keys`)."""

    model_config = ConfigDict(extra="allow")


class Author(_Section):
    """One entry of ``[task] authors``."""

    name: str
    email: str | None = None


class TaskSection(_Section):
    """``[task]``: the package identity (Harbor names it ``org/name``)."""

    name: str | None = None
    version: str | None = None
    description: str = ""
    authors: list[Author] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)


class MetadataSection(_Section):
    """``[metadata]``: descriptive fields, free-form beyond these."""

    category: str | None = None
    difficulty: str | None = None
    tags: list[str] = Field(default_factory=list)


class _NetworkPolicy(_Section):
    """A phase's network policy; None inherits the environment's."""

    network_mode: NetworkMode | None = None
    allowed_hosts: list[str] | None = None


class AgentSection(_NetworkPolicy):
    """``[agent]``: the agent's wall-clock budget and user."""

    timeout_sec: float | None = Field(default=600.0, gt=0)
    user: str | int | None = None


class EnvironmentSection(_Section):
    """``[environment]``: image, network and resources of the sandbox."""

    docker_image: str | None = None
    build_timeout_sec: float = Field(default=600.0, gt=0)
    os: str = "linux"
    cpus: float = Field(default=1.0, gt=0)
    memory_mb: int = Field(default=2048, gt=0)
    storage_mb: int = Field(default=10240, gt=0)
    gpus: int | None = Field(default=None, ge=0)
    gpu_types: list[str] | None = None
    tpu: dict[str, Any] | None = None
    env: dict[str, str] = Field(default_factory=dict)
    workdir: str | None = None
    skills_dir: str | None = None
    healthcheck: dict[str, Any] | None = None
    mcp_servers: list[dict[str, Any]] = Field(default_factory=list)
    network_mode: NetworkMode | None = None
    allowed_hosts: list[str] | None = None
    allow_internet: bool | None = None  # before schema 1.2; network_mode wins when both are set

    @property
    def network(self) -> NetworkMode:
        """The effective policy: ``network_mode``, else the legacy ``allow_internet``, else public
        (Harbor's default)."""
        if self.network_mode is not None:
            return self.network_mode
        if self.allow_internet is not None:
            return NetworkMode.PUBLIC if self.allow_internet else NetworkMode.NO_NETWORK
        return NetworkMode.PUBLIC


class VerifierSection(_NetworkPolicy):
    """``[verifier]``: how long tests/test.sh may run, and where."""

    timeout_sec: float = Field(default=600.0, gt=0)
    env: dict[str, str] = Field(default_factory=dict)
    user: str | int | None = None
    environment_mode: VerifierMode | None = None
    environment: EnvironmentSection | None = None
    collect: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def mode(self) -> VerifierMode:
        """Shared unless ``environment_mode`` says separate or a verifier environment is given."""
        if self.environment_mode is not None:
            return self.environment_mode
        return VerifierMode.SEPARATE if self.environment is not None else VerifierMode.SHARED


class SolutionSection(_Section):
    """``[solution]``: the reference solution's environment (and, in this harness, its time limit)."""

    env: dict[str, str] = Field(default_factory=dict)
    timeout_sec: float | None = Field(default=None, gt=0)  # unset: the agent's timeout, as Harbor does


class ArtifactSpec(_Section):
    """One entry of ``artifacts`` given as a table: a path to collect after the episode."""

    source: str
    destination: str | None = None
    exclude: list[str] = Field(default_factory=list)
    service: str | None = None


class TaskConfig(_Section):
    """The whole task.toml."""

    schema_version: str | None = None
    task: TaskSection = Field(default_factory=TaskSection)
    metadata: MetadataSection = Field(default_factory=MetadataSection)
    verifier: VerifierSection = Field(default_factory=VerifierSection)
    agent: AgentSection = Field(default_factory=AgentSection)
    environment: EnvironmentSection = Field(default_factory=EnvironmentSection)
    solution: SolutionSection = Field(default_factory=SolutionSection)
    source: str | None = None
    multi_step_reward_strategy: str | None = None
    steps: list[dict[str, Any]] | None = None
    artifacts: list[str | ArtifactSpec] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _legacy_version(cls, data: Any) -> Any:
        """Schema 1.0 called ``schema_version`` ``version``."""
        if isinstance(data, dict) and "version" in data:
            data = dict(data)
            data.setdefault("schema_version", data.pop("version"))
        return data

    @property
    def solution_timeout_sec(self) -> float:
        """How long solution/solve.sh may run: ``[solution] timeout_sec``, else what an export recorded
        (``[metadata.res_repro] solution_timeout_sec``), else the agent's timeout, as Harbor does."""
        exported = (self.metadata.model_extra or {}).get(METADATA_KEY, {})
        recorded = exported.get("solution_timeout_sec") if isinstance(exported, dict) else None
        return float(self.solution.timeout_sec or recorded or self.agent.timeout_sec or 600.0)

    def artifact_paths(self) -> list[str]:
        """The sandbox paths collected into the episode record after grading."""
        return [entry if isinstance(entry, str) else entry.source for entry in self.artifacts]


def unknown_keys(model: BaseModel, prefix: str = "") -> list[str]:
    """Dotted names of every key in ``model`` (and its nested tables) that the schema does not define."""
    found = [f"{prefix}{key}" for key in (model.model_extra or {})]
    for name in type(model).model_fields:
        value = getattr(model, name)
        values = value if isinstance(value, list) else [value]
        for index, item in enumerate(values):
            if isinstance(item, _Section) and not isinstance(item, MetadataSection):
                where = f"{prefix}{name}.{index}." if isinstance(value, list) else f"{prefix}{name}."
                found += unknown_keys(item, where)
    return found
