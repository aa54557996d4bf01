"""Local HTTP servers that speak the OpenAI chat-completions and Anthropic messages wire protocols.

Tests point the real ``openai`` and ``anthropic`` SDK clients at :class:`FakeModelServer` and give it a
script: one step per request, each either a :class:`Reply` (text and tool calls in a neutral form, which
the server renders in its protocol) or a :class:`Fault` (rate limit, server error, a delay past the
client's timeout, a dropped connection, a context-length error). Requests past the end of the script
get the server's ``after`` step. Every request is recorded, headers and JSON body, for assertions on
the conversation the client sent.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OPENAI = "openai"
ANTHROPIC = "anthropic"
PROTOCOLS = (OPENAI, ANTHROPIC)


@dataclass(frozen=True)
class Call:
    """A tool call the fake model makes; a ``str`` of ``arguments`` is sent verbatim (it may be malformed).

    The Anthropic protocol carries tool input as a JSON value rather than text, so there a raw string
    arrives as a JSON string: well-formed, but not the object the tool needs.
    """

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The arguments as the OpenAI protocol carries them: JSON text."""
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


@dataclass(frozen=True)
class Reply:
    """One model response. ``input_tokens`` counts the whole prompt, ``cached_tokens`` included."""

    text: str | None = None
    calls: tuple[Call, ...] = ()
    input_tokens: int = 100
    output_tokens: int = 20
    cached_tokens: int = 0
    truncated: bool = False  # cut at the output limit (finish_reason "length", stop_reason "max_tokens")
    reasoning: str | None = None  # DeepSeek's reasoning_content, or an Anthropic thinking block (signed)
    reasoning_tokens: int = 0


class FaultKind(StrEnum):
    """The failures a fake server can inject for one request."""

    RATE_LIMIT = "rate_limit"  # HTTP 429 with a Retry-After header
    SERVER_ERROR = "server_error"  # HTTP 500
    DELAY = "delay"  # no answer for ``seconds`` (longer than the client's timeout), then a 500
    DROP = "drop"  # the connection is closed without any response
    CONTEXT_LENGTH = "context_length"  # HTTP 400 saying the prompt does not fit the context window
    BAD_REQUEST = "bad_request"  # HTTP 400 with ``message``


@dataclass(frozen=True)
class Fault:
    """A failure injected for one request."""

    kind: FaultKind
    retry_after: float | None = None
    seconds: float = 0.0
    message: str = "injected failure"


@dataclass(frozen=True)
class Raw:
    """A 200 reply whose body is sent verbatim: not JSON, or JSON the protocol does not allow."""

    body: bytes
    content_type: str = "application/json"


Step = Reply | Fault | Raw

RATE_LIMIT = Fault(FaultKind.RATE_LIMIT, retry_after=1.0, message="rate limit reached")
SERVER_ERROR = Fault(FaultKind.SERVER_ERROR, message="the server had an error")
DROP = Fault(FaultKind.DROP)
CONTEXT_LENGTH = Fault(FaultKind.CONTEXT_LENGTH)
EXHAUSTED = Fault(FaultKind.BAD_REQUEST, message="fake model: the script is exhausted")


