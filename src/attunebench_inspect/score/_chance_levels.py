"""Measured chance levels, as data (`chance_levels.json`): each metric's mean on the bundled
synthetic set for the random and the majority baseline, measured by tests/core/score/test_catalog.py
and tests/instruments/profile/test_profile.py, which name the values to write when they change."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

FILE = Path(__file__).with_name("chance_levels.json")


@cache
def _levels() -> dict[str, dict[str, float | None]]:
    levels: dict[str, dict[str, float | None]] = json.loads(FILE.read_text(encoding="utf-8"))[
        "levels"
    ]
    return levels


def measured(name: str) -> tuple[float | None, float | None]:
    """(attunebench/random, attunebench/majority) for a metric; (None, None) where not measured,
    and None for a baseline under which the metric is NaN."""
    level = _levels().get(name, {})
    return level.get("random"), level.get("majority")


def measured_names() -> frozenset[str]:
    return frozenset(_levels())
