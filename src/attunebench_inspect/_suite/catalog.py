"""Every metric the suite declares, as scorers/METRICS.md shows them and as the conformance
vectors check them: the main task's catalog (score/), then each instrument's own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..instruments.profile._catalog import profile_markdown
from ..instruments.profile._conformance import NAMES as PROFILE_NAMES
from ..instruments.profile._conformance import compute as profile_compute
from ..instruments.stability._catalog import stability_markdown
from ..score._catalog_doc import main_markdown, rejudged_markdown
from ..score._conformance import compute as main_compute


def metrics_markdown() -> str:
    """The generated block of scorers/METRICS.md."""
    parts = [*main_markdown(), *stability_markdown(), *profile_markdown(), *rejudged_markdown()]
    return "\n".join(parts).rstrip() + "\n"


def compute(metric: str, case: Mapping[str, Any]) -> float:
    """The value the code gives a conformance case of any metric of the suite."""
    return profile_compute(metric, case) if metric in PROFILE_NAMES else main_compute(metric, case)
