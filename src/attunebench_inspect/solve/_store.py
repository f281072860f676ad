"""What the walk of a conversation leaves in the sample's Inspect store: one typed home, written
once when the conversation's calls are done, read only through `read_walk`."""

from __future__ import annotations

from inspect_ai.util import Store, StoreModel, store_as
from pydantic import Field

from ._call_record import CallRecord
from ._predictions import Walk

JUDGE_ROLE = "judge"
"""The first judge's model role; further judges of a panel are `judge_2`, `judge_3`, ..."""


class WalkStore(StoreModel):
    """The store entries of one conversation's walk (keys `WalkStore:judges`,
    `WalkStore:records`, and from epoch 2 on `WalkStore:epoch`)."""

    judges: dict[str, str] = Field(default_factory=dict)
    """model role -> model, in panel order; empty when no judge role was bound."""
    records: list[CallRecord] = Field(default_factory=list)
    judge_model: str | None = None
    """Task version 3-A's one judge (the role `judge`), read from its logs; no longer written."""
    epoch: int = 1
    """The sample's epoch, written as the walk starts from epoch 2 on: the random baseline
    seeds its answers with it (providers/_baselines.py), as a rerun of chance should vary."""


def mark_epoch(epoch: int) -> None:
    """Say the sample's epoch to the models it calls (epoch 1 writes nothing, as before)."""
    if epoch > 1:
        store_as(WalkStore).epoch = epoch


def current_epoch() -> int:
    """The epoch of the sample being walked (1 outside a walk)."""
    return store_as(WalkStore).epoch


def save_walk(records: list[CallRecord], judges: dict[str, str]) -> None:
    walk = store_as(WalkStore)
    walk.judges = judges
    walk.records = records


def read_walk(state_store: Store) -> Walk:
    walk = WalkStore(store=state_store)
    judges = walk.judges or ({JUDGE_ROLE: walk.judge_model} if walk.judge_model else {})
    return Walk(
        judges,
        {(r.call, r.turn): r for r in walk.records if r.call != "judge"},
        {
            (r.role or JUDGE_ROLE, r.turn): r
            for r in walk.records
            if r.call == "judge" and r.turn is not None
        },
    )
