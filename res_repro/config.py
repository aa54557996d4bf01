"""Structured configs: the schema of every Hydra config group, registered in Hydra's ConfigStore.

YAML files under ``conf/`` name one of these schemas in their defaults list, so a typo in a key or a
value of the wrong type fails when the config is composed, before any work starts.

The values live in the YAML: a field that the group's YAML files set is ``MISSING`` here, so each value is
written once (tests/test_config.py fails when a composition leaves one unset). A field keeps a default
here only when no YAML file sets it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hydra import compose, initialize_config_dir
from hydra.core.config_store import ConfigStore
from omegaconf import MISSING, DictConfig, OmegaConf

import res_repro

CONF_DIR = Path(__file__).resolve().parents[1] / "conf"


def project_root() -> str:
    """The folder holding the checkout (where ``pyproject.toml`` is), else the working directory."""
    candidate = Path(res_repro.__file__).resolve().parents[1]
    return str(candidate if (candidate / "pyproject.toml").is_file() else Path.cwd())


@dataclass
class PathsConfig:
    """Every location the harness reads or writes, in one place."""

    root_dir: str = MISSING
    cache_dir: str = MISSING  # content-addressed episode records, reused across runs
    response_cache: str = MISSING  # model responses by request (a SQLite database: needs working locks)
    log_dir: str = MISSING  # Hydra run and multirun folders
    output_dir: str = MISSING  # this run's folder
    results_dir: str = MISSING  # committed tables and figures of the default run
    mlflow_db: str = MISSING  # the MLflow SQLite database
    mlflow_artifacts: str = MISSING  # MLflow artifact files, one folder per experiment


@dataclass
class BenchmarkConfig:
    """Which benchmark to load; ``limit`` keeps its first N tasks (for quick runs)."""

    name: str = MISSING
    limit: int | None = MISSING


@dataclass
class AgentCEConfig(BenchmarkConfig):
    """The AgentCE-style generator: H hidden slots, B decoys, how many instances, and their seed."""

    H: int = MISSING
    B: int = MISSING
    instances: int = MISSING
    seed: int = MISSING


@dataclass
class ClawBundledConfig(BenchmarkConfig):
    """The bundled Claw-style suite: instances per family and their seed."""

    tasks_per_family: int = MISSING
    seed: int = MISSING


@dataclass
class TaskFolderConfig(BenchmarkConfig):
    """A folder of task directories of any registered format (a Harbor dataset, say)."""

    path: str = MISSING


@dataclass
class ClawEvalLiveConfig(BenchmarkConfig):
    """Claw-Eval-Live from the user's checkout; ``threshold`` is the pass threshold on native scores."""

    checkout: str = MISSING
    task_filter: str | None = MISSING
    threshold: float | None = MISSING  # null: the benchmark's own pass rule


@dataclass
class SandboxConfig:
    """Which isolation backend runs episodes, and how infrastructure failures are retried."""

    backend: str = MISSING
    max_infra_retries: int = MISSING
    # Limits every sandbox enforces (res_repro.sandbox.SandboxLimits; README, Security, says how).
    pids_limit: int = MISSING  # processes and threads alive at once
    workspace_mb: int = MISSING  # what the writable folders may hold (tmpfs: counts against memory)
    output_cap_bytes: int = MISSING  # output kept per stream of a command
    output_kill_bytes: int = MISSING  # a command that writes more is killed
    max_concurrency: int | None = None  # episodes in this backend at once, whatever `workers` says


@dataclass
class ExecutorConfig:
    """Where episodes run: ``local`` (threads here) or ``ray``; ``workers`` bounds how many at once."""

    name: str = MISSING


@dataclass
class RayExecutorConfig(ExecutorConfig):
    """Episodes and lineages as Ray tasks: on the cluster at ``address`` ("auto", "ray://host:10001"), or,
    when it is null, on a local instance of ``num_cpus`` CPUs (null: all of them)."""

    address: str | None = MISSING
    num_cpus: int | None = MISSING
    task_cpus: float = MISSING  # CPUs reserved per task; lower it for model episodes, which mostly wait
    task_resources: dict[str, float] = MISSING  # custom Ray resources each task reserves ({docker: 1})
    runtime_env: dict[str, Any] = MISSING  # Ray's runtime_env (env_vars, py_modules...)


