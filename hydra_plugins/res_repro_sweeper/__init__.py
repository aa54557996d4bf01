"""res-repro's Hydra sweeper. Hydra finds plugins in the ``hydra_plugins`` namespace package, so this one
lives there rather than in ``res_repro``."""
