"""Retryable / overflow / auth classification on pi's error texts, and exception descriptions."""

from __future__ import annotations

import time
from email.utils import formatdate

import pytest

from pi_lsp.agent.llm import (
    auth_hint,
    describe_provider_error,
    is_auth_error,
    is_context_overflow,
    is_retryable,
    is_retryable_message,
    parse_retry_delay_ms,
)
from pi_lsp.session.jsonl import JsonObject


def failed(error: str) -> JsonObject:
    return {"role": "assistant", "stopReason": "error", "errorMessage": error, "usage": {}}


def replied(input_tokens: int, cache_read: int = 0) -> JsonObject:
    return {
        "role": "assistant",
        "stopReason": "stop",
        "usage": {"input": input_tokens, "cacheRead": cache_read},
    }


@pytest.mark.parametrize(
    "error",
    [
        "prompt is too long: 213462 tokens > 200000 maximum",
        "Your input exceeds the context window of this model",
        "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
        "This model's maximum prompt length is 131072 but the request contains 537812 tokens",
        "Please reduce the length of the messages or completion",
        "This endpoint's maximum context length is 128000 tokens. However, you requested about 130000",
        "prompt token count of 130001 exceeds the limit of 128000",
        "the request exceeds the available context size, try increasing it",
        "tokens to keep from the initial prompt is greater than the context length",
        "invalid params, context window exceeds limit",
        "Your request exceeded model token limit: 262144 (requested: 270000)",
        "Prompt contains 140000 tokens ... too large for model with 131072 maximum context length",
        "400 context_length_exceeded",
        "Too many tokens in request",
        "token limit exceeded",
        "Input is too long for requested model.",
        "400 status code (no body)",
        "413 (no body)",
    ],
)
def test_provider_overflow_texts(error: str) -> None:
    assert is_context_overflow(failed(error))
    assert not is_retryable_message(failed(error))


def test_overflow_needs_an_error_and_silent_overflow_needs_a_window() -> None:
    assert not is_context_overflow(failed("429 rate limit reached"))
    assert not is_context_overflow({**failed("prompt is too long"), "stopReason": "aborted"})
    assert is_context_overflow(replied(1000, cache_read=200), context_window=1100)
    assert not is_context_overflow(replied(1000, cache_read=100), context_window=1100)
    assert not is_context_overflow(replied(5000))  # no window given
    assert not is_context_overflow({**replied(5000), "stopReason": "length"}, context_window=10)


@pytest.mark.parametrize(
    "error",
    [
        "Overloaded",
        "429 Rate limit reached for requests",
        "RateLimitError",
        "Too Many Requests",
        "500 Internal server error",
        "502 Bad Gateway",
        "503 Service Unavailable",
        "504 Gateway Timeout",
        "service_unavailable",
        "server error",
        "internal error",
        "Connection error.",
        "connect ECONNREFUSED: connection refused",
        "other side closed",
        "fetch failed",
        "upstream connect error or disconnect/reset before headers",
        "terminated",
        "Server requested retry delay of 120s",
    ],
)
def test_pi_retryable_patterns(error: str) -> None:
    assert is_retryable(error)
    assert is_retryable_message(failed(error))


@pytest.mark.parametrize(
    "error",
    ["400 Invalid value for 'tools'", "404 model not found", "401 Incorrect API key provided"],
)
def test_not_retryable(error: str) -> None:
    assert not is_retryable(error)


def test_retryable_message_requires_an_error_reply() -> None:
    assert not is_retryable_message({"stopReason": "stop", "errorMessage": "429"})
    assert not is_retryable_message({"stopReason": "error"})


def test_auth_errors_and_hints() -> None:
    assert is_auth_error("401 Incorrect API key provided: sk-...")
    assert is_auth_error("403 Forbidden")
    assert is_auth_error(auth_hint("anthropic") + " (invalid x-api-key)")
    assert not is_auth_error("429 Rate limit")
    assert auth_hint("openai") == "Authentication failed for openai: set OPENAI_API_KEY"
    assert auth_hint("google") == "Authentication failed for google: set GEMINI_API_KEY"
    assert auth_hint("my-proxy") == "Authentication failed for my-proxy: set MY_PROXY_API_KEY"


def test_retry_delay_parsing() -> None:
    assert parse_retry_delay_ms({"Retry-After": "7"}) == 7000
    assert parse_retry_delay_ms({"retry-after-ms": "1500", "retry-after": "9"}) == 1500
    future = formatdate(time.time() + 30, usegmt=True)
    delay = parse_retry_delay_ms({"retry-after": future})
    assert delay is not None and 25_000 <= delay <= 30_000
    assert parse_retry_delay_ms(None, "Please retry in 2.5s.") == 2500
    assert parse_retry_delay_ms({}, "Rate limit reached. Please try again in 20ms.") == 20
    assert parse_retry_delay_ms({}, '{"retryDelay": "34s"}') == 34000
    assert parse_retry_delay_ms({}, "no hint here") is None


class _Response:
    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = headers


class RateLimitError(Exception):
    def __init__(self, message: str, headers: dict[str, str]) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = 429
        self.response = _Response(headers)


class AuthenticationError(Exception):
    status_code = 401


class APIConnectionError(Exception):
    pass


def test_describe_strips_litellm_prefixes_and_reads_facts() -> None:
    exc = RateLimitError(
        "litellm.RateLimitError: RateLimitError: OpenAIException - Slow down", {"retry-after": "4"}
    )
    failure = describe_provider_error(exc, "openai")
    assert (failure.message, failure.kind, failure.status, failure.retry_after_ms) == (
        "429 Slow down",
        "rate_limit",
        429,
        4000,
    )
    auth = describe_provider_error(
        AuthenticationError("litellm.AuthenticationError: AnthropicException - invalid x-api-key"),
        "anthropic",
    )
    assert auth.kind == "auth"
    assert (
        auth.message
        == "Authentication failed for anthropic: set ANTHROPIC_API_KEY (401 invalid x-api-key)"
    )
    connection = describe_provider_error(APIConnectionError("Connection error."), "openai")
    assert (connection.kind, connection.status, connection.message) == (
        "connection",
        None,
        "Connection error.",
    )


def test_auth_errors_are_never_retryable_even_with_a_5xx_in_the_text() -> None:
    error = "Authentication failed for openai: set OPENAI_API_KEY (500 Missing credentials)"
    assert is_retryable(error)  # pi's bare pattern would retry it
    assert not is_retryable_message(failed(error))
