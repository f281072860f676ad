"""A readable account of one conversation's walk, for the sample's messages in `inspect view`."""

from __future__ import annotations

from inspect_ai.util import Store

from ..data.split import VisibleConversation
from .call_record import CallRecord, CallType
from .predictions import ReplyReading
from .store import read_walk


def _status(record: CallRecord | None) -> str:
    if record is None:
        return "missing"
    return record.status if record.status != "failed" else f"PARSE FAILURE ({record.error})"


def _mood(reading: ReplyReading | None) -> str:
    if reading is None:
        return "-"
    return ", ".join(f"{k} {v}" for k, v in reading.mood_shift.items()) or "no shift"


def summarise(store: Store, conv: VisibleConversation, *, judged: bool) -> str:
    calls: tuple[CallType, ...] = ("draft", "emotion", "binary_hp", "pairwise")
    if judged:
        calls = ("draft", "judge", "emotion", "binary_hp", "pairwise")
    walk = read_walk(store)
    lines = [f"AttuneBench walk of {conv.conversation_id} ({len(conv.turns)} turns)"]
    for turn in conv.turns:
        n = turn.turn_number
        statuses = "; ".join(f"{c} {_status(walk.get(c, n))}" for c in calls)
        lines.append(f"Turn {n}: {statuses}; predicted mood shift: {_mood(walk.turn(n).reading)}")
    lines.append(f"Post-conversation: {_status(walk.get('post', None))}")
    return "\n".join(lines)
