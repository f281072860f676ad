"""A provider's reply that ends a sample, said in one line (README.md, 'Parameters'). A reply that
cannot be read fails inside the provider's client (a JSON decoding error, a protocol error, a
completion without its fields), after Inspect's own retries; an HTTP error fails when those retries
give up, and no reply when each attempt has run out of its `attempt_timeout` (or
`stream_idle_timeout`). What the suite owns is the line the terminal and the log show: which call,
to which model, what came back, what to do."""

from __future__ import annotations

import json
import sys
from pathlib import PurePath

import httpx
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelCall, ModelOutput
from inspect_ai.model._model import (  # inspect-evals-lint: ignore[private_api_imports] -- pinned by a test  # noqa: E501
    AttemptTimeoutError,
    StreamIdleTimeoutError,
)

from ._call_record import CallType
from ._provider_rules import resolved_config

_SDKS = ("openai", "anthropic")
"""The providers' SDKs whose errors a reply can surface as. They are read from `sys.modules`, not
imported: importing both costs two seconds on every start of the suite (`inspect eval`, the
`attunebench` commands), and an SDK's error can only reach us once a provider has loaded it."""


def _sdk_errors(*names: str) -> tuple[type[BaseException], ...]:
    """The error classes `names` of every provider SDK loaded in this process."""
    loaded = [sys.modules[sdk] for sdk in _SDKS if sdk in sys.modules]
    return tuple(getattr(sdk, name) for sdk in loaded for name in names)


def _transport_faults() -> tuple[type[BaseException], ...]:
    """How an unreadable reply or a broken connection surfaces from the providers' clients."""
    return (
        json.JSONDecodeError,
        # A reply that is not UTF-8 (a proxy that re-encodes): the client's JSON decoding fails
        # before it reaches a JSON error.
        UnicodeDecodeError,
        httpx.TransportError,
        httpx.DecodingError,
        *_sdk_errors("APIConnectionError", "APIResponseValidationError"),
    )


_SILENCE = (AttemptTimeoutError, StreamIdleTimeoutError)
"""A provider that did not answer within an attempt's time: Inspect cancels the attempt and
retries it until `max_retries` or `timeout` stops the retrying (inspect_ai/model/_model.py)."""


class ProviderReplyError(RuntimeError):
    """A call whose reply could not be read; ends its sample (and names the retry).
    `fault`: what happened, without the advice (a re-judge gives its own)."""

    def __init__(self, fault: str) -> None:
        self.fault = fault
        super().__init__(
            f"{fault}, so this conversation is not scored in this run; `inspect eval-retry LOG` "
            "runs it again"
        )


def _causes(error: BaseException) -> list[BaseException]:
    """The error and what it wraps: its cause and context, and the last attempt of a retry
    loop that gave up (tenacity's RetryError, which Inspect's retries raise)."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [error]
    while todo:
        current = todo.pop()
        if current is None or any(current is s for s in seen):
            continue
        seen.append(current)
        attempt = getattr(current, "last_attempt", None)
        inner = attempt.exception() if attempt is not None and attempt.failed else None
        todo += [current.__cause__, current.__context__, inner]
    return seen


_CLIENTS = ("inspect_ai/model", *_SDKS)
"""Where a provider's client reads a reply: Inspect's model layer and the providers' SDKs (a path
part of the frame that raised)."""
_READING = (TypeError, AttributeError, KeyError)
"""How a client fails on a 200 whose body is not a completion (`{"error": ...}`: no choices)."""


def _raised_in_client(error: BaseException) -> bool:
    """Whether the innermost frame of `error` is a provider client's own code."""
    trace = error.__traceback__
    while trace is not None and trace.tb_next is not None:
        trace = trace.tb_next
    if trace is None:
        return False
    path = PurePath(trace.tb_frame.f_code.co_filename).as_posix()
    return any(f"/{client}/" in path for client in _CLIENTS)


