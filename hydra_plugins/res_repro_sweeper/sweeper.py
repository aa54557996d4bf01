"""Hydra's basic sweeper, which checks before launching only the jobs that do not start at once.

The basic sweeper composes every job's config in the driver to check it before launching any, and the
launcher composes it again where the job runs. The joblib launcher starts its first ``n_jobs`` jobs at
once, and composing its config is the first thing each of them does, so checking those in the driver
first only delays them (0.25-0.3 s a job on two cores; about 0.5 s of a warm ``make table1``): a bad
override among them stops the sweep as soon, with the same error. The jobs that wait for a free worker,
and every job of any other launcher (a cluster job may wait in a queue before it composes), are still
checked before anything is launched.
"""

# No ``from __future__ import annotations``: Hydra's plugin scan runs this module outside sys.modules,
# where a dataclass cannot resolve string annotations.
import os
from collections.abc import Sequence
from dataclasses import dataclass

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper, BasicSweeperConf
from hydra.core.config_store import ConfigStore
from hydra.plugins.launcher import Launcher


@dataclass
class ComposedOnceSweeperConf(BasicSweeperConf):
    """The basic sweeper's settings (``max_batch_size``, ``params``), for :class:`ComposedOnceSweeper`."""

    _target_: str = "hydra_plugins.res_repro_sweeper.sweeper.ComposedOnceSweeper"


ConfigStore.instance().store(
    group="hydra/sweeper", name="composed_once", node=ComposedOnceSweeperConf, provider="res_repro"
)


def started_at_once(launcher: Launcher) -> int:
    """How many of a batch's jobs ``launcher`` starts at once: the joblib launcher's ``n_jobs`` (a
    negative count as joblib reads it: -1 is every core), none for any other launcher.

    The joblib launcher is known by its ``joblib`` settings, not its class: Hydra's plugin scan runs a
    plugin module imported before it again, so a class imported from another plugin may not be the one
    the launcher was made from."""
    settings = getattr(launcher, "joblib", None)
    if settings is None:
        return 0
    n_jobs = int(settings.get("n_jobs") or 1)
    return n_jobs if n_jobs > 0 else max(1, (os.cpu_count() or 1) + 1 + n_jobs)


class ComposedOnceSweeper(BasicSweeper):
    """:class:`BasicSweeper`, whose jobs that start at once compose their configs only where they run."""

    def validate_batch_is_legal(self, batch: Sequence[Sequence[str]]) -> None:
        """Compose the configs of the jobs after the first :func:`started_at_once` (those wait for a
        worker), raising Hydra's error for the first that cannot be composed."""
        assert self.launcher is not None
        super().validate_batch_is_legal(batch[started_at_once(self.launcher) :])
