"""In what order a conversation's calls are sent: the one dependency rule (`after`) that the
solver waits by and the estimate models a run by. The order changes no prompt, so scores do not
depend on it."""

from __future__ import annotations

from typing import Literal, get_args

from inspect_ai.model import Model

from ._call_record import CallType
from ._provider_rules import PREFIX_WRITER, resolved_config

Schedule = Literal["auto", "prefix_first", "all_at_once"]
SCHEDULES: tuple[Schedule, ...] = get_args(Schedule)
"""`prefix_first`: the call that writes each shared prefix to a provider's cache goes first.
`all_at_once`: every call of a conversation at once. `auto`: all_at_once under a batch API,
prefix_first otherwise (docs/cost-and-scale.md, 'The writer first')."""


def resolve_schedule(schedule: Schedule, model: Model) -> Schedule:
    if schedule != "auto":
        return schedule
    return "all_at_once" if resolved_config(model).batch else "prefix_first"


CallKey = tuple[CallType, int | None]
"""A call of a conversation: its type and turn (None for the post-conversation call)."""


def after(call: CallType, turn: int | None, turns: int, schedule: Schedule) -> tuple[CallKey, ...]:
    """The calls whose end `call` waits for: under `prefix_first` as docs/cost-and-scale.md, 'The
    writer first', says; under `all_at_once` a judgement waits for its draft only."""
    previous = (turn or 1) - 1
    if call == "judge":
        chain: tuple[CallKey, ...] = (("judge", previous),) if previous else ()
        return (("draft", turn), *(chain if schedule == "prefix_first" else ()))
    if schedule != "prefix_first":
        return ()
    if call in (PREFIX_WRITER, "draft"):
        return ((call, previous),) if previous else ()
    if call == "post":
        return ((PREFIX_WRITER, turns),)
    if call in ("emotion", "binary_hp", "pairwise"):
        return ((PREFIX_WRITER, turn),)
    return ()
