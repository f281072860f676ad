"""The report's Contamination section, and the verdict beside each probed model's Composite on
the leaderboard (docs/contamination.md)."""

from __future__ import annotations

from ...tools.report._build import Report
from ...tools.report._sections.base import Section
from ...tools.report._table import Table, ci, number
from ._report import Contamination, ContaminationPart, ContaminationRow


def _composites(row: ContaminationRow) -> str:
    return (
        "; ".join(
            f"{mode} {ci(c, 2)}" + (f" ({row.coverage[mode]})" if mode in row.coverage else "")
            for mode, c in sorted(row.composite.items())
        )
        or "-"
    )


def _layout(c: Contamination) -> str:
    found = c.layout
    if found is None:
        return "not run"
    return (
        f"{found.verdict}; {found.recalled}, {found.control_recalled} of {found.instances} "
        f"({found.longest}, {found.control_longest}); labels: {_labels(c)}"
    )


def _labels(c: Contamination) -> str:
    found = c.layout.labels if c.layout else None
    if found is None:
        return "not run"
    # The reason of a cannot decide is the verdict's own where it decides (its column), and
    # the log's: here the word alone keeps the column narrow.
    return (
        f"{found.verdict.partition(':')[0]}; {number(found.match, 2)} / "
        f"{number(found.control_match, 2)}, "
        f"{found.reproduced} of {found.scored} ({found.instances})"
    )


HEADERS = [
    "model",
    "verdict",
    "Composite [95% CI] by mode",
    "ROUGE-L guided / general",
    "difference [95% CI]",
    "permutation p",
    "exact / near-exact",
    "recalled (longest run)",
    "texts (conversations)",
    "files layout",
    "seed",
]
READING = (
    "The verdict sits beside the Composite, never inside it: a suspected model may score by "
    "recall as well as attunement; not suspected is not proof that it never saw the data "
    "(docs/contamination.md). Guided: the instruction names the data set; general: the same "
    "text, nothing named; difference: guided minus general; exact and near-exact: guided "
    "completions; recalled: completions (guided or general) that write out a run of another "
    "published text of the conversation that the prompt did not show, with the longest run in "
    "words. Files layout (-T methods=guided,layout; else not run): its sub-verdict; the "
    "documents' and the control's recalled continuations of the instances (13+ unshown words "
    "of a published text in a row), and their longest runs; each document is the start of a "
    "conversation's file layout, the control a never-published one; then labels: the label "
    "cut's sub-verdict (its reason in the verdict, where it decides); the documents' / the "
    "controls' mean label match (the label fields "
    "written after a turn's response against the participant's labels), the document "
    "continuations that reproduce every label field they write of the instances where either "
    "writes one (all instances). The verdict is suspected if any method or cut is, cannot "
    "decide if any cannot."
)


def _row(r: ContaminationRow) -> list[str | float | int | None]:
    c = r.contamination
    return [
        r.model,
        c.verdict,
        _composites(r),
        f"{number(c.guided_rouge_l)} / {number(c.general_rouge_l)}",
        ci(c.difference),
        number(c.p_value, 4),
        f"{c.exact} / {c.near_exact}",
        f"{c.recalled} ({c.longest_recall})",
        f"{c.instances} ({c.conversations})",
        _layout(c),
        "-" if c.seed is None else c.seed,
    ]


def _tables(report: Report) -> list[Table]:
    """Has the model seen these conversations? The probe's verdict per model, beside its
    Composite (docs/contamination.md)."""
    rows = report.part(ContaminationPart).contamination
    rules = sorted({c.contamination.rule for c in rows if c.contamination.rule})
    empty = [
        f"{r.model} ({r.contamination.empty_completions})"
        for r in rows
        if r.contamination.empty_completions
    ]
    return [
        Table(
            "Contamination: has the model seen these conversations?",
            HEADERS,
            [_row(r) for r in rows],
            READING
            + (f" Empty completions (scored as no overlap): {', '.join(empty)}." if empty else "")
            + (" Over every text each probe ran: --where does not apply." if report.where else "")
            + " Rule: "
            + (" | ".join(rules) or "-"),
            empty="No contamination probe among the logs: `inspect eval "
            "attunebench_inspect/contamination --model MODEL` checks whether a model has seen "
            "the conversations (docs/contamination.md).",
        )
    ]


SECTION = Section("contamination", _tables)