@dataclass
class MetricsConfig:
    """Metric thresholds and the settings of every interval and test."""

    threshold: float = MISSING  # Pass@1 on native scores
    tcr_fraction: float = MISSING  # TCR@80 on rubric items
    confidence: float = MISSING
    n_bootstrap: int = MISSING


@dataclass
class ModelConfig:
    """A model behind a provider API. ``api_key_env`` names the key's variable (None: no key needed)."""

    name: str = MISSING  # how tables name it, e.g. "GPT-5.6 Sol"
    provider: str = MISSING  # openai (any OpenAI-compatible server too) | anthropic
    model: str = MISSING  # the provider's model id
    # the model id the paper ran under this entry's name: its figures stand beside this entry's rows only
    # while ``model`` is still that id (None: not one of the paper's models)
    paper_model: str | None = None
    base_url: str | None = MISSING
    api_key_env: str | None = MISSING
    temperature: float | None = MISSING
    max_output_tokens: int | None = MISSING
    timeout_s: float = MISSING
    reasoning_effort: str | None = None  # OpenAI-style reasoning effort (low | medium | high), where taken
    thinking_budget: int | None = None  # Anthropic extended thinking's token budget (None: off)
    extra_body: dict[str, Any] = field(default_factory=dict)  # extra request fields sent as they are
    max_concurrency: int | None = None  # this model's episodes at once (rate limits), whatever `workers` says
    # US dollars per million tokens, as the provider bills them; None: local or free (no cost reported)
    input_price_per_mtok: float | None = MISSING
    output_price_per_mtok: float | None = MISSING
    cached_input_price_per_mtok: float | None = None  # prompt tokens read from the cache; None: input price
    cache_write_price_per_mtok: float | None = None  # prompt tokens written to the cache; None: input price
    prices_from: str | None = None  # where the prices come from and when they were read
    simulated: bool = False  # served by the harness's simulator (res_repro.simulation), started per run
    # a simulated model's answer time, lognormal with this median (seconds) and log-space spread (0: fixed)
    latency_s: float = 0.0
    latency_spread: float = 0.0
    requests_per_minute: int | None = None  # a simulated model's rate limit, answered 429 with retry-after
    address: str | None = None  # where requests go when not base_url: a simulator's port, set at start


@dataclass
class RetryConfig:
    """Bounded retries of model calls on 429, 5xx and timeouts."""

    max_attempts: int = MISSING
    base_delay_s: float = MISSING
    max_delay_s: float = MISSING
    jitter: float = MISSING


@dataclass
class AgentLoopConfig:
    """Limits of one LLM agent episode: the paper uses 50 turns (60 for the scaling target)."""

    max_turns: int = MISSING
    time_limit_s: float = MISSING
    max_tool_output_chars: int = MISSING
    retry: RetryConfig = field(default_factory=RetryConfig)


@dataclass
class ProposerConfig:
    """Who proposes children: ``programmatic`` (seeded) or ``llm`` (``model`` names a key of ``models``)."""

    kind: str = MISSING
    model: str | None = MISSING
    operators_per_child: int = MISSING
    mode: str = MISSING  # an LLM proposer's: agentic (inspects the candidate first) | single (one answer)
    max_turns: int = MISSING  # an LLM proposer's requests per revision, inspection included
    token_budget: int = MISSING  # an LLM proposer's input and output tokens per revision
    max_invalid_replies: int = MISSING  # unusable replies sent back to the model within one revision
    max_reply_chars: int = MISSING  # a longer reply is unusable
    context_chars: int = MISSING  # bound on the environment description an LLM proposer is shown
    files_chars: int = MISSING  # bound on the files' text a single-mode proposer is shown


