"""The parameters of an AgentCE suite and their allowed ranges."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from res_repro.errors import UserInputError

MAX_HIDDEN = 12
MAX_DECOYS_PER_SLOT = 3
MAX_INSTANCES = 999


def _integer(
    params: Mapping[str, Any], name: str, default: int, low: int, high: int | None, why: str = ""
) -> int:
    value = params.get(name, default)
    allowed = (f"from {low} to {high}" if high is not None else f"of at least {low}") + why
    in_range = not isinstance(value, bool) and isinstance(value, int) and value >= low
    if not in_range or (high is not None and value > high):
        raise UserInputError(f"agentce parameter {name} must be an integer {allowed}, got {value!r}")
    return value


@dataclass(frozen=True)
class Settings:
    """What a suite is generated from: horizon H, decoy budget B, instance count and seed."""

    hidden: int = 4
    decoys: int = 2
    instances: int = 10
    seed: int = 0

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> Settings:
        """Read ``H``, ``B``, ``instances`` and ``seed``, ignoring other keys; ValueError if out of range."""
        hidden = _integer(params, "H", cls.hidden, 1, MAX_HIDDEN)
        decoys = _integer(
            params,
            "B",
            cls.decoys,
            0,
            hidden * MAX_DECOYS_PER_SLOT,
            f" (at most {MAX_DECOYS_PER_SLOT} decoys per hidden slot, and H={hidden})",
        )
        instances = _integer(params, "instances", cls.instances, 1, MAX_INSTANCES)
        seed = _integer(params, "seed", cls.seed, 0, None)
        return cls(hidden, decoys, instances, seed)

    def as_params(self) -> dict[str, int]:
        """The parameters under their config names, for the suite's cache key."""
        return {"H": self.hidden, "B": self.decoys, "instances": self.instances, "seed": self.seed}
