"""A provider's reply that ends a sample (`solve/_transport.py`): which errors are faults, the
line that says one, and that naming the SDKs' errors costs no import of the SDKs."""

from __future__ import annotations

import subprocess
import sys

import anthropic
import httpx
import openai

from attunebench_inspect.solve._transport import reply_error, transport_fault


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
