"""The catalog as the Markdown tables of scorers/METRICS.md (`attunebench metrics [--write]`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Protocol

from .._util.files import MAX_CONFIG_BYTES, read_capped, write_atomic
from ._catalog import CATALOG
from ._metric_spec import MetricSpec

BEGIN = "<!-- BEGIN GENERATED: attunebench metrics --write scorers/METRICS.md -->"
END = "<!-- END GENERATED -->"
SECTIONS = (
    ("Turn-by-turn metrics", "turn", "computed per turn, then averaged over the turns of the "
     "conversation where the metric is defined; the run value is the mean over conversations"),
    ("Conversation-wide metrics", "conversation", "from the one post-conversation call; the run "
     "value is the mean over conversations"),
    ("Pooled metrics", "run", "computed once over every judgement of the run"),
)  # fmt: skip
_GROUPS = {
    "canonical": "canonical (Composite input)",
    "alongside": "reported alongside",
    "pooled": "pooled view",
}
"""How a group reads where not by its name."""
TABLE_HEAD = (
    "| metric | label | group | definition | edge cases | range | random | majority |",
    "|---|---|---|---|---|---|---|---|",
)


class DocumentedMetric(Protocol):
    """What a row of METRICS.md says of a metric: the main task's `MetricSpec` and an
    instrument's own declarations (the profile task's `ProfileSpec`) alike."""

    @property
    def name(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def definition(self) -> str: ...
    @property
    def edge_cases(self) -> str: ...
    @property
    def higher_is_better(self) -> bool: ...
    @property
    def low(self) -> float: ...
    @property
    def high(self) -> float: ...
    @property
    def expected(self) -> float | None: ...
    @property
    def chance(self) -> float | None: ...
    @property
    def majority(self) -> float | None: ...


def _number(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "NaN"
    return f"{value:.2f}" if abs(value) >= 10 else f"{value:.3f}"


def _range(entry: DocumentedMetric) -> str:
    low, high = (f"{v:g}" for v in (round(entry.low, 3), round(entry.high, 3)))
    arrow = "higher is better" if entry.higher_is_better else "lower is better"
    if entry.expected is not None:
        arrow = f"{entry.expected:g} when choices ignore position"
    return f"{low} to {high}, {arrow}"


def _group(entry: MetricSpec) -> str:
    return _GROUPS.get(entry.group, entry.group) + (
        f", pillar {entry.pillar}" if entry.pillar else ""
    )


def metric_row(entry: DocumentedMetric, group: str | None = None) -> str:
    """A metric's row of METRICS.md; `group` says how it is grouped (default: the main task's
    group and pillar of a `MetricSpec`)."""
    cells = [
        f"`{entry.name}`",
        entry.label,
        group if group is not None else _group(entry),  # type: ignore[arg-type]
        entry.definition,
        entry.edge_cases or "-",
        _range(entry),
        _number(entry.chance),
        _number(entry.majority),
    ]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def main_markdown() -> list[str]:
    """The main task's tables of METRICS.md: Composite, turn, conversation-wide, pooled metrics."""
    parts = ["### The Composite, its pillars and the parse-failure rate", "", *TABLE_HEAD]
    parts += [metric_row(e) for e in CATALOG if e.family == "composite"] + [""]
    for title, level, note in SECTIONS:
        rows = [e for e in CATALOG if e.level == level and e.family not in ("composite", "rejudge")]
        parts += [f"### {title}", "", note[0].upper() + note[1:] + ".", "", *TABLE_HEAD]
        parts += [metric_row(e) for e in rows] + [""]
    return parts


def rejudged_markdown() -> list[str]:
    """The last section of METRICS.md: the names `inspect score` with `draft_rejudge` writes."""
    rejudged = [e for e in CATALOG if e.family == "rejudge"]
    return [
        "### Rejudged drafts",
        "",
        "Written by `inspect score LOG --scorer attunebench_inspect/draft_rejudge`, beside the "
        "original judge's: " + ", ".join(f"`{e.name}`" for e in rejudged) + ".",
        "",
    ]


def replace_block(text: str, block: str) -> str:
    """`text` with the generated block between the markers replaced by `block`."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n\n" + block + "\n" + text[end:]


def write(path: str | Path, block: str) -> None:
    """Replace the generated block of the METRICS.md at `path` by `block`."""
    text = read_capped(path, MAX_CONFIG_BYTES).decode("utf-8")
    write_atomic(path, replace_block(text, block))
