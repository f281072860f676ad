"""The report's Contamination section, and the verdict beside each probed model's Composite on
the leaderboard (docs/contamination.md): the probe's verdict per model, then, where it ran, the
files-layout probe's figures, each under its own rule."""

from __future__ import annotations

from ...tools.report._build import Report
from ...tools.report._sections.base import Section
from ...tools.report._table import Cell, Table, ci, number
from ._report import ContaminationPart, ContaminationRow, Layout, rule_parts

HEADERS = [
    "model",
    "verdict",
    "ROUGE-L guided / general",
    "difference [95% CI]",
    "p",
    "exact / near-exact",
    "recalled (longest)",
    "texts",
    "files layout",
    "seed",
]
READING = (
    "The verdict sits beside the Composite on the leaderboard, never inside it: a suspected "
    "model may score by recall as well as attunement; not suspected is not proof that it never "
    "saw the data (docs/contamination.md). Guided: the instruction names the data set; general: "
    "the same text, nothing named; difference: guided minus general; p: the one-sided "
    "permutation test that guided exceeds general; exact and near-exact: guided completions; "
    "recalled: completions (guided or general) that write out a run of another published text "
    "of the conversation that the prompt did not show, with the longest run in words; texts: "
    "the texts probed (their conversations); files layout: its sub-verdict (the next table)."
)
LAYOUT_HEADERS = [
    "model",
    "files layout",
    "recalled: documents / control",
    "longest run: documents / control",
    "instances",
    "labels",
    "label match: documents / control",
    "reproduced / scored",
]
LAYOUT_READING = (
    "Each document is the start of a conversation's file layout, the control a never-published "
    "one. Recalled: the continuations that write out 13+ unshown words of a published text in "
    "a row, with the longest run in words. Labels: the label cut's sub-verdict; label match: "
    "the mean match of the label fields written after a turn's response against the "
    "participant's labels; reproduced / scored: the document continuations that reproduce "
    "every label field they write, of those where either writes one. The verdict is suspected "
    "if any method or cut is, cannot decide if any cannot."
)


def _row(r: ContaminationRow) -> list[Cell]:
    c = r.contamination
    return [
        r.model,
        c.verdict,
        f"{number(c.guided_rouge_l)} / {number(c.general_rouge_l)}",
        ci(c.difference),
        number(c.p_value, 4),
        f"{c.exact} / {c.near_exact}",
        f"{c.recalled} ({c.longest_recall})",
        f"{c.instances} ({c.conversations})",
        c.layout.verdict if c.layout else "not run",
        "-" if c.seed is None else c.seed,
    ]


def _layout_row(model: str, found: Layout) -> list[Cell]:
    labels = found.labels
    return [
        model,
        found.verdict,
        f"{found.recalled} / {found.control_recalled}",
        f"{found.longest} / {found.control_longest}",
        found.instances,
        labels.verdict if labels else "not run",
        f"{number(labels.match, 2)} / {number(labels.control_match, 2)}" if labels else "-",
        f"{labels.reproduced} / {labels.scored}" if labels else "-",
    ]


def _rules(rows: list[ContaminationRow], names: tuple[str, ...]) -> str:
    """The rules of these methods the runs state, each once (a run of the guided probe alone
    and one with the files layout state the same guided rule)."""
    said: dict[str, list[str]] = {}
    for r in rows:
        for name, text in rule_parts(r.contamination.rule).items():
            if name in names and text not in said.setdefault(name, []):
                said[name].append(text)
    return " ".join(
        f"Rule{'' if len(names) == 1 else f' ({name})'}: {text}."
        for name, texts in said.items()
        for text in texts
    )


def _tables(report: Report) -> list[Table]:
    """Has the model seen these conversations? The probe's verdict per model, beside its
    Composite (docs/contamination.md)."""
    rows = report.part(ContaminationPart).contamination
    empty = [
        f"{r.model} ({r.contamination.empty_completions})"
        for r in rows
        if r.contamination.empty_completions
    ]
    covers = [f"{r.model} ({mode}): {text}" for r in rows for mode, text in r.coverage.items()]
    verdicts = Table(
        "Contamination: has the model seen these conversations?",
        HEADERS,
        [_row(r) for r in rows],
        READING
        + (f" Empty completions (scored as no overlap): {', '.join(empty)}." if empty else "")
        + (f" Not the Composite's conversations: {'; '.join(covers)}." if covers else "")
        + (" Over every text each probe ran: --where does not apply." if report.where else "")
        + " "
        + (_rules(rows, ("guided",)) or "Rule: -"),
        empty="No contamination probe among the logs: `inspect eval "
        "attunebench_inspect/contamination --model MODEL` checks whether a model has seen "
        "the conversations (docs/contamination.md).",
    )
    layout = [(r.model, r.contamination.layout) for r in rows if r.contamination.layout]
    if not layout:
        return [verdicts]
    return [
        verdicts,
        Table(
            "Contamination: the files-layout probe (-T methods=guided,layout)",
            LAYOUT_HEADERS,
            [_layout_row(model, found) for model, found in layout],
            f"{LAYOUT_READING} {_rules(rows, ('files layout', 'labels', 'overall'))}",
        ),
    ]


SECTION = Section("contamination", _tables)
