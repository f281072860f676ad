"""One call of the protocol: the model asked, its answer parsed into the call's schema, one repair
round where it cannot be, and the outcome as a record (`CallRecord`). A reply that cannot be read
is a parse failure with its reason, never an exception (ARCHITECTURE.md, "The rules that make it
a benchmark")."""

from __future__ import annotations

from inspect_ai.model import ChatMessage, ChatMessageUser, Model, ModelOutput

from . import _prompts as prompts
from ._call_record import CallRecord, CallType, Status
from ._parse import Parsed, parse_answer, parse_draft
from ._provider_rules import SEND_SCHEMA, RequestPolicy
from ._schemas import CallSchema
from ._transport import generate_or_say


async def ask(
    model: Model,
    messages: list[ChatMessage],
    schema: CallSchema | None,
    *,
    call: CallType,
    turn: int | None,
    policy: RequestPolicy = SEND_SCHEMA,
    context: dict[str, object] | None = None,
    role: str | None = None,
) -> CallRecord:
    """One call with at most one repair round; its outcome as a record, a bad reply never raised."""
    config = policy.config(schema.response_schema if schema else None)

    def parse(output: ModelOutput) -> Parsed:
        if not output.choices:
            return Parsed(None, "the reply had no choices")
        text = output.completion
        return parse_answer(text, schema.model) if schema else parse_draft(text)

    where = f"turn {turn}" if turn is not None else ""

    async def generate(chat: list[ChatMessage]) -> ModelOutput:
        return await generate_or_say(model, chat, config, call, where)

    output = await generate(messages)
    parsed = parse(output)
    repair_raw: str | None = None
    status: Status = "ok"
    if not parsed.ok:
        # With no choices there is no answer to correct, and an empty assistant turn is refused
        # by some providers: the repair round asks the same question again.
        repair = (
            [
                *messages,
                output.message,
                ChatMessageUser(content=prompts.REPAIR.format(error=parsed.error)),
            ]
            if output.choices
            else messages
        )
        retry = await generate(repair)
        repair_raw = retry.completion
        reparsed = parse(retry)
        status = "repaired" if reparsed.ok else "failed"
        parsed = reparsed if reparsed.ok else parsed
    return CallRecord(
        call=call,
        turn=turn,
        status=status,
        raw=output.completion if status != "ok" else None,
        repair_raw=repair_raw,
        error=parsed.error if status == "failed" else None,
        prediction=parsed.value if status != "failed" else None,
        context=dict(context or {}),
        role=role,
    )
