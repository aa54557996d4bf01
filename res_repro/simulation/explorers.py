"""The explorer tiers as models: each request is answered with the next tool call the explorer would make.

The answer is computed statelessly. The explorer runs from the start against a :class:`ReplayEnvironment`
that answers its calls with the tool results already in the conversation, in order; the first call
beyond them is the answer. When the explorer finishes instead, it submits its answer (or says why it
stopped). The seed task (whose original plan the explorer follows) is found by the instruction, which
RES keeps fixed; the request's ``seed`` becomes the episode's seed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from res_repro.agents.base import Attempt
from res_repro.agents.explorer import EXPLORERS, ExplorerAgent
from res_repro.agents.llm_agent import SUBMIT
from res_repro.env.outcome import StopReason
from res_repro.env.task import Task
from res_repro.env.tools import ToolCall, ToolResponse, ToolSpec
from res_repro.simulation.wire import Answer, RequestError

PREFIX = "sim-"
TIERS: dict[str, type[ExplorerAgent]] = {f"{PREFIX}{cls.name}": cls for cls in EXPLORERS}
ERROR_PREFIX = re.compile(r"error (\d{3}): ", re.DOTALL)
HEADER = re.compile(r"^[A-Za-z0-9-]+: ")


class NextCall(BaseException):
    """The explorer's first call beyond the conversation so far.

    A BaseException, like the explorer's own budget signal, so that no ``except Exception`` in a plan
    swallows it.
    """

    def __init__(self, call: ToolCall) -> None:
        super().__init__(call.tool)
        self.call = call


def parse_tool_text(text: str) -> ToolResponse:
    """A tool result rebuilt from the text the agent sent back (the inverse of ``ToolResponse.text``):
    the status from an ``error NNN:`` prefix, a JSON body, and ``name: value`` header lines after it.
    A body that is not JSON (or was cut short by the agent's output limit) stays text."""
    status, rest = 200, text
    match = ERROR_PREFIX.match(text)
    if match:
        status, rest = int(match.group(1)), text[match.end() :]
    try:
        body, end = json.JSONDecoder().raw_decode(rest)
    except json.JSONDecodeError:
        return ToolResponse(status, rest)
    lines = [line for line in rest[end:].split("\n") if line]
    if not all(HEADER.match(line) for line in lines):
        return ToolResponse(status, rest)
    headers = dict(line.split(": ", 1) for line in lines)
    return ToolResponse(status, body, headers)


def tool_history(messages: Sequence[Mapping[str, Any]]) -> list[ToolResponse]:
    """The results of the conversation's tool calls (``submit_answer`` aside), in the order they were made."""
    results = {
        m.get("tool_call_id"): str(m.get("content") or "") for m in messages if m.get("role") == "tool"
    }
    history = []
    for message in messages:
        for call in message.get("tool_calls") or ():
            if call["function"]["name"] != SUBMIT.name and call["id"] in results:
                history.append(parse_tool_text(results[call["id"]]))
    return history


class ReplayEnvironment:
    """The tools of the request, answering calls with the recorded results, then raising :class:`NextCall`."""

    def __init__(self, tools: Sequence[ToolSpec], history: Sequence[ToolResponse]) -> None:
        self.tools = tuple(tools)
        self._history = list(history)
        self._made = 0

    def call(self, call: ToolCall) -> ToolResponse:
        """The recorded result of this call, or the signal that it is the next one to make."""
        if self._made >= len(self._history):
            raise NextCall(call)
        self._made += 1
        return self._history[self._made - 1]


def request_tools(body: Mapping[str, Any]) -> list[ToolSpec]:
    """The environment's tools as the request lists them (``submit_answer`` left out)."""
    specs = []
    for tool in body.get("tools") or ():
        function = tool.get("function", {})
        if function.get("name") != SUBMIT.name:
            specs.append(
                ToolSpec(function["name"], function.get("description", ""), function.get("parameters", {}))
            )
    return specs


def instruction(messages: Sequence[Mapping[str, Any]]) -> str:
    """The task's instruction: the conversation's first user message."""
    first = next((m for m in messages if m.get("role") == "user"), None)
    if first is None or not isinstance(first.get("content"), str):
        raise RequestError("the conversation has no user message holding the task's instruction")
    return first["content"]


class ExplorerModels:
    """Every explorer tier as a model, over the seed tasks given (looked up by instruction)."""

    def __init__(self, tasks: Sequence[Task]) -> None:
        self.tasks: dict[str, Task] = {}
        for task in tasks:
            self.tasks.setdefault(task.instruction, task)

    def answer(self, body: Mapping[str, Any]) -> Answer:
        """The next step of the tier named by the request's model in the conversation so far."""
        tier = TIERS.get(str(body.get("model")))
        if tier is None:
            raise RequestError(f"unknown model {body.get('model')!r}; expected one of {sorted(TIERS)}")
        messages = body.get("messages") or []
        task = self.tasks.get(instruction(messages))
        if task is None:
            raise RequestError("no seed task has this instruction")
        environment = ReplayEnvironment(request_tools(body), tool_history(messages))
        try:
            outcome = tier().run(task, environment, Attempt("", int(body.get("seed") or 0)))  # type: ignore[arg-type]
        except NextCall as step:
            return Answer(tool=step.call.tool, arguments=dict(step.call.arguments))
        if outcome.stop_reason is StopReason.ANSWERED and outcome.answer is not None:
            return Answer(tool=SUBMIT.name, arguments={"answer": outcome.answer})
        return Answer(text=f"I stop without an answer: {outcome.error or outcome.stop_reason.value}.")
