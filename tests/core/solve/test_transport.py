"""A provider's reply that ends a sample (`solve/_transport.py`): which errors are faults, the
line that says one (an HTTP error, a provider that did not answer in time, an error body in a
200), and that naming the SDKs' errors costs no import of the SDKs."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import anthropic
import anyio
import httpx
import openai
import pytest
from inspect_ai.model import GenerateConfig, ModelCall, get_model
from inspect_ai.model._model import AttemptTimeoutError, StreamIdleTimeoutError
from tenacity import Future, RetryError

from attunebench_inspect.solve._transport import (
    ProviderReplyError,
    generate_or_say,
    reply_error,
    transport_fault,
)


def _status(
    sdk: type[openai.APIStatusError] | type[anthropic.APIStatusError], code: int
) -> Exception:
    response = httpx.Response(code, request=httpx.Request("POST", "http://127.0.0.1/v1"))
    return sdk(f"Error code: {code}", response=response, body=None)


def test_both_sdks_errors_are_faults_once_loaded() -> None:
    request = httpx.Request("POST", "http://127.0.0.1/v1")
    for fault in (
        openai.APIConnectionError(request=request),
        anthropic.APIConnectionError(request=request),
        _status(openai.APIStatusError, 503),
        _status(anthropic.APIStatusError, 429),
    ):
        wrapped = RuntimeError("the sample failed")
        wrapped.__cause__ = fault
        assert transport_fault(wrapped) is fault
    assert transport_fault(ValueError("a bug of ours")) is None


def test_an_http_error_to_every_retry_is_said_with_its_status() -> None:
    said = str(reply_error(_status(anthropic.APIStatusError, 503), "pairwise", "turn 2", "m/x"))
    assert said == (
        "turn 2 pairwise call: the provider answered HTTP 503 to every retry (APIStatusError: "
        "Error code: 503; model m/x), so this conversation is not scored in this run; "
        "`inspect eval-retry LOG` runs it again"
    )


def _gave_up(error: Exception, attempts: int) -> RetryError:
    """What Inspect's retry loop (tenacity) raises once its retries run out."""
    last = Future(attempts)
    last.set_exception(error)
    return RetryError(last)


def _saying(error: Exception, config: GenerateConfig) -> str:
    """The line `generate_or_say` ends its sample with when the call raises `error`."""
    model = get_model("mockllm/model", config=config, memoize=False)

    async def fail(*args: Any, **kwargs: Any) -> Any:
        raise error

    model.generate = fail  # type: ignore[method-assign]
    with pytest.raises(ProviderReplyError) as said:
        anyio.run(lambda: generate_or_say(model, [], GenerateConfig(), "draft", "turn 1"))
    return said.value.fault


@pytest.mark.parametrize(
    ("silence", "config", "line"),
    [
        (
            AttemptTimeoutError(5),
            GenerateConfig(attempt_timeout=5, max_retries=1),
            "the provider did not answer within 5 s (2 attempts, attempt_timeout 5;",
        ),
        (
            StreamIdleTimeoutError(7),
            GenerateConfig(stream_idle_timeout=7, max_retries=1),
            "the provider did not answer within 7 s of its stream's last chunk (2 attempts, "
            "stream_idle_timeout 7;",
        ),
    ],
)
def test_a_provider_that_does_not_answer_in_time_is_said_with_its_bound(
    silence: Exception, config: GenerateConfig, line: str
) -> None:
    """Inspect's retries of an attempt cut by its timeout end in `RetryError(<Future ...>)`:
    the line says the bound the provider ran out of, and how often it was tried."""
    said = _saying(_gave_up(silence, 2), config)
    assert said.startswith(f"turn 1 draft call: {line} model mockllm/model)"), said


def test_an_error_object_in_a_200_reply_is_said_in_the_providers_words() -> None:
    """The client fails on a completion without its fields (a TypeError); the reply Inspect
    recorded for the call carries the provider's own error."""

    def read(call: ModelCall) -> None:
        choices = call.response["choices"] if call.response else None
        list(choices)  # type: ignore[call-overload]

    for body, found in (
        ({"error": {"message": "model overloaded", "type": "server_error"}}, "server_error: "),
        ({"error": "model overloaded"}, ""),
    ):
        call = ModelCall(request={}, response={**body, "choices": None})
        try:
            read(call)
        except TypeError as ex:
            said = str(reply_error(ex, "emotion", "turn 2", "m/x"))
        assert said.startswith(
            "turn 2 emotion call: the provider answered an error in place of a reply "
            f"({found}model overloaded; model m/x), so"
        ), said


def test_the_package_imports_no_provider_sdk() -> None:
    """Importing both SDKs took two of the package's six seconds to import, on every start of
    `inspect eval` and of the `attunebench` commands."""
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, attunebench_inspect; "
            "print(*sorted({'openai', 'anthropic'} & set(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert loaded == []
