"""A simulated model endpoint: scripted programs behind the OpenAI chat-completions protocol.

The harness starts :func:`~res_repro.simulation.process.simulator` on loopback when a configured model is
``simulated``; the explorer tiers answer as target and evaluation models (``sim-explorer-*``) and the
programmatic proposer as the proposer model (``sim-proposer``). Everything on the harness's side of the
wire (LLM agents, providers, the response cache, retries, concurrency caps, token accounting, turn
limits) is the code path real models use.
"""

from res_repro.simulation.process import Simulator, simulator

__all__ = ["Simulator", "simulator"]
