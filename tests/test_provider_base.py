"""The providers' shared rules, without a server: how an HTTP failure is classified (context length,
retryable, final), how a Retry-After header is read, how a malformed reply is reported, and what keys a
request in the response cache."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from res_repro.agents.providers.base import (
    ContextLengthError,
    ConversationKeys,
    ModelRequest,
    ModelResponse,
    ProviderError,
    RetryableProviderError,
    ToolCallRequest,
    Usage,
    classify_status,
    malformed_reply,
    retry_after_seconds,
)
from res_repro.env.tools import ToolSpec


@pytest.mark.parametrize(
    "message",
    [
        "This model's maximum Context Length is 8192 tokens",
        "error code: context_length_exceeded",
        "prompt is too long: 210000 tokens > 200000 maximum",
        "Too many tokens in the request",
    ],
)
@pytest.mark.parametrize("status", [400, 413])
def test_a_context_overflow_is_a_context_length_error(status, message):
    error = classify_status(status, message, retry_after=5.0)
    assert type(error) is ContextLengthError
    assert (str(error), error.status, error.retry_after, error.retryable) == (message, status, None, False)


@pytest.mark.parametrize("status", [400, 413])
def test_another_bad_request_is_a_final_provider_error(status):
    error = classify_status(status, "invalid 'tools[0].name': string does not match pattern", None)
    assert type(error) is ProviderError
    assert (error.status, error.retryable) == (status, False)


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 529, 599])
def test_timeouts_conflicts_rate_limits_and_server_errors_are_retried(status):
    error = classify_status(status, "the context length is fine; try again later", retry_after=2.5)
    assert type(error) is RetryableProviderError
    assert (error.status, error.retry_after, error.retryable) == (status, 2.5, True)


@pytest.mark.parametrize("status", [401, 402, 403, 404, 410, 422, 499])
def test_other_client_errors_are_final(status):
    error = classify_status(status, "context length exceeded", retry_after=2.5)
    assert type(error) is ProviderError
    assert (error.status, error.retry_after, error.retryable) == (status, None, False)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        (None, None),
        ({}, None),
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after": "0"}, 0.0),
        ({"retry-after": "-3"}, 0.0),  # never a negative wait
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, None),  # a date is ignored
    ],
)
def test_retry_after_is_read_in_seconds_and_never_negative(headers, seconds):
    assert retry_after_seconds(headers) == seconds


def test_a_provider_error_keeps_its_status_and_wait():
    error = ProviderError("boom", status=418, retry_after=3.0)
    assert (str(error), error.status, error.retry_after, error.retryable) == ("boom", 418, 3.0, False)
    assert (ProviderError("x").status, ProviderError("x").retry_after) == (None, None)
    assert RetryableProviderError("x").retryable and not ContextLengthError("x").retryable


def test_a_malformed_reply_names_the_error_and_shows_the_reply_cut_at_200_characters():
    error = malformed_reply(KeyError("choices"), {"error": None})
    assert type(error) is ProviderError and not error.retryable
    assert str(error) == "malformed reply (KeyError: 'choices'): {'error': None}"
    exact = "x" * 198  # repr adds two quotes: 200 characters, shown whole
    assert str(malformed_reply(ValueError("v"), exact)).endswith(f"'{exact}'")
    longer = "x" * 199
    assert str(malformed_reply(ValueError("v"), longer)) == f"malformed reply (ValueError: v): '{longer}..."


def test_usage_adds_up_field_by_field():
    assert Usage(1, 2, 3) + Usage(10, 20, 30) == Usage(11, 22, 33)


def test_a_response_round_trips_through_its_dict_and_becomes_an_assistant_message():
    call = ToolCallRequest("c1", "crm_get", '{"id": "C1"}')
    response = ModelResponse("text", (call,), Usage(5, 6, 7), "tool_calls")
    data = response.to_dict()
    assert data == {
        "text": "text",
        "tool_calls": [{"id": "c1", "name": "crm_get", "arguments": '{"id": "C1"}'}],
        "usage": {
            "input_tokens": 5,
            "output_tokens": 6,
            "cached_tokens": 7,
            "cache_write_tokens": 0,
            "reasoning_tokens": 0,
        },
        "finish_reason": "tool_calls",
        "reasoning": None,
        "thinking": [],
    }
    assert ModelResponse.from_dict(json.loads(json.dumps(data))) == response
    old_entry = {key: data[key] for key in ("text", "tool_calls", "finish_reason")}  # cached before reasoning
    old_entry["usage"] = {"input_tokens": 5, "output_tokens": 6, "cached_tokens": 7}
    assert ModelResponse.from_dict(old_entry) == response
    assert response.as_message() == {
        "role": "assistant",
        "content": "text",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "crm_get", "arguments": '{"id": "C1"}'}}
        ],
    }
    assert ModelResponse("done").as_message() == {"role": "assistant", "content": "done"}


TOOL = ToolSpec("crm_get", "Get a customer.")
REQUEST = ModelRequest("m", ({"role": "user", "content": "hi"},), (TOOL,), 0.5, 128, 3)


def test_a_request_key_is_the_sha256_of_every_field_with_the_endpoint_and_sample():
    blob = {
        "provider": "openai",
        "base_url": "http://h/v1",
        "sample": "target-n1-0",
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [TOOL.to_dict()],
        "temperature": 0.5,
        "max_output_tokens": 128,
        "seed": 3,
    }
    expected = hashlib.sha256(json.dumps(blob, sort_keys=True, default=str).encode()).hexdigest()
    assert REQUEST.key("openai", "http://h/v1", "target-n1-0") == expected


def test_every_part_of_a_request_changes_its_key():
    key = REQUEST.key("openai", None, "s")
    others = [
        REQUEST.key("anthropic", None, "s"),
        REQUEST.key("openai", "http://h/v1", "s"),
        REQUEST.key("openai", None, "s2"),  # another sample (episode, attempt or role)
        ModelRequest("m2", REQUEST.messages, REQUEST.tools, 0.5, 128, 3).key("openai", None, "s"),
        ModelRequest("m", (), REQUEST.tools, 0.5, 128, 3).key("openai", None, "s"),
        ModelRequest("m", REQUEST.messages, (), 0.5, 128, 3).key("openai", None, "s"),
        ModelRequest("m", REQUEST.messages, REQUEST.tools, 0.7, 128, 3).key("openai", None, "s"),
        ModelRequest("m", REQUEST.messages, REQUEST.tools, 0.5, 64, 3).key("openai", None, "s"),
        ModelRequest("m", REQUEST.messages, REQUEST.tools, 0.5, 128, 4).key("openai", None, "s"),
    ]
    assert len({key, *others}) == 1 + len(others)


def test_conversation_keys_follow_a_growing_conversation_and_restart_on_any_other():
    keys = ConversationKeys("openai", "http://h/v1", "s")
    messages = [{"role": "user", "content": "hi"}]
    for turn in range(3):
        request = ModelRequest("m", tuple(messages), (TOOL,), 0.5, 128, 3)
        assert keys.key(request) == request.key("openai", "http://h/v1", "s")
        messages.append({"role": "assistant", "content": f"turn {turn}"})
    for request in (
        ModelRequest("m", tuple(messages), (TOOL,), 0.5, 128, 4),  # another seed
        ModelRequest("m", tuple(messages), (TOOL,), 0.5, 256, 4),
        ModelRequest("m", tuple(messages), (), 0.5, 256, 4),
        ModelRequest("m", tuple(messages), (), 0.1, 256, 4),
        ModelRequest("m2", tuple(messages), (), 0.1, 256, 4),
        ModelRequest("m2", ({"role": "user", "content": "bye"}, *messages[1:]), (), 0.1, 256, 4),
        ModelRequest("m2", tuple(messages[:2]), (), 0.1, 256, 4),  # shorter than the hashed one
        ModelRequest("m2", (), (), 0.1, 256, 4),
    ):
        assert keys.key(request) == request.key("openai", "http://h/v1", "s")


def _hand_key(request: ModelRequest, provider: str, base_url: object, sample: str) -> str:
    blob = {
        "provider": provider,
        "base_url": base_url,
        "sample": sample,
        "model": request.model,
        "messages": list(request.messages),
        "tools": [tool.to_dict() for tool in request.tools],
        "temperature": request.temperature,
        "max_output_tokens": request.max_output_tokens,
        "seed": request.seed,
    }
    return hashlib.sha256(json.dumps(blob, sort_keys=True, default=str).encode()).hexdigest()


def test_without_a_sample_the_key_is_that_of_the_empty_sample():
    assert REQUEST.key("openai", None) == _hand_key(REQUEST, "openai", None, "")
    assert ConversationKeys("openai", None).key(REQUEST) == _hand_key(REQUEST, "openai", None, "")


def test_values_that_are_not_json_are_hashed_by_their_text():
    endpoint = Path("/v1")  # an endpoint given as an object
    request = ModelRequest("m", ({"role": "user", "content": Path("/tmp/notes.txt")},), (TOOL,))
    assert request.key("openai", endpoint, "s") == _hand_key(request, "openai", endpoint, "s")  # type: ignore[arg-type]
    keys = ConversationKeys("openai", endpoint, "s")  # type: ignore[arg-type]
    assert keys.key(request) == _hand_key(request, "openai", endpoint, "s")


def test_a_tool_schema_that_mentions_messages_does_not_move_the_messages():
    tool = ToolSpec("t", "a tool", {"type": "object", "default": {"messages": ["x"]}})
    request = ModelRequest("m", ({"role": "user", "content": "hi"},), (tool,))
    assert request.key("openai", None, "s") == _hand_key(request, "openai", None, "s")


def test_a_fresh_conversation_of_the_same_length_restarts_the_chain():
    keys = ConversationKeys("openai", None, "s")
    first = ModelRequest("m", ({"role": "user", "content": "a"}, {"role": "user", "content": "b"}), ())
    keys.key(first)
    fresh = ModelRequest("m", tuple({"role": "user", "content": c} for c in "xyz"), ())
    assert keys.key(fresh) == _hand_key(fresh, "openai", None, "s")


def test_every_error_keeps_the_providers_message():
    assert str(classify_status(503, "overloaded", None)) == "overloaded"
    assert str(classify_status(404, "no such model", None)) == "no such model"
