"""Loopback model endpoints speaking the OpenAI chat-completions protocol, started and stopped by a run.

The simulator (:func:`~res_repro.simulation.process.simulator`) serves scripted programs as models when
a configured model is ``simulated``: the explorer tiers answer as target and evaluation models
(``sim-explorer-*``) and the programmatic proposer as the proposer model (``sim-proposer``). The
checkpoint server (:func:`~res_repro.simulation.process.checkpoint_server`) serves fine-tuned
checkpoints (Table 2's) for evaluation. Everything on the harness's side of the wire (LLM agents,
providers, the response cache, retries, concurrency caps, token accounting, turn limits) is the code
path real models use.
"""

from res_repro.simulation.process import LoopbackServer, checkpoint_server, simulator

__all__ = ["LoopbackServer", "checkpoint_server", "simulator"]
