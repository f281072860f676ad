"""The report's Contamination section, and the verdict beside each probed model's Composite on
the leaderboard (docs/contamination.md): the probe's verdict per model, then, where they ran, the
files-layout probe's figures and the likelihood method's, each under its own rule."""

from __future__ import annotations

from ..._util.verdict import CANNOT_DECIDE, is_abstention
from ...tools.report._build import Report
from ...tools.report._sections.base import Section
from ...tools.report._table import Cell, Table, ci, number
from ._report import ContaminationPart, ContaminationRow, Layout, Likelihood, rule_parts

HEADERS = [
    "model",
    "verdict",
    "ROUGE-L guided / general",
    "difference [95% CI]",
    "p",
    "exact / near-exact",
    "recalled (longest)",
    "texts",
    "files layout / likelihood",
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
    "the texts probed (their conversations); files layout / likelihood: their sub-verdicts (the "
    "tables below, with their reasons)."
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

LIKELIHOOD_HEADERS = [
    "model",
    "likelihood",
    "test",
    "published / control",
    "p (alpha)",
    "conversations",
    "texts (too short)",
    "canary",
]
LIKELIHOOD_READING = (
    "The model's log-probability of each published text, read through a route that scores a "
    "given text (Inspect's completions providers with echo). Control test: each conversation's "
    "mean Min-K% Prob (the mean of its lowest 20% token log-probabilities, nats) over its texts, "
    "the published conversations against never-published ones of the same collection "
    "(-T likelihood_control); decoy IDs: how many "
    "of 19 random IDs score the start of a conversation's file at least as high as its real ID, "
    "the published conversations' mean against 9.5, what a model that never read the files "
    "gives. Conversations: published / controls (or decoys each). Canary: the route check, the "
    "mean log-probability of a counting sequence (nats per token). A provider that gives no "
    "log-probability of a given text cannot answer the method: it is left out of the verdict."
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
        f"{_word(c.layout.verdict if c.layout else None)} / "
        f"{_word(c.likelihood.verdict if c.likelihood else None)}",
        "-" if c.seed is None else c.seed,
    ]


def _word(verdict: str | None) -> str:
    """A sub-verdict in the verdicts' table: its word alone (an abstention's reason is noted
    under its method's own table below)."""
    if verdict is None:
        return "not run"
    return CANNOT_DECIDE if is_abstention(verdict) else verdict


def _likelihood_row(model: str, found: Likelihood) -> list[Cell]:
    return [
        model,
        found.verdict,
        found.test,
        f"{number(found.published)} / {number(found.control)}",
        f"{number(found.p_value, 4)} ({number(found.alpha, 2)})",
        f"{found.conversations} / {found.controls}",
        f"{found.texts} ({found.skipped})",
        number(found.canary),
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
    tables = (
        (
            "Contamination: the files-layout probe (-T methods=guided,layout)",
            LAYOUT_HEADERS,
            [_layout_row(r.model, r.contamination.layout) for r in rows if r.contamination.layout],
            LAYOUT_READING,
            ("files layout", "labels"),
        ),
        (
            "Contamination: the likelihood method",
            LIKELIHOOD_HEADERS,
            [
                _likelihood_row(r.model, r.contamination.likelihood)
                for r in rows
                if r.contamination.likelihood
            ],
            LIKELIHOOD_READING,
            ("likelihood",),
        ),
    )
    more = [table for table in tables if table[2]]
    found = [verdicts]
    for i, (title, headers, body, reading, names) in enumerate(more):
        # The overall rule once, under the last table.
        ruled = (*names, "overall") if i == len(more) - 1 else names
        found.append(Table(title, headers, body, f"{reading} {_rules(rows, ruled)}"))
    return found


SECTION = Section("contamination", _tables)
