"""The RES engine built by hand for scaling tests: the default config's scaling settings, the
programmatic proposer over the operator library and a lineage store in one folder, with the local
backend. A test names only what it varies."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hydra_config import scaling_settings

from res_repro.agents.base import Agent
from res_repro.res.lineage import LineageStore
from res_repro.res.operators import library
from res_repro.res.proposer import ProgrammaticProposer, Proposer
from res_repro.res.scaling import AdmissionGate, Scaler
from res_repro.sandbox import Backend


def build_scaler(
    store: Path,
    *,
    depth_cap: int,
    operators: Sequence[str] | None = None,
    proposer: Proposer | None = None,
    backend: Backend = "local",
    target: Agent | None = None,
    admission: AdmissionGate | None = None,
    **settings: Any,
) -> Scaler:
    """A scaler that grows lineages ``depth_cap`` levels deep into a lineage store in the folder
    ``store``, on ``backend``, with ``target`` as the scaling target and ``admission`` as the gate.

    Without a ``proposer`` the programmatic proposer picks from the operators named in ``operators``
    (the whole library for None). ``settings`` replace other fields of the default config's scaling
    settings (``max_revisions``, ``composition``, ``stop_on`` and the like)."""
    return Scaler(
        settings=scaling_settings(depth_cap=depth_cap, **settings),
        proposer=proposer or ProgrammaticProposer(library(None if operators is None else list(operators))),
        store=LineageStore(store),
        backend=backend,
        target=target,
        admission=admission,
    )
