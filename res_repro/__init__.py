"""res-repro: Recursive Environment Scaling for agent benchmarks."""

__version__ = "0.1.0"