@dataclass
class AdmissionConfig:
    """AutoEnvScaling-style admission of candidates that pass the RES checks (``none`` or ``calibration``):
    a solver's mean reward must lie in ``band`` (rollouts widened near an edge), the instruction must
    share no ``ngram``-word sequence with the other seed tasks; a refusal spends a revision."""

    kind: str = MISSING
    band: list[float] = MISSING  # [low, high]
    ngram: int = MISSING
    rollouts: int = MISSING
    widened_rollouts: int = MISSING
    solver: str | None = MISSING  # agent name or models key; None: the scaling target


@dataclass
class CostEstimateConfig:
    """What ``dry_run`` assumes per model request: mean tokens of one agent turn and one proposer call."""

    input_tokens_per_turn: int = MISSING  # the whole prompt, history included, averaged over an episode
    output_tokens_per_turn: int = MISSING
    proposer_input_tokens: int = MISSING
    proposer_output_tokens: int = MISSING


@dataclass
class ProtocolConfig:
    """An experimental protocol (the paper's): who the scaling target and the proposer are, the target's
    attempts, turns and stopping rule, the depth cap, and the evaluation's attempts, turns and threshold.
    ``scaling``, ``agent_loop`` and ``metrics`` take their values from it; a run names each departure."""

    name: str = MISSING
    target: str = MISSING  # a key of models: the scaling target
    proposer: str = MISSING  # a key of models: the LLM proposer
    max_revisions: int = MISSING
    target_attempts: int = MISSING
    target_max_turns: int = MISSING
    stop_on: str = MISSING  # when a target attempt counts as solved during scaling: fulfilment
    depth_cap: int = MISSING
    evaluation_attempts: int = MISSING
    evaluation_max_turns: int = MISSING
    success_threshold: float = MISSING


@dataclass
class ScalingConfig:
    """Recursive scaling: depth cap, inheritance, composition, operator library, revisions, target."""

    depth_cap: int = MISSING
    inheritance: bool = MISSING
    composition: bool = MISSING
    library: list[str] | None = MISSING  # operator names; None is the full library
    max_revisions: int = MISSING
    target: str | None = MISSING  # agent deciding when to stop; None: build to the cap
    target_attempts: int = MISSING
    target_max_turns: int = MISSING
    stop_on: str = MISSING  # a target attempt that counts as solved: fulfilment (the paper's) or pass
    hints: str = MISSING  # realistic (errors say what went wrong; the tools' docs how to recover) | guided
    proposer: ProposerConfig = field(default_factory=ProposerConfig)
    admission: AdmissionConfig = field(default_factory=AdmissionConfig)


@dataclass
class AblationConfig:
    """The component ablations (Tables 3A/3B, A5-A7): a slice of seed tasks and matched-budget rebuilds."""

    tasks: int = 15  # seed tasks in the cohort, evenly spaced over those that qualify
    min_planned_depth: int = 3  # the paper's rule: a task qualifies when its saved lineage reached this depth
    rebuild_seed: int = 1  # seed of the rebuilt lineages (shared by every rebuild variant)
    rebuilds: dict[str, ScalingConfig] = field(default_factory=dict)  # condition -> scaling settings


@dataclass
class SweepConfig:
    """Values that one run evaluates over the same records (depth caps, thresholds, selected budgets)."""

    depth_caps: list[int] = field(default_factory=lambda: [0, 1, 2, 3, 5, 10])
    thresholds: list[float] = field(default_factory=lambda: [0.70, 0.80, 0.90])
    budgets: list[int] = field(default_factory=lambda: [0, 1, 2, 3, 5, 10])  # Figure A3's budgets


@dataclass
class TinyModelConfig:
    """The tiny randomly initialised causal LM of offline runs, and the size of its locally trained vocab."""

    vocab_size: int = MISSING
    hidden_size: int = MISSING
    intermediate_size: int = MISSING
    num_layers: int = MISSING
    num_heads: int = MISSING


