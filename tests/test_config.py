"""Every config composes against its schema with every value set; bad values fail at composition.

The schemas leave the values the YAML sets ``MISSING`` (res_repro/config.py), so resolving with
``throw_on_missing`` fails for any composition whose YAML leaves one unset. Each group's options fill only
their own node, so composing every option of every group, and every experiment (which also switches
groups and adds the ablation rebuilds), covers every combination.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra.errors import ConfigCompositionException
from hydra_config import CONF_DIR, compose_config
from omegaconf import OmegaConf
from omegaconf.errors import MissingMandatoryValue, ValidationError

from res_repro.pipelines import PIPELINES

GROUPS = [
    "benchmark",
    "sandbox",
    "executor",
    "metrics",
    "tracking",
    "paths",
    "scaling",
    "sft",
    "agent_loop",
    "models",
    "protocol",
]


# Values only the user can give (where their data is), supplied as a user would.
USER_SUPPLIED = {
    ("benchmark", "harbor_dataset"): ["benchmark.path=/data/my-harbor-dataset"],
    ("models", "own"): ["models.own.model=my-org/my-model"],
}


def _compose(overrides: list[str]):
    return compose_config(*overrides, hydra=True)


def _options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF_DIR / group).glob("*.yaml"))


def _resolve(cfg) -> dict:
    """Every value of the config, resolved; a value left MISSING raises."""
    # ${hydra:...} needs a running app; give the output dir a value to resolve the rest.
    cfg.paths.output_dir = "/tmp/out"
    cfg = OmegaConf.masked_copy(cfg, [k for k in cfg if k != "hydra"])
    return OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)


@pytest.mark.slow
@pytest.mark.parametrize("experiment", _options("experiment"))
def test_every_experiment_composes(experiment):
    resolved = _resolve(_compose([f"experiment={experiment}"]))
    assert resolved["task_name"] in PIPELINES
    assert Path(resolved["paths"]["mlflow_db"]).is_absolute()
    assert resolved["tracking"]["uri"] == f"sqlite:///{resolved['paths']['mlflow_db']}"


@pytest.mark.slow
@pytest.mark.parametrize(("group", "option"), [(g, o) for g in GROUPS for o in _options(g)])
def test_every_group_option_composes(group, option):
    resolved = _resolve(_compose([f"{group}={option}", *USER_SUPPLIED.get((group, option), [])]))
    assert group in resolved


def test_wrong_type_fails_at_composition():
    with pytest.raises((ConfigCompositionException, ValidationError)):
        _compose(["metrics.threshold=high"])


def test_unknown_key_fails_at_composition():
    with pytest.raises(ConfigCompositionException):
        _compose(["sandbox.bakend=docker"])


def test_a_value_no_yaml_sets_fails_the_check():
    cfg = _compose([])
    cfg.scaling.depth_cap = "???"  # as if conf/scaling/full.yaml left it out
    with pytest.raises(MissingMandatoryValue, match="depth_cap"):
        _resolve(cfg)
