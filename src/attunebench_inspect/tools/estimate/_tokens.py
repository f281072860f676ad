"""A run's requests through a provider's prompt cache, in the order the solver sends them, each
counted as the provider's cache sees it (docs/cost-and-scale.md, 'How each number is made')."""

from __future__ import annotations

from dataclasses import dataclass

from ...solve._schedule import CallKey, Schedule, after
from ._cache.prompt import Dialect, Prompt, from_messages
from ._cache.rules import CacheRules, CacheUse, Lookup, PromptCache, Tokens
from ._capture import Request

FREE_TEXT_TOKENS = 60
"""Allowance per free-text field a real model writes (reasoning): two or three sentences."""


def prompt_of(request: Request, dialect: Dialect, *, schema: bool, breakpoints: bool) -> Prompt:
    """`request` as a provider of `dialect` receives it: with the schema and our marks, or not."""
    return from_messages(
        request.chat,
        request.response_schema if schema else None,
        dialect,
        breakpoints=breakpoints,
    )


def start_ticks(requests: list[Request], schedule: Schedule) -> list[int]:
    """When each request of a conversation starts, every call taking one tick and starting once
    the calls it follows (`solve._schedule.after`) are done."""
    turns = max((r.turn or 0 for r in requests), default=0)
    present = {r.key for r in requests}
    ticks: dict[CallKey, int] = {}

    def tick(key: CallKey) -> int:
        if key not in ticks:
            ticks[key] = max(
                (tick(d) + 1 for d in after(*key, turns, schedule) if d in present), default=0
            )
        return ticks[key]

    return [tick(r.key) for r in requests]


@dataclass(frozen=True)
class Through:
    """A provider's cache and how requests reach it."""

    rules: CacheRules
    schedule: Schedule
    schema: bool
    """Whether the response schema is part of the prompt."""


def through_cache(
    conversations: list[list[Request]], through: Through, tokens: Tokens
) -> list[list[Lookup]]:
    """Every request's use of the provider's cache, conversations side by side, tick by tick."""
    cache = PromptCache(through.rules, tokens)
    timeline: dict[int, list[tuple[int, int, Prompt]]] = {}
    for c, requests in enumerate(conversations):
        for i, (request, start) in enumerate(
            zip(requests, start_ticks(requests, through.schedule), strict=True)
        ):
            prompt = prompt_of(
                request,
                through.rules.dialect,
                schema=through.schema,
                breakpoints=through.rules.breakpoints,
            )
            timeline.setdefault(start, []).append((c, i, prompt))
    results: list[list[Lookup | None]] = [[None] * len(r) for r in conversations]
    running: list[Lookup] = []
    for tick in sorted(timeline):
        for lookup in running:
            lookup.commit()
        running = []
        for c, i, prompt in timeline[tick]:
            lookup = cache.lookup(prompt)
            results[c][i] = lookup
            running.append(lookup)
    return [[lookup for lookup in row if lookup is not None] for row in results]


def output_tokens(request: Request, tokens: Tokens) -> int:
    return tokens(request.answer) + FREE_TEXT_TOKENS * request.free_text


def uses(lookups: list[list[Lookup]]) -> list[CacheUse]:
    return [lookup.use for row in lookups for lookup in row]
