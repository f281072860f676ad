"""The catalog as the Markdown tables of scorers/METRICS.md (generated, and checked by a test).

`attunebench metrics` prints them; `attunebench metrics --write scorers/METRICS.md` replaces the
generated block between the BEGIN/END markers.
"""

from __future__ import annotations

import math
from pathlib import Path

from .._util.files import MAX_CONFIG_BYTES, read_capped, write_atomic
from ._catalog import CATALOG
from ._counts import COUNTS, UNPLACED_LABELS
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
STABILITY = (
    "Does the score hold still? Instruments beside the Composite, never in it "
    "([docs/stability.md](../docs/stability.md)), written by `stability_scorer`. Its metric reads "
    "every epoch's scores unreduced (Inspect's `@metric(scores=\"unreduced\")`), so what "
    "compares epochs can be a log metric; each appears only where it applies (two epochs, two "
    "judges). The report adds their intervals and verdicts, position shares by position, and "
    "rank stability across models"
)
_GROUPS = {
    "headline": "headline",
    "pillar": "pillar",
    "canonical": "canonical (Composite input)",
    "alongside": "reported alongside",
    "pooled": "pooled view",
    "diagnostic": "diagnostic",
    "informational": "informational",
    "operational": "operational",
    "stability": "stability",
    "profile_headline": "profile headline",
    "profile_part": "profile part",
    "profile_field": "profile field",
    "profile_operational": "operational",
}


def _number(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "NaN"
    return f"{value:.2f}" if abs(value) >= 10 else f"{value:.3f}"


def _range(entry: MetricSpec) -> str:
    low, high = (f"{v:g}" for v in (round(entry.low, 3), round(entry.high, 3)))
    arrow = "higher is better" if entry.higher_is_better else "lower is better"
    if entry.expected is not None:
        arrow = f"{entry.expected:g} when choices ignore position"
    return f"{low} to {high}, {arrow}"


def _row(entry: MetricSpec) -> str:
    cells = [
        f"`{entry.name}`",
        entry.label,
        _GROUPS[entry.group] + (f", pillar {entry.pillar}" if entry.pillar else ""),
        entry.definition,
        entry.edge_cases or "-",
        _range(entry),
        _number(entry.chance),
        _number(entry.majority),
    ]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def catalog_markdown() -> str:
    head = (
        "| metric | label | group | definition | edge cases | range | random | majority |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    parts: list[str] = []
    composite = [e for e in CATALOG if e.family == "composite"]
    parts += ["### The Composite, its pillars and the parse-failure rate", "", head]
    parts += [_row(e) for e in composite] + [""]
    for title, level, note in SECTIONS:
        rows = [
            e
            for e in CATALOG
            if e.level == level
            and e.family not in ("composite", "rejudge", "profile")
            and e.group != "stability"
        ]
        parts += [f"### {title}", "", note[0].upper() + note[1:] + ".", "", head]
        parts += [_row(e) for e in rows] + [""]
    parts += ["### Stability", "", STABILITY + ".", "", head]
    parts += [_row(e) for e in CATALOG if e.group == "stability"] + [""]
    parts += [
        "### Profile prediction (the experimental `profile` task)",
        "",
        "From the profile task's one call (docs/profile.md); the run value is the mean over "
        "conversations. Part and field values are on 0 to 1; `pillar` names the part a field "
        "feeds. The options come from the profile vocabulary, fixed whatever the data "
        "(dataset/profile_vocabulary.json or `-T vocabulary=FILE`). Beside the metrics, every "
        f"sample's score carries `{UNPLACED_LABELS}`, {COUNTS[UNPLACED_LABELS]}: the log's data "
        "warnings and `attunebench validate` name them, and the report sums them per run.",
        "",
        head,
        *(_row(e) for e in CATALOG if e.family == "profile"),
        "",
    ]
    rejudged = [e for e in CATALOG if e.family == "rejudge"]
    parts += [
        "### Rejudged drafts",
        "",
        "Written by `inspect score LOG --scorer attunebench_inspect/draft_rejudge`, beside the "
        "original judge's: " + ", ".join(f"`{e.name}`" for e in rejudged) + ".",
        "",
    ]
    return "\n".join(parts).rstrip() + "\n"


def replace_block(text: str, block: str) -> str:
    """`text` with the generated block between the markers replaced by `block`."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n\n" + block + "\n" + text[end:]


def write(path: str | Path) -> None:
    text = read_capped(path, MAX_CONFIG_BYTES).decode("utf-8")
    write_atomic(path, replace_block(text, catalog_markdown()))
