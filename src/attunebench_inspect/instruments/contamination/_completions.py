"""An instance's two completions scored by the probe's three heuristics (pure, no Inspect): the
scorer's per-instance arithmetic, and the same for the benchmarks that score completions without
a log (bench/contamination/probe_power.py) or rescore a log's (results.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from . import _prompts as prompts
from ._instances import FIELDS, Instance
from ._overlap import Overlap, overlap, words
from ._recall import PublishedText, Recall, recall, text_key
from ._rules import InstanceResult

KEPT_DECIMALS = 6
"""ROUGE-L as the scorer's per-instance records keep it (and so as every verdict reads it)."""


def answer_key(completion: str) -> str:
    """What tells one answer from another: a digest of the completion's normalised words (of
    its stripped text where it has no word); "" for no text at all."""
    said = " ".join(words(completion)) or completion.strip()
    return hashlib.sha256(said.encode()).hexdigest()[:16] if said else ""


@dataclass(frozen=True)
class Scored:
    """An instance's two completions: overlap with the reference, recall of other texts, and
    whether each carries text."""

    conversation: str
    guided: Overlap
    general: Overlap
    guided_recall: Recall
    general_recall: Recall
    guided_answer: str
    general_answer: str
    guided_cut: bool = False
    general_cut: bool = False

    def result(self) -> InstanceResult:
        """What the verdict reads of the instance, as the log keeps it."""
        return InstanceResult(
            round(self.guided.rouge_l, KEPT_DECIMALS),
            round(self.general.rouge_l, KEPT_DECIMALS),
            self.guided.match,
            self.general.match,
            self.guided_recall.run,
            self.general_recall.run,
            self.conversation,
            self.guided_answer,
            self.general_answer,
            self.guided_cut,
            self.general_cut,
        )


def score_instance(
    instance: Instance,
    texts: Sequence[PublishedText],
    guided: str,
    general: str,
    cut: tuple[bool, bool] = (False, False),
) -> Scored:
    """Both completions of an instance against its reference, its prompt's echo removed
    (heuristics 1 and 2), and against the conversation's other published texts, the words each
    prompt showed excluded (3); `cut`: whether each stopped at the length limit."""
    own = text_key(instance.turn, FIELDS[instance.kind])
    asked = prompts.guided(instance), prompts.general(instance)
    return Scored(
        instance.conversation_id,
        overlap(asked[0], instance.reference, guided),
        overlap(asked[1], instance.reference, general),
        recall(guided, asked[0], texts, own),
        recall(general, asked[1], texts, own),
        answer_key(guided),
        answer_key(general),
        *cut,
    )