@dataclass
class SFTTrainConfig:
    """The optimisation of one fine-tuning run (Table A3); the effective batch is batch x accumulation."""

    learning_rate: float = MISSING  # peak
    epochs: float = MISSING
    max_steps: int | None = None  # None: as many as ``epochs`` take
    per_device_batch_size: int = MISSING
    effective_batch_size: int = MISSING  # examples per update; accumulation = this / (batch x processes)
    lr_scheduler: str = MISSING
    warmup_ratio: float = MISSING
    max_length: int = MISSING  # tokens per sequence; longer samples are cut and counted
    packing: bool = MISSING  # pack whole samples into rows of max_length (the batch then counts rows)
    optimizer: str = MISSING  # a transformers optimizer name; a DeepSpeed config's optimizer replaces it
    weight_decay: float = 0.0
    assistant_only_loss: bool = MISSING  # labels on the chat template's assistant turns only
    bf16: bool = MISSING  # bf16 compute over fp32 master weights
    activation_checkpointing: bool = MISSING  # recompute activations in backward (saves memory)
    attn_implementation: str = MISSING  # sdpa | eager | flash_attention_2 (when installed)
    logging_steps: int = 1


@dataclass
class SFTLaunchConfig:
    """How ``accelerate launch`` starts each run: its config file and, optionally, the process count."""

    accelerate_config: str = MISSING  # a file in conf/sft/accelerate/
    num_processes: int | None = None  # None: the accelerate config's num_processes


@dataclass
class SFTCollectionConfig:
    """Which teachers produce trajectories, which are kept, and how many per condition."""

    teachers: list[str] = field(default_factory=lambda: ["explorer-expert"])  # agent names or models keys
    include_scripted: bool = False  # train on scripted teachers' trajectories (labelled as scripted)
    only_passed: bool = True
    per_condition: int | None = None  # None: the size of the smaller condition's pool


@dataclass
class SFTEvaluationConfig:
    """Keys of ``models`` serving each checkpoint (an OpenAI-compatible server); None: not run. With
    ``local``, the run serves its own checkpoints on loopback instead (the keys must stay None)."""

    base: str | None = None
    sft_without_res: str | None = None
    sft_with_res: str | None = None
    local: bool = False  # serve the starting and both fine-tuned checkpoints here (res_repro.simulation)
    max_new_tokens: int = 128  # the longest reply of a locally served checkpoint


@dataclass
class SFTConfig:
    """Table 2's recipe: the base model, its optimisation, the trajectories, and who serves the results."""

    name: str = MISSING  # how tables name the base model, e.g. "Qwen3.5-4B"
    init: str = MISSING  # tiny: a random model built locally | pretrained: the checkpoint at model_path
    model_path: str | None = MISSING  # a local checkpoint directory (init=pretrained)
    tiny: TinyModelConfig | None = None  # the random model's sizes (init=tiny)
    train: SFTTrainConfig = field(default_factory=SFTTrainConfig)
    launch: SFTLaunchConfig = field(default_factory=SFTLaunchConfig)
    collection: SFTCollectionConfig = field(default_factory=SFTCollectionConfig)
    evaluation: SFTEvaluationConfig = field(default_factory=SFTEvaluationConfig)


@dataclass
class TrackingConfig:
    """MLflow: a SQLite tracking store at an absolute path inside the project."""

    enabled: bool = MISSING
    uri: str = MISSING
    experiment: str = MISSING
    traces: int = MISSING  # the most model episodes of a run logged as MLflow traces (the first ones)


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
    protocol: ProtocolConfig = field(default_factory=ProtocolConfig)
    scaling: ScalingConfig = field(default_factory=ScalingConfig)
    seed: int = MISSING
    workers: int = MISSING
    show_progress: bool = True
    save_results: bool = False  # also write tables and figures to paths.results_dir (the committed ones)
    dry_run: bool = MISSING  # print the planned model requests, tokens and cost per model, run nothing
    cost_estimate: CostEstimateConfig = field(default_factory=CostEstimateConfig)
    paths: PathsConfig = field(default_factory=PathsConfig)
    benchmark: BenchmarkConfig = field(default_factory=BenchmarkConfig)
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    executor: ExecutorConfig = field(default_factory=ExecutorConfig)
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)
    sft: SFTConfig = field(default_factory=SFTConfig)
    sft_recipes: dict[str, SFTConfig] = field(default_factory=dict)  # Table A3: every recipe, by sft option
    ablation: AblationConfig = field(default_factory=AblationConfig)
    sweep: SweepConfig = field(default_factory=SweepConfig)