def _is_fault(error: BaseException) -> bool:
    # APIStatusError: an HTTP error the provider kept answering until Inspect's retries gave up.
    if isinstance(error, _transport_faults() + _sdk_errors("APIStatusError") + _SILENCE):
        return True
    if isinstance(error, _READING) and _raised_in_client(error):
        return True
    # A 200 whose body is not a chat completion (an HTML page: the OpenAI client hands back
    # the text): Inspect's OpenAI providers raise an OpenAIError coded server_error.
    openai = sys.modules.get("openai")
    return (
        openai is not None
        and isinstance(error, openai.OpenAIError)
        and not isinstance(error, openai.APIStatusError)
        and getattr(error, "code", None) == "server_error"
    )


def transport_fault(error: BaseException) -> BaseException | None:
    """The transport fault behind `error`, if it is one."""
    return next((e for e in _causes(error) if _is_fault(e)), None)


def _attempts(error: BaseException) -> int:
    """How many attempts Inspect's retry loop made before it gave up (1 without one)."""
    tried = (getattr(e, "last_attempt", None) for e in _causes(error))
    return next((int(t.attempt_number) for t in tried if t is not None), 1)


def _error_body(fault: BaseException) -> str | None:
    """The provider's own error, where a 200 reply carried one (`{"error": ...}`) in place of a
    completion: the client fails on the missing fields after Inspect has recorded the reply in
    the call's `ModelCall`, which the frames the failure passed through still hold."""
    trace = fault.__traceback__
    while trace is not None:
        for value in trace.tb_frame.f_locals.values():
            response = value.response if isinstance(value, ModelCall) else None
            said = response.get("error") if isinstance(response, dict) else None
            if isinstance(said, dict):
                kind = said.get("type") or said.get("code")
                message = str(said.get("message") or json.dumps(said))
                return f"{kind}: {message}" if kind else message
            if said:
                return str(said)
        trace = trace.tb_next
    return None


async def generate_or_say(
    model: Model,
    messages: list[ChatMessage],
    config: GenerateConfig,
    call: CallType,
    where: str,
) -> ModelOutput:
    """`model.generate`, with a reply that cannot be read said in one line (`reply_error`)."""
    try:
        return await model.generate(messages, config=config)
    except Exception as ex:
        fault = transport_fault(ex)
        if fault is None:
            raise
        timeouts = resolved_config(model).merge(config)
        raise reply_error(fault, call, where, str(model), _attempts(ex), timeouts) from ex


def _silence(fault: BaseException, attempts: int, config: GenerateConfig) -> tuple[str, str]:
    """What a provider that did not answer in time did, and the bound it ran out of."""
    name = "attempt_timeout" if isinstance(fault, AttemptTimeoutError) else "stream_idle_timeout"
    seconds = getattr(config, name)
    tried = f"{attempts} attempt{'s' if attempts != 1 else ''}"
    # None: set while the run went on (`inspect ctl config`), not in the call's config.
    within = f"within {seconds} s" if seconds is not None else f"within its {name}"
    bound = f", {name} {seconds}" if seconds is not None else ""
    if name == "stream_idle_timeout":
        within += " of its stream's last chunk"
    return f"the provider did not answer {within}", tried + bound


def reply_error(
    fault: BaseException,
    call: CallType,
    where: str,
    model: str = "",
    attempts: int = 1,
    config: GenerateConfig | None = None,
) -> ProviderReplyError:
    """`where`: the call's place in the conversation (`turn 3`, an instance), or ""; `model`:
    the model called (its provider first, `openai/gpt-4o`); `attempts`: how many Inspect made;
    `config`: the call's own, where its timeouts are."""
    where = f"{where} {call} call".lstrip()
    found = f"{type(fault).__name__}: {(str(fault).splitlines() or [''])[0] or 'no message'}"
    called = f"; model {model}" if model else ""
    what = "the provider's reply could not be read"
    body = _error_body(fault) if isinstance(fault, _READING) else None
    if body is not None:
        what, found = "the provider answered an error in place of a reply", body
    elif isinstance(fault, _SILENCE):
        what, found = _silence(fault, attempts, config or GenerateConfig())
    elif isinstance(fault, _sdk_errors("APIStatusError")):
        status = getattr(fault, "status_code", 0)
        retried = status == 429 or status >= 500
        what = f"the provider answered HTTP {status}" + (" to every retry" if retried else "")
    return ProviderReplyError(f"{where}: {what} ({found}{called})")
