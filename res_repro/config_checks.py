"""Ranges of config values, checked over the composed config before any work starts.

The schemas (:mod:`res_repro.config`) fix each value's type, and composition rejects a value of the
wrong type; this module adds what a type cannot say: a threshold lies in [0, 1], a count is positive, a
limit is not negative. :data:`RANGES` holds every such rule, by schema and field, so a schema used in
several places (a model under ``models``, scaling settings under ``ablation.rebuilds``) is checked
wherever it appears. :func:`check_config` reports every value out of range on one line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hydra.errors import HydraException, MissingConfigException, OverrideParseException
from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from res_repro.config import (
    INTERNAL_PREFIXES,
    AblationConfig,
    AdmissionConfig,
    AgentCEConfig,
    AgentLoopConfig,
    BenchmarkConfig,
    ClawBundledConfig,
    ClawEvalLiveConfig,
    Config,
    CostEstimateConfig,
    MetricsConfig,
    ModelConfig,
    ProposerConfig,
    ProtocolConfig,
    RayExecutorConfig,
    RetryConfig,
    SandboxConfig,
    ScalingConfig,
    SFTCollectionConfig,
    SFTEvaluationConfig,
    SFTLaunchConfig,
    SFTTrainConfig,
    SweepConfig,
    TinyModelConfig,
    TrackingConfig,
    compose_config,
)
from res_repro.errors import UserInputError


@dataclass(frozen=True)
class Bound:
    """A numeric range: ``low`` (inclusive unless ``open_low``) up to ``high`` (inclusive); a list value
    has each item checked, and with ``ordered_pair`` must be two items, the first not above the second."""

    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    ordered_pair: bool = False

    @property
    def expected(self) -> str:
        """The range in words, as an error line states it."""
        if self.high is not None:
            left, right = "(" if self.open_low else "[", ")" if self.open_high else "]"
            text = f"a number in {left}{self.low:g}, {self.high:g}{right}"
        elif self.open_low:
            text = f"a number > {self.low:g}"
        else:
            text = f"a number >= {self.low:g}"
        return f"[low, high], each {text}, low <= high" if self.ordered_pair else text

    def holds(self, value: Any) -> bool:
        """True when ``value`` (a number, or a list or mapping of them) lies in the range."""
        if isinstance(value, Mapping):
            return all(self.holds(item) for item in value.values())
        if isinstance(value, Sequence) and not isinstance(value, str):
            pair_ok = not self.ordered_pair or (len(value) == 2 and value[0] <= value[1])
            return pair_ok and all(self.holds(item) for item in value)
        if not isinstance(value, int | float) or isinstance(value, bool):
            return False
        above = value > self.low if self.open_low else value >= self.low
        below = self.high is None or (value < self.high if self.open_high else value <= self.high)
        return above and below


UNIT = Bound(0.0, 1.0)  # thresholds, fractions, ratios
OPEN_UNIT = Bound(0.0, 1.0, open_low=True, open_high=True)  # confidence levels
POSITIVE = Bound(0.0, open_low=True)  # durations, rates
COUNT = Bound(1)  # how many: at least one
NON_NEGATIVE = Bound(0)  # limits, retries, depths, prices
UNIT_BAND = Bound(0.0, 1.0, ordered_pair=True)

# Schema -> field -> range. A field whose value is None (where the schema allows it) is not checked.
RANGES: dict[type, dict[str, Bound]] = {
    Config: {"seed": NON_NEGATIVE, "workers": COUNT},
    BenchmarkConfig: {"limit": NON_NEGATIVE},
    AgentCEConfig: {"H": COUNT, "B": NON_NEGATIVE, "instances": COUNT, "seed": NON_NEGATIVE},
    ClawBundledConfig: {"tasks_per_family": COUNT, "seed": NON_NEGATIVE},
    ClawEvalLiveConfig: {"threshold": UNIT},
    SandboxConfig: {
        "max_infra_retries": NON_NEGATIVE,
        "pids_limit": COUNT,
        "workspace_mb": COUNT,
        "output_cap_bytes": COUNT,
        "output_kill_bytes": COUNT,
        "max_concurrency": COUNT,
    },
    RayExecutorConfig: {"num_cpus": COUNT, "task_cpus": POSITIVE, "task_resources": POSITIVE},
    MetricsConfig: {"threshold": UNIT, "tcr_fraction": UNIT, "confidence": OPEN_UNIT, "n_bootstrap": COUNT},
    ModelConfig: {
        "temperature": NON_NEGATIVE,
        "max_output_tokens": COUNT,
        "timeout_s": POSITIVE,
        "max_concurrency": COUNT,
        "input_price_per_mtok": NON_NEGATIVE,
        "output_price_per_mtok": NON_NEGATIVE,
        "cached_input_price_per_mtok": NON_NEGATIVE,
        "cache_write_price_per_mtok": NON_NEGATIVE,
        "thinking_budget": COUNT,
        "latency_s": NON_NEGATIVE,
        "latency_spread": NON_NEGATIVE,
        "requests_per_minute": COUNT,
    },
    RetryConfig: {
        "max_attempts": COUNT,
        "base_delay_s": NON_NEGATIVE,
        "max_delay_s": NON_NEGATIVE,
        "jitter": UNIT,
    },
    AgentLoopConfig: {"max_turns": COUNT, "time_limit_s": POSITIVE, "max_tool_output_chars": COUNT},
    TrackingConfig: {"traces": NON_NEGATIVE},
    ProposerConfig: {
        "operators_per_child": COUNT,
        "max_turns": COUNT,
        "token_budget": COUNT,
        "max_invalid_replies": NON_NEGATIVE,
        "max_reply_chars": COUNT,
        "context_chars": COUNT,
        "files_chars": COUNT,
    },
    AdmissionConfig: {"band": UNIT_BAND, "ngram": COUNT, "rollouts": COUNT, "widened_rollouts": COUNT},
    CostEstimateConfig: {
        "input_tokens_per_turn": NON_NEGATIVE,
        "output_tokens_per_turn": NON_NEGATIVE,
        "proposer_input_tokens": NON_NEGATIVE,
        "proposer_output_tokens": NON_NEGATIVE,
    },
    ProtocolConfig: {
        "max_revisions": NON_NEGATIVE,
        "target_attempts": COUNT,
        "target_max_turns": COUNT,
        "depth_cap": NON_NEGATIVE,
        "evaluation_attempts": COUNT,
        "evaluation_max_turns": COUNT,
        "success_threshold": UNIT,
    },
    ScalingConfig: {
        "depth_cap": NON_NEGATIVE,
        "max_revisions": NON_NEGATIVE,
        "target_attempts": COUNT,
        "target_max_turns": COUNT,
    },
    AblationConfig: {"tasks": COUNT, "min_planned_depth": NON_NEGATIVE, "rebuild_seed": NON_NEGATIVE},
    SweepConfig: {"depth_caps": NON_NEGATIVE, "thresholds": UNIT, "budgets": NON_NEGATIVE},
    TinyModelConfig: {
        "vocab_size": COUNT,
        "hidden_size": COUNT,
        "intermediate_size": COUNT,
        "num_layers": COUNT,
        "num_heads": COUNT,
    },
    SFTTrainConfig: {
        "learning_rate": POSITIVE,
        "epochs": POSITIVE,
        "max_steps": COUNT,
        "per_device_batch_size": COUNT,
        "effective_batch_size": COUNT,
        "warmup_ratio": UNIT,
        "max_length": COUNT,
        "weight_decay": NON_NEGATIVE,
        "logging_steps": COUNT,
    },
    SFTLaunchConfig: {"num_processes": COUNT},
    SFTCollectionConfig: {"per_condition": COUNT},
    SFTEvaluationConfig: {"max_new_tokens": COUNT},
}


def _rules(schema: type | None) -> dict[str, Bound]:
    """The ranges of a schema's fields, its base schemas' included."""
    rules: dict[str, Bound] = {}
    for base in reversed(getattr(schema, "__mro__", ())):
        rules.update(RANGES.get(base, {}))
    return rules


def _shown(value: Any) -> str:
    """A value as the user would write it in an override."""
    return str(OmegaConf.to_container(value)) if isinstance(value, ListConfig) else repr(value)


def config_problems(node: Any, path: str = "") -> list[str]:
    """One ``key=value: expected ...`` text per value out of range in ``node`` and the nodes below it
    (values still to be given, ``???``, are left to whoever reads them)."""
    if not isinstance(node, DictConfig):
        return []
    problems = []
    rules = _rules(OmegaConf.get_type(node))
    for key in node:
        # a value taken from another key (${protocol.depth_cap}) is checked there
        if OmegaConf.is_missing(node, key) or OmegaConf.is_interpolation(node, key):
            continue
        name, value, bound = f"{path}{key}", node[key], rules.get(str(key))
        if bound is not None and value is not None and not bound.holds(value):
            each = "each item " if isinstance(value, ListConfig) and not bound.ordered_pair else ""
            problems.append(f"{name}={_shown(value)}: expected {each}{bound.expected}")
        problems += config_problems(value, f"{name}.")
    return problems


PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")  # a name that is one folder, never a path


def path_problems(cfg: DictConfig) -> list[str]:
    """The values that become folders and would put a run's files outside its root: ``task_name`` (a run
    folder's name) must be a plain name, ``paths.root_dir`` must be given and not be a file."""
    problems = []
    task_name = cfg.get("task_name")
    if isinstance(task_name, str) and not PLAIN_NAME.fullmatch(task_name):
        problems.append(
            f"task_name={task_name!r}: expected a plain name (letters, digits, _ . -), not a path"
        )
    paths = cfg.get("paths")
    root = paths.get("root_dir") if isinstance(paths, DictConfig) else None
    if paths is not None and not OmegaConf.is_missing(paths, "root_dir") and not str(root or "").strip():
        problems.append(
            "paths.root_dir='': expected the folder runs and caches live in (empty is the filesystem root)"
        )
    elif isinstance(root, str) and Path(root).exists() and not Path(root).is_dir():
        problems.append(f"paths.root_dir={root!r}: a file; expected the folder runs and caches live in")
    return problems


