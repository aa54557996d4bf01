"""Config ranges: every shipped config is in range, every number a schema holds has a range, and a value
out of range is named with what was expected."""

from __future__ import annotations

import dataclasses
import typing

import pytest
from hydra_config import CONF_DIR, compose_config

from res_repro import config as schemas
from res_repro.config_checks import RANGES, UNIT, UNIT_BAND, Bound, config_problems, overrides_problem


def _options(group: str) -> list[str]:
    return sorted(p.stem for p in (CONF_DIR / group).glob("*.yaml"))


SHIPPED = [f"experiment={o}" for o in _options("experiment")] + [
    f"{group}={option}"
    for group in ("benchmark", "sandbox", "executor", "models", "scaling", "sft", "protocol", "agent_loop")
    for option in _options(group)
]


@pytest.mark.slow
@pytest.mark.parametrize("override", SHIPPED)
def test_every_shipped_config_is_in_range(override: str) -> None:
    extra = ["benchmark.path=/data/tasks"] if override == "benchmark=harbor_dataset" else []
    assert config_problems(compose_config(override, *extra)) == []


def _numeric(hint: object) -> bool:
    """True for int, float and their Optional or list forms."""
    args = typing.get_args(hint)
    if args:
        return any(_numeric(arg) for arg in args if arg is not type(None))
    return hint in (int, float)


def test_every_number_a_schema_holds_has_a_range() -> None:
    unchecked = []
    for schema in vars(schemas).values():
        if not (dataclasses.is_dataclass(schema) and schema.__module__ == schemas.__name__):
            continue
        hints = typing.get_type_hints(schema)
        ranged = {name for base in schema.__mro__ for name in RANGES.get(base, {})}
        for field in dataclasses.fields(schema):
            if _numeric(hints[field.name]) and field.name not in ranged:
                unchecked.append(f"{schema.__name__}.{field.name}")
    assert unchecked == []


def test_a_value_out_of_range_is_named_with_the_expected_range() -> None:
    problems = config_problems(
        compose_config(
            "benchmark.limit=-3",
            "metrics.threshold=1.7",
            "+model@models.m=gpt_5_6_sol",
            "models.m.timeout_s=0",
        )
    )
    assert sorted(problems) == [
        "benchmark.limit=-3: expected a number >= 0",
        "metrics.threshold=1.7: expected a number in [0, 1]",
        "models.m.timeout_s=0.0: expected a number > 0",
    ]


def test_a_value_taken_from_another_key_is_reported_once_where_it_is_set() -> None:
    assert config_problems(compose_config("protocol.depth_cap=-1")) == [
        "protocol.depth_cap=-1: expected a number >= 0"
    ]  # scaling.depth_cap is ${protocol.depth_cap}: not reported again


def test_none_passes_where_the_schema_allows_it() -> None:
    assert config_problems(compose_config("benchmark.limit=null")) == []


@pytest.mark.parametrize(
    ("bound", "value", "holds"),
    [
        (UNIT, 0.0, True),
        (UNIT, 1.0, True),
        (UNIT, 1.0001, False),
        (UNIT, True, False),  # a boolean is no number here
        (Bound(0.0, 1.0, open_low=True, open_high=True), 1.0, False),
        (Bound(0.0, open_low=True), 0.0, False),
        (UNIT, [0.2, 0.9], True),
        (UNIT, [0.2, 1.9], False),
        (UNIT_BAND, [0.2, 0.9], True),
        (UNIT_BAND, [0.9, 0.2], False),
        (UNIT_BAND, [0.2], False),
    ],
)
def test_bounds(bound: Bound, value: object, holds: bool) -> None:
    assert bound.holds(value) is holds


def test_composition_errors_are_one_line_naming_the_key() -> None:
    for override, says in [
        ("workers=abc", "workers=abc"),
        ("nosuchkey=1", "nosuchkey"),
        ("benchmark=nosuch", "expected one of agentce"),
        ("workers=[1,", "workers=[1,:"),
    ]:
        problem = overrides_problem([override])
        assert problem is not None and "\n" not in problem and says in problem, problem
    assert overrides_problem(["experiment=table1"]) is None
