"""Structured configs: the schema of every Hydra config group, registered in Hydra's ConfigStore.

YAML files under ``conf/`` name one of these schemas in their defaults list, so a typo in a key or a
value of the wrong type fails when the config is composed, before any work starts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING, OmegaConf

import res_repro


def project_root() -> str:
    """The folder holding the checkout (where ``pyproject.toml`` is), else the working directory."""
    candidate = Path(res_repro.__file__).resolve().parents[1]
    return str(candidate if (candidate / "pyproject.toml").is_file() else Path.cwd())


@dataclass
class PathsConfig:
    """Every location the harness reads or writes, in one place."""

    root_dir: str = MISSING
    cache_dir: str = MISSING  # content-addressed episode records, reused across runs
    log_dir: str = MISSING  # Hydra run and multirun folders
    output_dir: str = MISSING  # this run's folder
    results_dir: str = MISSING  # committed tables and figures of the default run
    mlflow_db: str = MISSING  # the MLflow SQLite database
    mlflow_artifacts: str = MISSING  # MLflow artifact files, one folder per experiment


@dataclass
class BenchmarkConfig:
    """Which benchmark to load; ``limit`` keeps its first N tasks (for quick runs)."""

    name: str = MISSING
    limit: int | None = None


@dataclass
class AgentCEConfig(BenchmarkConfig):
    """The AgentCE-style generator: H hidden slots, B decoys, how many instances, and their seed."""

    H: int = 4
    B: int = 2
    instances: int = 10
    seed: int = 0


@dataclass
class ClawBundledConfig(BenchmarkConfig):
    """The bundled Claw-style suite: instances per family and their seed."""

    tasks_per_family: int = 5
    seed: int = 0


@dataclass
class ClawEvalLiveConfig(BenchmarkConfig):
    """Claw-Eval-Live from the user's checkout; ``threshold`` is the pass threshold on native scores."""

    checkout: str = MISSING
    task_filter: str | None = None
    threshold: float = 0.80


@dataclass
class SandboxConfig:
    """Which isolation backend runs episodes, and how infrastructure failures are retried."""

    backend: str = "local"
    max_infra_retries: int = 2


@dataclass
class MetricsConfig:
    """Metric thresholds and the settings of every interval and test."""

    threshold: float = 0.80  # Pass@1 on native scores
    tcr_fraction: float = 0.80  # TCR@80 on rubric items
    confidence: float = 0.95
    n_bootstrap: int = 10_000


@dataclass
class ModelConfig:
    """A model behind a provider API. ``api_key_env`` names the key's variable (None: no key needed)."""

    name: str = MISSING  # how tables name it, e.g. "GPT-5.6 Sol"
    provider: str = "openai"  # openai (any OpenAI-compatible server too) | anthropic
    model: str = MISSING  # the provider's model id
    base_url: str | None = None
    api_key_env: str | None = "OPENAI_API_KEY"
    temperature: float | None = 0.0
    max_output_tokens: int | None = 4096
    timeout_s: float = 120.0


@dataclass
class RetryConfig:
    """Bounded retries of model calls on 429, 5xx and timeouts."""

    max_attempts: int = 5
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    jitter: float = 0.5


@dataclass
class AgentLoopConfig:
    """Limits of one LLM agent episode: the paper uses 50 turns (60 for the scaling target)."""

    max_turns: int = 50
    time_limit_s: float = 1800.0
    max_tool_output_chars: int = 8000
    retry: RetryConfig = field(default_factory=RetryConfig)


@dataclass
class ProposerConfig:
    """Who proposes children: ``programmatic`` (seeded) or ``llm`` (``model`` names a key of ``models``)."""

    kind: str = "programmatic"
    model: str | None = None
    operators_per_child: int = 1


@dataclass
class ScalingConfig:
    """Recursive scaling: depth cap, inheritance, composition, operator library, revisions, target."""

    depth_cap: int = 10
    inheritance: bool = True
    composition: bool = True
    library: list[str] | None = None  # operator names; None is the full library
    max_revisions: int = 3
    target: str | None = "explorer-standard"  # agent deciding when to stop; None: build to the cap
    target_attempts: int = 3
    target_max_turns: int = 60
    proposer: ProposerConfig = field(default_factory=ProposerConfig)


@dataclass
class TrackingConfig:
    """MLflow: a SQLite tracking store at an absolute path inside the project."""

    enabled: bool = True
    uri: str = MISSING
    experiment: str = MISSING


@dataclass
class Config:
    """The root config: one group per axis plus run-wide settings."""

    task_name: str = MISSING  # the pipeline to run (see res_repro.pipelines)
    # scripted agent names or keys of ``models``; the models groups replace this list
    agents: list[str] = field(
        default_factory=lambda: ["oracle", "explorer-basic", "explorer-standard", "explorer-expert"]
    )
    models: dict[str, ModelConfig] = field(default_factory=dict)
    agent_loop: AgentLoopConfig = field(default_factory=AgentLoopConfig)
    scaling: ScalingConfig = field(default_factory=ScalingConfig)
    seed: int = 0
    workers: int = 2
    show_progress: bool = True
    save_results: bool = False  # also write tables and figures to paths.results_dir (the committed ones)
    paths: PathsConfig = field(default_factory=PathsConfig)
    benchmark: BenchmarkConfig = field(default_factory=BenchmarkConfig)
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)


def register_configs() -> None:
    """Register the schemas and the ``project_root`` resolver (safe to call more than once)."""
    if not OmegaConf.has_resolver("project_root"):
        OmegaConf.register_new_resolver("project_root", project_root)
    store = ConfigStore.instance()
    store.store(name="base_config", node=Config)
    store.store(group="paths", name="base_paths", node=PathsConfig)
    store.store(group="benchmark", name="base_benchmark", node=BenchmarkConfig)
    store.store(group="benchmark", name="base_agentce", node=AgentCEConfig)
    store.store(group="benchmark", name="base_claw_bundled", node=ClawBundledConfig)
    store.store(group="benchmark", name="base_claw_eval_live", node=ClawEvalLiveConfig)
    store.store(group="sandbox", name="base_sandbox", node=SandboxConfig)
    store.store(group="metrics", name="base_metrics", node=MetricsConfig)
    store.store(group="tracking", name="base_tracking", node=TrackingConfig)
    store.store(group="agent_loop", name="base_agent_loop", node=AgentLoopConfig)
    store.store(group="model", name="base_model", node=ModelConfig)
    store.store(group="scaling", name="base_scaling", node=ScalingConfig)
