"""Every metric the suite declares, as scorers/METRICS.md shows them and as the conformance
vectors check them: the main task's catalog (score/), then each instrument's own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import instruments
from ..score._catalog_doc import main_markdown, rejudged_markdown
from ..score._conformance import compute as main_compute


def metrics_markdown() -> str:
    """The generated block of scorers/METRICS.md."""
    own = [line for i in instruments.INSTRUMENTS if i.catalog for line in i.catalog.markdown()]
    parts = [*main_markdown(), *own, *rejudged_markdown()]
    return "\n".join(parts).rstrip() + "\n"


def compute(metric: str, case: Mapping[str, Any]) -> float:
    """The value the code gives a conformance case of any metric of the suite."""
    for instrument in instruments.INSTRUMENTS:
        catalog = instrument.catalog
        if catalog and catalog.compute and metric in catalog.names:
            return catalog.compute(metric, case)
    return main_compute(metric, case)
