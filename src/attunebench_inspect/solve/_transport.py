"""A provider's reply that ends a sample, said in one line.

A reply cut off mid-body, an empty 200 or an HTML page where JSON belongs fails inside the
provider's client (a JSON decoding error, a protocol error), after Inspect's own retries where
the client retries. The sample ends in error and is not scored; the rest of the run goes on
(the tasks set `continue_on_fail`), and `inspect eval-retry` runs the sample again. What the
suite owns is the line the terminal and the log show: which call, what came back, what to do.
"""

from __future__ import annotations

import json

import anthropic
import httpx
import openai
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput

from ._call_record import CallType

TRANSPORT_FAULTS: tuple[type[BaseException], ...] = (
    json.JSONDecodeError,
    # A reply that is not UTF-8 (a proxy that re-encodes): the client's JSON decoding fails
    # before it reaches a JSON error.
    UnicodeDecodeError,
    httpx.TransportError,
    httpx.DecodingError,
    openai.APIConnectionError,
    openai.APIResponseValidationError,
    anthropic.APIConnectionError,
    anthropic.APIResponseValidationError,
)
"""How an unreadable reply or a broken connection surfaces from the providers' clients."""


class ProviderReplyError(RuntimeError):
    """A call whose reply could not be read; ends its sample (and names the retry)."""


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


def _is_fault(error: BaseException) -> bool:
    if isinstance(error, TRANSPORT_FAULTS):
        return True
    # A 200 whose body is not a chat completion (an HTML page: the OpenAI client hands back
    # the text): Inspect's OpenAI providers raise an OpenAIError coded server_error.
    return (
        isinstance(error, openai.OpenAIError)
        and not isinstance(error, openai.APIStatusError)
        and getattr(error, "code", None) == "server_error"
    )


def transport_fault(error: BaseException) -> BaseException | None:
    """The transport fault behind `error`, if it is one."""
    return next((e for e in _causes(error) if _is_fault(e)), None)


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
        raise reply_error(fault, call, where) from ex


def reply_error(fault: BaseException, call: CallType, where: str) -> ProviderReplyError:
    """`where`: the call's place in the conversation (`turn 3`, an instance), or ""."""
    where = f"{where} {call} call".lstrip()
    found = (str(fault).splitlines() or [""])[0] or "no message"
    return ProviderReplyError(
        f"{where}: the provider's reply could not be read ({type(fault).__name__}: {found}), "
        "so this conversation is not scored in this run; `inspect eval-retry LOG` runs it again"
    )
