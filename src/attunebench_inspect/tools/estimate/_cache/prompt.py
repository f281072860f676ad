"""A request as a provider's prompt cache sees it: text blocks in the provider's order, each
possibly a cache breakpoint, each message's first block opened by a role marker. Two ways in,
which must agree (tests/tools/estimate/test_prompt_cache.py): the wire request a provider
receives (`from_openai`, `from_anthropic`: the loopback endpoints) and the chat messages the
solver hands Inspect (`from_messages`: the estimate)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from inspect_ai.model import ChatMessage, ContentText, ResponseSchema

Dialect = Literal["openai", "anthropic"]


@dataclass(frozen=True)
class Block:
    text: str
    mark: bool = False
    """A cache breakpoint after this block."""
    message: int = field(default=-1, compare=False)
    """Which of the request's messages it comes from (-1: the schema or a tool)."""


Prompt = tuple[Block, ...]


def _role(role: str) -> str:
    return ROLE_MARKER.format(role=role)


ROLE_MARKER = "<|{role}|>\n"


def _message_blocks(role: str, texts: Sequence[tuple[str, bool]], message: int) -> list[Block]:
    if not texts:
        return [Block(_role(role), message=message)]
    first, mark = texts[0]
    return [
        Block(_role(role) + first, mark, message),
        *(Block(t, m, message) for t, m in texts[1:]),
    ]


def schema_text(schema: Mapping[str, Any]) -> str:
    """A response schema as it enters a prompt (OpenAI places it first)."""
    return json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# --- from the wire --------------------------------------------------------------------------


def _parts(content: object, marked: str | None) -> list[tuple[str, bool]]:
    """(text, breakpoint) of a message's content: a string, or a list of text parts (a part is
    a breakpoint where it carries `marked`)."""
    if isinstance(content, str):
        return [(content, False)]
    parts: list[tuple[str, bool]] = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, Mapping) and part.get("type") == "text":
            parts.append((str(part.get("text", "")), bool(marked and part.get(marked))))
    return parts


def from_openai(body: Mapping[str, Any]) -> Prompt:
    """A chat-completions request: the response schema first, then the messages (OpenAI's
    explicit breakpoints, from gpt-5.6, are `prompt_cache_breakpoint` on a part)."""
    blocks: list[Block] = []
    response_format = body.get("response_format")
    if isinstance(response_format, Mapping) and response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema") or {}
        blocks.append(Block(_role("schema") + schema_text(schema)))
    for index, message in enumerate(body.get("messages") or []):
        blocks += _message_blocks(
            str(message.get("role")),
            _parts(message.get("content"), "prompt_cache_breakpoint"),
            index,
        )
    return tuple(blocks)


def from_anthropic(body: Mapping[str, Any]) -> Prompt:
    """A Messages API request: tools, system, messages (Anthropic's order), with breakpoints."""
    blocks: list[Block] = []
    for tool in body.get("tools") or []:
        blocks.append(Block(_role("tool") + schema_text(tool), "cache_control" in tool))
    system = body.get("system")
    if system:
        blocks += _message_blocks("system", _parts(system, "cache_control"), -1)
    output_format = body.get("output_format")
    if isinstance(output_format, Mapping):
        # Structured outputs: the schema changes the prompt ahead of the messages.
        blocks.append(Block(_role("schema") + schema_text(output_format.get("schema") or {})))
    for index, message in enumerate(body.get("messages") or []):
        blocks += _message_blocks(
            str(message.get("role")), _parts(message.get("content"), "cache_control"), index
        )
    if "cache_control" in body and blocks:
        # Automatic caching: a breakpoint on the last block, whatever the request marks.
        blocks[-1] = replace(blocks[-1], mark=True)
    return tuple(blocks)


# --- from the solver's messages -------------------------------------------------------------


def _texts(message: ChatMessage) -> list[tuple[str, bool]]:
    if isinstance(message.content, str):
        return [(message.content, False)]
    return [
        (c.text, bool(c.cache_breakpoint)) for c in message.content if isinstance(c, ContentText)
    ]


def from_messages(
    messages: Iterable[ChatMessage],
    schema: ResponseSchema | None,
    dialect: Dialect,
    *,
    breakpoints: bool,
) -> Prompt:
    """The prompt a provider of `dialect` builds from Inspect's messages, as Inspect's provider
    sends them (docs/cost-and-scale.md, 'How each number is made'); `breakpoints`: whether the
    provider is sent our marks (Anthropic's then marks the system's last block too)."""
    blocks: list[Block] = []
    if schema is not None and dialect == "openai":
        blocks.append(
            Block(_role("schema") + schema_text(schema.json_schema.model_dump(exclude_none=True)))
        )
    merged: list[tuple[str, list[tuple[str, bool]], int]] = []
    for index, message in enumerate(messages):
        texts = _texts(message)
        if message.role == "system":
            texts = [("\n".join(t for t, _ in texts), dialect == "anthropic" and breakpoints)]
        if not breakpoints:
            texts = [(t, False) for t, _ in texts]
        if dialect == "anthropic" and merged and merged[-1][0] == message.role == "user":
            merged[-1][1].extend(texts)
        else:
            merged.append((message.role, list(texts), index))
    for role, texts, index in merged:
        blocks += _message_blocks(role, texts, index)
    if dialect == "anthropic" and schema is not None:
        # After the system block, as Anthropic renders structured outputs ahead of the messages.
        blocks.insert(
            1 if merged and merged[0][0] == "system" else 0,
            Block(_role("schema") + schema_text(schema.json_schema.model_dump(exclude_none=True))),
        )
    return tuple(blocks)