def delay(seconds: float) -> Fault:
    """A request left unanswered for ``seconds``."""
    return Fault(FaultKind.DELAY, seconds=seconds)


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it; header names are lower-case."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def _openai_reply(reply: Reply, serial: int, model: str) -> dict[str, Any]:
    calls = [
        {
            "id": f"call_{serial}_{index}",
            "type": "function",
            "function": {
                "name": call.name,
                "arguments": call.text,
            },
        }
        for index, call in enumerate(reply.calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
    if calls:
        message["tool_calls"] = calls
    if reply.reasoning is not None:
        message["reasoning_content"] = reply.reasoning
    return {
        "id": f"chatcmpl-fake{serial}",
        "object": "chat.completion",
        "created": 1_700_000_000 + serial,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "length" if reply.truncated else "tool_calls" if calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": reply.input_tokens,
            "completion_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens,
            "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
            "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        },
    }


def _anthropic_reply(reply: Reply, serial: int, model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.reasoning is not None:
        content.append(
            {"type": "thinking", "thinking": reply.reasoning, "signature": signature(reply.reasoning)}
        )
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    content.extend(
        {"type": "tool_use", "id": f"toolu_{serial}_{index}", "name": call.name, "input": call.arguments}
        for index, call in enumerate(reply.calls)
    )
    return {
        "id": f"msg_fake{serial}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "max_tokens" if reply.truncated else "tool_use" if reply.calls else "end_turn",
        "stop_sequence": None,
        "usage": {  # Anthropic counts cache reads apart from the uncached input
            "input_tokens": reply.input_tokens - reply.cached_tokens,
            "output_tokens": reply.output_tokens,
            "cache_read_input_tokens": reply.cached_tokens,
            "cache_creation_input_tokens": 0,
        },
    }


def signature(thinking: str) -> str:
    """The signature the fake Anthropic server gives a thinking block (checked when it comes back)."""
    return "sig-" + hashlib.sha256(thinking.encode()).hexdigest()[:24]


Rule = Callable[[dict[str, Any]], str | None]
"""A provider's documented check of a request body: the 400 error message, or None when it passes."""


def _after_last_user(messages: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    last = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return [(i, m) for i, m in enumerate(messages) if i > last]


def deepseek_thinking(body: dict[str, Any]) -> str | None:
    """DeepSeek's thinking mode with tool calls: within the current turn (after the last user message)
    every assistant message must carry its ``reasoning_content`` back."""
    for index, message in _after_last_user(body.get("messages", [])):
        if message.get("role") == "assistant" and not message.get("reasoning_content"):
            return f"Missing `reasoning_content` field in the assistant message at message index {index}"
    return None


def valid_tool_arguments(body: dict[str, Any]) -> str | None:
    """vLLM's request validation: every assistant tool call's arguments must be a JSON object."""
    for index, message in enumerate(body.get("messages", [])):
        for call in message.get("tool_calls") or ():
            try:
                value = json.loads(call["function"]["arguments"])
            except (TypeError, ValueError):
                value = None
            if not isinstance(value, dict):
                written = call["function"]["arguments"]
                return f"messages[{index}]: tool call arguments are not valid JSON: {written!r}"
    return None


def anthropic_thinking(body: dict[str, Any]) -> str | None:
    """Anthropic's extended thinking with tool use: no temperature, max_tokens above the budget, and every
    assistant message that uses a tool starts with the thinking block it was given, signature intact."""
    thinking = body.get("thinking") or {}
    if thinking.get("type") != "enabled":
        return None
    if "temperature" in body:
        return "`temperature` may only be set to 1 when thinking is enabled"
    if body.get("max_tokens", 0) <= thinking.get("budget_tokens", 0):
        return "`max_tokens` must be greater than `thinking.budget_tokens`"
    for index, message in enumerate(body.get("messages", [])):
        blocks = message.get("content") if message.get("role") == "assistant" else None
        if not isinstance(blocks, list) or not any(b.get("type") == "tool_use" for b in blocks):
            continue
        first = blocks[0]
        if first.get("type") != "thinking" or first.get("signature") != signature(first.get("thinking", "")):
            return (
                f"messages.{index}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                f"`{first.get('type')}`. When `thinking` is enabled, an assistant message with tool use must "
                "start with its thinking block, unmodified."
            )
    return None


def _error_body(protocol: str, status: int, message: str, code: str | None = None) -> dict[str, Any]:
    if protocol == OPENAI:
        kind = {400: "invalid_request_error", 429: "requests"}.get(status, "server_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": code}}
    kind = {400: "invalid_request_error", 429: "rate_limit_error"}.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


class _QuietServer(ThreadingHTTPServer):
    """Threads that do not block shutdown, and no tracebacks for connections the client closed."""

    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Ignore: a client that gives up on a delayed request resets its connection."""


class FakeModelServer:
    """A threaded HTTP server on 127.0.0.1 that answers one protocol's requests from a script.

    Use as a context manager; :attr:`base_url` is what the protocol's SDK takes.
    :meth:`load` replaces the script and clears the record, keeping the address.
    """

    def __init__(
        self,
        protocol: str,
        script: Sequence[Step] = (),
        *,
        after: Step = EXHAUSTED,
        rules: Sequence[Rule] = (),
    ) -> None:
        if protocol not in PROTOCOLS:
            raise ValueError(f"unknown protocol {protocol!r}; expected one of {PROTOCOLS}")
        self.protocol = protocol
        self.rules = tuple(rules)  # requests that break one get its 400 (and take no step of the script)
        self.requests: list[Recorded] = []
        self.rejected: list[str] = []  # the rules' messages, one per request refused
        self.handling_seconds = 0.0  # time spent answering, from the body read to the reply sent
        self._lock = threading.Lock()
        self._served = 0
        self._stepped = 0  # requests answered from the script (a request a rule refuses takes no step)
        self._script = list(script)
        self._after = after
        self._httpd = _QuietServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        """The SDK's base URL: the OpenAI client appends ``/chat/completions``, Anthropic ``/v1/messages``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1" if self.protocol == OPENAI else f"http://{host}:{port}"

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies of every request so far, in arrival order."""
        with self._lock:
            return [request.body for request in self.requests]

    def load(self, script: Sequence[Step], *, after: Step = EXHAUSTED) -> None:
        """Answer the next requests from ``script``, then with ``after``; forget the requests so far."""
        with self._lock:
            self._script = list(script)
            self._after = after
            self._stepped = 0
            self.requests = []
            self.rejected = []
            self.handling_seconds = 0.0

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def _next(self, recorded: Recorded) -> tuple[int, Step]:
        """Record a request; return its serial number over the server's life (ids stay unique) and step."""
        with self._lock:
            number = self._stepped
            self._stepped += 1
            self.requests.append(recorded)
            self._served += 1
            step = self._script[number] if number < len(self._script) else self._after
            return self._served, step

    def _answer(
        self, step: Reply | Fault, serial: int, model: str
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        """Status, JSON body and extra headers for a step (a delay's sleep happens before this)."""
        if isinstance(step, Reply):
            render = _openai_reply if self.protocol == OPENAI else _anthropic_reply
            return 200, render(step, serial, model), {}
        if step.kind is FaultKind.RATE_LIMIT:
            headers = {"Retry-After": f"{step.retry_after:g}"} if step.retry_after is not None else {}
            return 429, _error_body(self.protocol, 429, step.message, "rate_limit_exceeded"), headers
        if step.kind is FaultKind.CONTEXT_LENGTH:
            if self.protocol == OPENAI:
                message = (
                    "This model's maximum context length is 8192 tokens. However, your messages "
                    "resulted in 9000 tokens. Please reduce the length of the messages."
                )
                return 400, _error_body(OPENAI, 400, message, "context_length_exceeded"), {}
            message = "prompt is too long: 210000 tokens > 200000 maximum"
            return 400, _error_body(ANTHROPIC, 400, message), {}
        if step.kind is FaultKind.BAD_REQUEST:
            return 400, _error_body(self.protocol, 400, step.message), {}
        return 500, _error_body(self.protocol, 500, step.message), {}

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self
        path = "/v1/chat/completions" if self.protocol == OPENAI else "/v1/messages"

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs' connection pools expect
            disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart

            def do_POST(self) -> None:
                started = time.perf_counter()
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path.split("?")[0] != path:
                    self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
                    return
                body = json.loads(raw or b"{}")
                headers = {name.lower(): value for name, value in self.headers.items()}
                broken = next((m for rule in server.rules if (m := rule(body))), None)
                if broken is not None:
                    with server._lock:
                        server.requests.append(Recorded(self.path, headers, body))
                        server.rejected.append(broken)
                    self._send(400, _error_body(server.protocol, 400, broken), {})
                    return
                serial, step = server._next(Recorded(self.path, headers, body))
                if isinstance(step, Raw):
                    self._send_bytes(200, step.body, {"Content-Type": step.content_type})
                    return
                if isinstance(step, Fault) and step.kind is FaultKind.DROP:
                    self.close_connection = True
                    return
                if isinstance(step, Fault) and step.kind is FaultKind.DELAY:
                    time.sleep(step.seconds)
                    self.close_connection = True
                    started = time.perf_counter()
                status, payload, extra = server._answer(step, serial, str(body.get("model", "fake")))
                self._send(status, payload, extra)
                with server._lock:
                    server.handling_seconds += time.perf_counter() - started

            def _send(self, status: int, payload: dict[str, Any], extra: dict[str, str]) -> None:
                self._send_bytes(
                    status, json.dumps(payload).encode(), {"Content-Type": "application/json", **extra}
                )

            def _send_bytes(self, status: int, data: bytes, extra: dict[str, str]) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in extra.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up on a delayed request
                    self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                """Stay quiet: tests read the record, not a log."""

        return Handler
