"""The Composite's pillars of one conversation, from its canonical metric values."""

from __future__ import annotations

from collections.abc import Mapping

from . import _metrics as metrics
from ._catalog import CATALOG
from ._metric_spec import Pillar


def _members(pillar: Pillar, values: Mapping[str, float]) -> list[float]:
    return [values[s.name] for s in CATALOG if s.pillar == pillar]


def pillars(values: Mapping[str, float]) -> dict[str, float]:
    """The three pillars of one conversation; NaN (not applicable) inputs left out of their mean."""
    questions = metrics.nanmean(_members("holistic_questions", values))
    return {
        "emotion_pillar": metrics.nanmean(_members("emotion", values)),
        "evaluation_pillar": metrics.nanmean(_members("evaluation", values)),
        "holistic_pillar": metrics.nanmean([*_members("holistic", values), questions]),
    }
