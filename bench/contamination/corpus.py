"""What the fine-tuned models read: the seeded half of the conversations, and each variant's
documents (pure; no torch, no Inspect).

- **The split.** Conversations are ranked by SHA-256 of "<seed>:<conversationId>" and the first
  floor(n/2) are the trained half, the rest held out: a rule that depends on the seed and the IDs
  alone (not on file names, their order or a library's random generator), so anyone can re-derive
  it. The evaluated subset of each half is its first k in that same order.
- **Variant `text`**: each conversation file laid out as the deposit lays it out (the same JSON,
  the same indentation) with every label removed: what is left are the published texts
  (`userMessage`, `llmResponse`, `annotations.alternateResponses.llmImproved` and `.humanEdited`)
  and what places them (`conversationId`, `metadata`'s topic, `turnNumber`). The model that wrote
  the original responses (`metadata.model`) is a label and goes too; so does the participant's
  profile (not a message or a reply).
- **Variant `labels`**: the conversation file itself, byte for byte: the same texts plus every
  label the participant gave (mood shifts, binary judgements, pairwise winners, PANAS,
  conversation-wide answers, ...).

Both variants keep the deposit's field names and JSON escaping, so the only difference between
them is the labels. Neither ever contains a prompt of the suite.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Variant = Literal["text", "labels"]
VARIANTS: tuple[Variant, ...] = ("text", "labels")
Half = Literal["trained", "held_out"]
HALVES: tuple[Half, ...] = ("trained", "held_out")

_TURN_TEXTS = ("turnNumber", "userMessage", "llmResponse")
_ALTERNATES = ("llmImproved", "humanEdited")
_TOPIC = ("category", "subtopic", "text")


@dataclass(frozen=True)
class Conversation:
    """One conversation file as published: its ID, its path and its text."""

    conversation_id: str
    path: Path
    raw: str

    def document(self, variant: Variant) -> str:
        return self.raw if variant == "labels" else text_only(self.raw)


@dataclass(frozen=True)
class Split:
    seed: int
    trained: tuple[str, ...]
    """Conversation IDs, in the seeded order."""
    held_out: tuple[str, ...]

    def half(self, half: Half) -> tuple[str, ...]:
        return self.trained if half == "trained" else self.held_out

    def evaluated(self, half: Half, per_half: int | None) -> tuple[str, ...]:
        """The first `per_half` of a half in the seeded order (all of it for None)."""
        ids = self.half(half)
        return ids if per_half is None else ids[:per_half]


def rank_key(seed: int, conversation_id: str) -> str:
    return hashlib.sha256(f"{seed}:{conversation_id}".encode()).hexdigest()


RULE = (
    "rank by sha256('<seed>:<conversationId>'); keep the first N (all for N = 0); the first "
    "floor(N/2) of those are trained, the rest held out"
)


def split_halves(conversation_ids: Sequence[str], seed: int, keep: int = 0) -> Split:
    """The first `keep` conversations by rank (all for 0) in halves: the first floor(keep/2)
    trained, the rest held out."""
    count = keep or len(conversation_ids)
    if count < 2 or count > len(conversation_ids):
        raise ValueError(
            f"conversations: {count} asked of {len(conversation_ids)}; expected 2 to "
            f"{len(conversation_ids)} to split in halves"
        )
    ranked = sorted(conversation_ids, key=lambda c: rank_key(seed, c))[:count]
    cut = count // 2
    return Split(seed, tuple(ranked[:cut]), tuple(ranked[cut:]))


def text_only(raw: str) -> str:
    """The conversation file with every label removed, laid out as the file is (indent 2, the
    deposit's characters unescaped)."""
    data: dict[str, Any] = json.loads(raw)
    kept: dict[str, Any] = {"conversationId": data["conversationId"]}
    metadata: Mapping[str, Any] = data.get("metadata", {})
    kept["metadata"] = {k: metadata[k] for k in _TOPIC if k in metadata}
    turns = []
    for turn in data["turns"]:
        item = {k: turn[k] for k in _TURN_TEXTS if k in turn}
        alternates = turn.get("annotations", {}).get("alternateResponses", {})
        item["annotations"] = {"alternateResponses": {k: alternates[k] for k in _ALTERNATES}}
        turns.append(item)
    kept["turns"] = turns
    trailing = "\n" if raw.endswith("\n") else ""
    return json.dumps(kept, indent=2, ensure_ascii=False) + trailing
