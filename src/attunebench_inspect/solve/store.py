"""What the walk of a conversation leaves in the sample's Inspect store: one typed home.

The solver writes it once, when the conversation's calls are done; the scorers, the rejudge
scorer and the sample summary read it only through `read_walk`, as typed predictions
(`predictions.py`).
"""

from __future__ import annotations

from inspect_ai.util import Store, StoreModel, store_as
from pydantic import Field

from .call_record import CallRecord
from .predictions import Walk


class WalkStore(StoreModel):
    """The store entries of one conversation's walk (keys `WalkStore:judge_model`,
    `WalkStore:records`)."""

    judge_model: str | None = None
    """The judge model the sample ran with; None when no judge role was bound."""
    records: list[CallRecord] = Field(default_factory=list)


def save_walk(records: list[CallRecord], judge: str | None) -> None:
    walk = store_as(WalkStore)
    walk.judge_model = judge
    walk.records = records


def read_walk(state_store: Store) -> Walk:
    walk = WalkStore(store=state_store)
    return Walk(walk.judge_model, {(r.call, r.turn): r for r in walk.records})
