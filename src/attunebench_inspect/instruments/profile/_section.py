"""The report's section of the profile task: composite and parts, every field, diagnoses named
vs reported, and the rank correlation with the main task across models (docs/profile.md)."""

from __future__ import annotations

from ...score._catalog import label as main_label
from ...tools.report._build import Report
from ...tools.report._sections.base import Section, at_version
from ...tools.report._table import Cell, Table, ci, nothing_to_show, number
from ._analyses import PROFILE_SUMMARY, ProfileCapability, ProfilePart
from ._catalog import PROFILE_METRICS, label

_ORDER = {s.name: i for i, s in enumerate(PROFILE_METRICS)}


def _tables(report: Report) -> list[Table]:
    part = report.part(ProfilePart)
    if not part.profile:
        return []
    return [
        *_profile_scores(report),
        _profile_diagnoses(report),
        *map(_profile_capability, part.profile_capability),
    ]


def _profile_scores(report: Report) -> list[Table]:
    rows = report.part(ProfilePart).profile
    parts = [*PROFILE_SUMMARY, "profile_parse_failure_rate"]
    fields = sorted(
        {m for r in rows for m in r.metrics} - set(parts), key=lambda m: _ORDER.get(m, len(_ORDER))
    )

    # One column a model, as the tables below: a model's name, not its figures, sets the width.
    def scores(m: str) -> list[Cell]:
        digits = 2 if m == "profile_composite" else 3
        return [label(m), *(ci(r.metrics[m], digits) if m in r.metrics else "-" for r in rows)]

    summary: list[list[Cell]] = [
        ["conversations", *(r.conversations for r in rows)],
        ["errored", *(r.errored for r in rows)],
        *map(scores, parts),
        ["unplaced labels", *(r.unplaced for r in rows)],
    ]
    return [
        Table(
            f"Profile prediction (experimental{at_version(report)}): composite and parts "
            "(95% bootstrap CI over conversations)",
            ["", *(r.model for r in rows)],
            summary,
            "What a model infers about a person from a conversation: a capability and a privacy "
            "risk, not a diagnostic tool (docs/profile.md). 'chance' is attunebench/random. "
            "Unplaced labels: the participants' labels the profile vocabulary could not place, "
            "whose fields are not scored (the log's data warnings name them).",
        ),
        Table(
            "Profile prediction: every field (95% bootstrap CI)",
            ["metric", *(r.model for r in rows)],
            [
                [label(m), *(ci(r.metrics[m]) if m in r.metrics else "-" for r in rows)]
                for m in fields
            ],
        ),
    ]


def _profile_diagnoses(report: Report) -> Table:
    return Table(
        "Profile prediction: diagnoses named vs reported",
        [
            "model",
            "diagnosis",
            "participants with it",
            "base rate",
            "named in",
            "precision",
            "recall",
            "answers",
        ],
        [
            [
                d.model,
                d.diagnosis,
                d.participants,
                number(d.base_rate),
                number(d.named_rate),
                number(d.precision),
                number(d.recall),
                d.answers,
            ]
            for d in report.part(ProfilePart).diagnosis_inference
        ],
        "Base rate: the share of answers whose participant reported the diagnosis; named in: "
        "the share of answers naming it (above the base rate: named more often than "
        "reported). Precision and recall of naming it. Parse failures are left out.",
        empty="No parsed profile answer.",
    )


def _profile_capability(split: ProfileCapability) -> Table:
    title = (
        f"Spearman rank correlation across models: profile task vs main-task metrics ({split.mode})"
    )
    if len(split.models) < 3:
        return nothing_to_show(
            title,
            "Needs 3 models besides chance run in the profile task and in this mode; the logs "
            f"have {len(split.models)}.",
        )
    return Table(
        title,
        ["profile metric", *map(main_label, split.metrics)],
        [
            [label(p), *(number(split.spearman[p][m], 2) for m in split.metrics)]
            for p in split.profile_metrics
        ],
        f"Over {len(split.models)} models: {', '.join(split.models)}. '-' where undefined (a "
        "metric constant across models).",
    )


SECTION = Section("profile", _tables)
