"""The explorer's account of an episode: every tool call it dispatches, within its budget of turns."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from res_repro.agents.llm_agent import truncate_middle
from res_repro.env.tools import ToolCall, ToolResponse

if TYPE_CHECKING:
    from res_repro.env.environment import Environment

TOOL_OUTPUT_CHARS = 4000  # how much of each tool result the trace keeps


class BudgetExhausted(BaseException):
    """The budget of turns is spent.

    It derives from BaseException so that a plan's own ``except Exception`` (a retry helper, say) cannot
    swallow it: running out of turns ends the episode wherever the plan happens to be.
    """


class Trace:
    """Dispatches tool calls through the environment, one turn each, and keeps an OpenAI-style record."""

    def __init__(self, environment: Environment, budget: int, agent: str, instruction: str) -> None:
        self.environment = environment
        self.budget = budget
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
            raise BudgetExhausted(f"the budget of {self.budget} turns is spent")
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

    def wait(self, seconds: float) -> None:
        """Account for waiting out a Retry-After without sleeping (scripted agents run at full speed)."""
        self.waited_s += seconds

    def note(self, text: str) -> None:
        """Record a conclusion that needed no tool call."""
        self.messages.append({"role": "assistant", "content": text})

    def accounting(self) -> dict[str, float]:
        """Effort beyond the turns: simulated waiting and the repairs made."""
        return {"waited_s": round(self.waited_s, 3), "recoveries": self.recoveries}