def model_problems(cfg: DictConfig) -> list[str]:
    """The values still to be given (``???``) of the models a run uses (its agents, the scaling target
    and an LLM proposer), e.g. the model id of ``models=own``."""
    models = cfg.get("models")
    if not isinstance(models, DictConfig):
        return []
    scaling = cfg.get("scaling")
    used = [*(cfg.get("agents") or []), *([scaling.get("target")] if isinstance(scaling, DictConfig) else [])]
    if isinstance(scaling, DictConfig) and isinstance(scaling.get("proposer"), DictConfig):
        used.append(scaling.proposer.get("model"))
    return [
        f"models.{key}.{field}: a value is needed (e.g. models.{key}.{field}=...)"
        for key in dict.fromkeys(k for k in used if isinstance(k, str) and k in models)
        for field in models[key]
        if OmegaConf.is_missing(models[key], field)
    ]


def check_config(cfg: DictConfig) -> None:
    """Raise a :class:`UserInputError` naming every value of ``cfg`` out of its range, on one line."""
    problems = path_problems(cfg) + model_problems(cfg) + config_problems(cfg)
    if problems:
        raise UserInputError("; ".join(problems))


def _composition_line(exc: Exception) -> str:
    """Hydra's and OmegaConf's multi-line composition errors as one line: their statements, without the
    indented details, search paths and links; a missing option with the options a user may pick."""
    if isinstance(exc, MissingConfigException):
        options = [o for o in exc.options or [] if not o.startswith(INTERNAL_PREFIXES)]
        head = str(exc).splitlines()[0]
        return f"{head}; expected one of {', '.join(options)}" if options else head
    lines = [*str(exc).splitlines(), *(str(exc.__cause__).splitlines() if exc.__cause__ else [])]
    kept = [
        line.strip().rstrip(".")
        for line in lines
        if line.strip() and not line[0].isspace() and not line.startswith(("See http", "Config search path"))
    ]
    where = f"{exc.override}: " if isinstance(exc, OverrideParseException) else ""
    return where + "; ".join(kept)


def overrides_problem(overrides: Sequence[str]) -> str | None:
    """Why the config that ``overrides`` compose cannot run (a key, group option or value that composition
    rejects, or a value out of range), on one line; None when it composes and every value is in range."""
    try:
        check_config(compose_config(*overrides, hydra=True))
    except UserInputError as exc:
        return str(exc)
    except (HydraException, OmegaConfBaseException) as exc:
        return _composition_line(exc)
    return None
