"""What each call leaves: its parsed prediction, its status, and what an unreadable answer said."""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, field_serializer, field_validator

ProbeCall = Literal[
    "guided",
    "general",
    "layout",
    "layout_control",
    "layout_labels",
    "layout_labels_control",
    "likelihood",
]
"""The contamination probe's calls (instruments/contamination/): they leave no record, and the
estimate prices them as calls of their own."""
CallType = Literal[
    "draft", "judge", "emotion", "binary_hp", "pairwise", "post", "profile", ProbeCall
]
"""The main task's calls, the profile task's one call, and the contamination probe's."""
Status = Literal["ok", "repaired", "failed"]


class CallRecord(BaseModel):
    call: CallType
    turn: int | None = None
    """None for the post-conversation call (logs drop None fields, so it must default)."""
    status: Status
    raw: str | None = None
    """The first answer as the model wrote it, kept only when it could not be read as is
    (repaired or failed): a readable answer is its prediction, and every answer is in the call's
    model event."""
    repair_raw: str | None = None
    error: str | None = None
    prediction: dict[str, Any] | None = None
    context: dict[str, Any] = {}
    """Call-specific facts the scorer needs, e.g. the pairwise label -> source mapping."""
    role: str | None = None
    """A judge call's model role (`judge`, `judge_2`, ...: the judge panel); None for the
    evaluated model's calls, and for the judge calls of task version 3-A logs, whose one judge
    is the role `judge`."""

    @property
    def parsed(self) -> bool:
        return self.status != "failed"

    # A prediction is logged as one compact JSON string, not a tree: Inspect copies the records
    # into the store and into a store event per enclosing span and the solver's state event, and
    # walks every node of every copy when it logs a sample, so each nested answer would cost it
    # tens of nodes four times over (docs/performance.md). In memory it is the parsed dict.
    @field_serializer("prediction")
    def _prediction_as_json(self, prediction: dict[str, Any] | None) -> str | None:
        return self._prediction_json

    # Written once: Inspect serialises the store before and after every span of the sample (each
    # scorer's too), and a record never changes once its call is done.
    @cached_property
    def _prediction_json(self) -> str | None:
        if self.prediction is None:
            return None
        return json.dumps(self.prediction, ensure_ascii=False, separators=(",", ":"))

    @field_validator("prediction", mode="before")
    @classmethod
    def _prediction_from_json(cls, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value
