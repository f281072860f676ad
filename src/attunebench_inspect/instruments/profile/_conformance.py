"""The profile metrics' conformance cases (scorers/conformance/profile.json) and their values."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from ._catalog import PROFILE_METRICS
from ._fields import PROFILE_FIELDS
from ._metrics import ProfileInputs
from ._vocabulary import Vocabulary, load_vocabulary

NAMES = frozenset(s.name for s in PROFILE_METRICS)


@cache
def _bundled_vocabulary() -> Vocabulary:
    return load_vocabulary()


def profile_case(case: Mapping[str, Any]) -> ProfileInputs:
    """A profile case: the answer (flat, as the profile call gives it), the participant's profile
    in the published `participant_profile` shape, and, where a case sets them, the vocabularies
    of some fields in place of the bundled ones."""
    truth: Mapping[str, Any] = case.get("truth") or {}
    sections = {**truth.get("demographics", {}), **truth.get("computed_scores", {})}
    sections["conversation_topic_attitude"] = truth.get("conversation_topic_attitude")
    vocabulary = Vocabulary.of({**_bundled_vocabulary().dump(), **case.get("vocabulary", {})})
    values = {
        f.name: sections.get(f.name, [] if f.kind in ("multi", "text") else None)
        for f in PROFILE_FIELDS
    }
    return ProfileInputs.of(case.get("prediction"), values, vocabulary)


def compute(metric: str, case: Mapping[str, Any]) -> float:
    """The value the code gives a case of a profile metric."""
    entry = next(s for s in PROFILE_METRICS if s.name == metric)
    assert entry.value is not None, f"{metric} is computed by its scorer"
    return entry.value(profile_case(case))