INTERNAL_PREFIXES = ("base_", "_")  # structured-config schemas and shared fragments: never picked directly


def config_choices() -> dict[str, list[str]]:
    """The config groups a user picks from (``GROUP=OPTION``) and their options: the YAML files under
    ``conf/``, without Hydra's own group, internal schemas and fragments, or groups with a single option."""
    groups = {}
    for folder in sorted(p for p in CONF_DIR.iterdir() if p.is_dir() and p.name != "hydra"):
        options = sorted(f.stem for f in folder.glob("*.yaml") if not f.name.startswith(INTERNAL_PREFIXES))
        if len(options) > 1:
            groups[folder.name] = options
    return groups


def internal_choice(overrides: list[str]) -> str | None:
    """Why an override picks an internal entry of a group (``benchmark=base_agentce``), or None."""
    for override in overrides:
        group, _, option = override.lstrip("+~").partition("=")
        if group.isidentifier() and option.startswith(INTERNAL_PREFIXES) and (CONF_DIR / group).is_dir():
            options = ", ".join(config_choices().get(group, []))
            return (
                f"{override}: {option} is an internal schema entry, not a choice; {group}: one of {options}"
            )
    return None


@functools.cache
def register_configs() -> None:
    """Register the schemas and the ``project_root`` resolver, once per process (storing a schema
    converts it anew, about 40 ms in all)."""
    if not OmegaConf.has_resolver("project_root"):
        OmegaConf.register_new_resolver("project_root", project_root)
    store = ConfigStore.instance()
    store.store(name="base_config", node=Config)
    store.store(group="paths", name="base_paths", node=PathsConfig)
    store.store(group="benchmark", name="base_benchmark", node=BenchmarkConfig)
    store.store(group="benchmark", name="base_agentce", node=AgentCEConfig)
    store.store(group="benchmark", name="base_claw_bundled", node=ClawBundledConfig)
    store.store(group="benchmark", name="base_claw_eval_live", node=ClawEvalLiveConfig)
    store.store(group="benchmark", name="base_task_folder", node=TaskFolderConfig)
    store.store(group="sandbox", name="base_sandbox", node=SandboxConfig)
    store.store(group="executor", name="base_local_executor", node=ExecutorConfig)
    store.store(group="executor", name="base_ray_executor", node=RayExecutorConfig)
    store.store(group="metrics", name="base_metrics", node=MetricsConfig)
    store.store(group="tracking", name="base_tracking", node=TrackingConfig)
    store.store(group="agent_loop", name="base_agent_loop", node=AgentLoopConfig)
    store.store(group="model", name="base_model", node=ModelConfig)
    store.store(group="scaling", name="base_scaling", node=ScalingConfig)
    store.store(group="protocol", name="base_protocol", node=ProtocolConfig)
    store.store(group="sft", name="base_sft", node=SFTConfig)


def compose_config(*overrides: str, hydra: bool = False) -> DictConfig:
    """``conf/config.yaml`` with ``overrides``, composed outside a running app (for scripts and tests).

    ``${hydra:...}`` values (``paths.output_dir``) have no value there; ``hydra`` keeps the hydra node.
    """
    register_configs()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return compose(config_name="config", overrides=list(overrides), return_hydra_config=hydra)


def multirun_dir() -> Path | None:
    """The sweep folder when this process runs a job of a Hydra multirun, else None."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    if not HydraConfig.initialized() or HydraConfig.get().mode != RunMode.MULTIRUN:
        return None
    return Path(HydraConfig.get().sweep.dir)
