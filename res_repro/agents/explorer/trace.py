"""The explorer's account of an episode: every tool call it dispatches, within its budget of turns."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from res_repro.agents.llm_agent import truncate_middle
from res_repro.env.outcome import StopReason
from res_repro.env.tools import ToolCall, ToolResponse

if TYPE_CHECKING:
    from res_repro.env.environment import Environment

TOOL_OUTPUT_CHARS = 4000  # how much of each tool result the trace keeps


class BudgetExhausted(BaseException):
    """The budget of turns or the time limit is spent; ``stop_reason`` says which.

    It derives from BaseException so that a plan's own ``except Exception`` (a retry helper, say) cannot
    swallow it: running out of turns or time ends the episode wherever the plan happens to be.
    """

    def __init__(self, message: str, stop_reason: StopReason) -> None:
        super().__init__(message)
        self.stop_reason = stop_reason


class Trace:
    """Dispatches tool calls through the environment, one turn each, and keeps an OpenAI-style record.

    ``budget`` caps the turns; ``time_limit_s`` caps the episode's time, counted as the wall-clock time
    since the trace began plus the waiting it accounts for (a Retry-After waited out on paper still
    spends the agent's time)."""

    def __init__(
        self,
        environment: Environment,
        budget: int,
        agent: str,
        instruction: str,
        time_limit_s: float = float("inf"),
    ) -> None:
        self.environment = environment
        self.budget = budget
        self.time_limit_s = time_limit_s
        self.started = time.monotonic()
        self.tool_calls = 0
        self.waited_s = 0.0
        self.recoveries = 0
        about = f"Scripted baseline {agent}: follows the seed task's reference plan through the tools."
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": about},
            {"role": "user", "content": instruction},
        ]

    def call(self, tool: str, arguments: Mapping[str, Any], why: str) -> ToolResponse:
        """Dispatch one call as one turn, recording why it was made and what came back."""
        if self.tool_calls >= self.budget:
            raise BudgetExhausted(f"the budget of {self.budget} turns is spent", StopReason.TURN_LIMIT)
        if self.elapsed_s() >= self.time_limit_s:
            limit = f"the time limit of {self.time_limit_s:g} s is spent"
            raise BudgetExhausted(limit, StopReason.TIME_LIMIT)
        self.tool_calls += 1
        call_id = f"call_{self.tool_calls}"
        self.messages.append(
            {
                "role": "assistant",
                "content": why,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": tool, "arguments": json.dumps(dict(arguments), default=str)},
                    }
                ],
            }
        )
        response = self.environment.call(ToolCall(tool, dict(arguments)))
        self.messages.append(
            {
                "role": "tool",
                "tool_call_id": call_id,
                "content": truncate_middle(response.text(), TOOL_OUTPUT_CHARS),
            }
        )
        return response

    def elapsed_s(self) -> float:
        """The episode's time so far: wall-clock time plus the waiting accounted for."""
        return time.monotonic() - self.started + self.waited_s

    def wait(self, seconds: float) -> None:
        """Account for waiting out a Retry-After without sleeping (scripted agents run at full speed)."""
        self.waited_s += seconds

    def note(self, text: str) -> None:
        """Record a conclusion that needed no tool call."""
        self.messages.append({"role": "assistant", "content": text})

    def accounting(self) -> dict[str, float]:
        """Effort beyond the turns: simulated waiting and the repairs made."""
        return {"waited_s": round(self.waited_s, 3), "recoveries": self.recoveries}
