"""A readable account of one conversation's walk, for the sample's messages in `inspect view`."""

from __future__ import annotations

from inspect_ai.util import Store

from ..data._split import VisibleConversation
from ._call_record import CallRecord, CallType
from ._predictions import ReplyReading
from ._store import read_walk


def _status(record: CallRecord | None) -> str:
    if record is None:
        return "missing"
    return record.status if record.status != "failed" else f"PARSE FAILURE ({record.error})"


def _mood(reading: ReplyReading | None) -> str:
    if reading is None:
        return "-"
    return ", ".join(f"{k} {v}" for k, v in reading.mood_shift.items()) or "no shift"


def summarise(store: Store, conv: VisibleConversation) -> str:
    calls: tuple[CallType, ...] = ("draft", "emotion", "binary_hp", "pairwise")
    walk = read_walk(store)
    lines = [f"AttuneBench walk of {conv.conversation_id} ({len(conv.turns)} turns)"]
    for turn in conv.turns:
        n = turn.turn_number
        statuses = [f"{c} {_status(walk.get(c, n))}" for c in calls]
        # Each judge of the panel after the draft, by its model role.
        statuses[1:1] = [f"{role} {_status(walk.judgement(role, n))}" for role in walk.judges]
        mood = _mood(walk.turn(n).reading)
        lines.append(f"Turn {n}: {'; '.join(statuses)}; predicted mood shift: {mood}")
    lines.append(f"Post-conversation: {_status(walk.get('post', None))}")
    return "\n".join(lines)
