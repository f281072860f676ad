"""The report's section of third-party labels: the annotators, agreement with the participants,
per mode the self-specific gain and the reviewer's test (docs/third-party.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...score._catalog import label
from ...tools.report._build import Report
from ...tools.report._sections.base import Section
from ...tools.report._table import Table, ci
from ._agreement import Agreement
from ._kappa import COEFFICIENT
from ._report import ReannotationPart
from ._separability import RULE
from ._study import ModeStudy, ThirdPartySection
from ._tasks import TASK_LABELS

if TYPE_CHECKING:  # figures need the `plots` extra
    from ...tools.report._plot import Chart


_LABEL_FIELDS = {
    "mood_shift": "mood shift",
    "binary_observed": "observed behaviour (binary)",
    "binary_preferred": "preferred behaviour (binary)",
    "pairwise": "preferred reply (pairwise)",
    "post_panas": "post-conversation PANAS",
    "four_branch": "Four-Branch",
    "q1_looking_for": "Q1 looking for",
    "q2_emotion_clarity": "Q2 emotion clarity",
    "q3_model_fit": "Q3 model fit",
    "q3_follow_up": "Q3 follow-up",
}


def _task(name: str | None) -> str:
    return TASK_LABELS.get(name, name) if name is not None else "questionnaire"


def _tables(report: Report) -> list[Table]:
    study = report.part(ReannotationPart).third_party
    if study is None:
        return []
    result = [_annotators(study)]
    if study.notes:
        result.append(
            Table(
                "Third-party labels: conversations left out, self-ratings and answers given twice",
                ["file: where: what"],
                [[line] for line in study.notes],
            )
        )
    if study.tied:
        result.append(
            Table(
                "Third-party labels: consensus ties, per conversation",
                ["conversation", "annotators", "mood shift", "binary", "pairwise", "questionnaire"],
                [[cid, *counts.values()] for cid, counts in study.tied.items()],
                "A split vote is no label: a binary judgement becomes na, a comparison or an "
                "emotion is left out, Q2 is not scored; a half-way median goes to the neighbour "
                "nearer the middle of its scale (docs/third-party.md). Every tie and how it was "
                "settled: the JSON report's third_party.ties.",
            )
        )
    if study.agreement:
        result.append(_agreement(study))
    for mode in study.modes:
        result += _third_party_mode(mode)
    return result


def _annotators(study: ThirdPartySection) -> Table:
    sizes = ", ".join(f"{k}: {n}" for k, n in study.annotators_per_conversation.items()) or "none"
    return Table(
        "Third-party labels: annotators and conversations",
        ["annotator", "answer file", "conversations labelled", "own conversations (marked)"],
        [[a.annotator, a.file, a.conversations, a.self_ratings] for a in study.annotators],
        f"{study.labelled} of the {study.logged} conversations the report reads have "
        f"third-party labels (annotators per conversation, k: conversations: {sizes}); "
        f"{len(study.ties)} consensus tie(s). Binary labels from the page's "
        f"{study.phrasing.replace('_', '-')} phrasing. Not given by third-party labels: "
        f"{', '.join(map(label, study.not_covered))} (they need the participant's "
        "pre-conversation PANAS).",
        empty="No answer file gave a complete conversation the report reads: "
        f"{study.labelled} of the {study.logged} conversations have third-party labels.",
    )


def _agreement(study: ThirdPartySection) -> Table:
    return Table(
        "Third-party agreement with the participants, per task (95% bootstrap CI over "
        "conversations)",
        ["labels (task)", "rater", "n", "metric", "value", "kappa", "items"],
        [
            [
                f"{_LABEL_FIELDS.get(a.field, a.field)} ({_task(a.task)})",
                a.rater,
                a.value.n,
                label(a.metric),
                ci(a.value),
                _kappa(a),
                a.items or "-",
            ]
            for a in sorted(study.agreement, key=_agreement_order)
        ],
        "How well an outsider reads the person, over n conversations: the rater's labels scored "
        "against the participant's with the model's metric (value), and chance-corrected where "
        "a chance level exists (kappa: Cohen's on categories; 'weighted': quadratic-weighted, on "
        "the 1-7 ratings and Q3's ordered options; items: what the kappa counts). The kappa's "
        "chance agreement is computed within each item (each PANAS item, binary question, Q1 "
        "option or Four-Branch branch; each comparison's question and pair of replies and which "
        "of the two the page showed earlier), so a rater who answers every item the same way, or "
        "always picks the reply shown earlier, scores 0, and one who copies each item's answers "
        "from other conversations (its base rate) about 0. The follow-up in one's own words has "
        "no fixed categories, so no kappa.",
    )


def _kappa(row: Agreement) -> str:
    if row.coefficient is None:
        return "-"
    weighted = " weighted" if row.coefficient == COEFFICIENT["quadratic"] else ""
    return ci(row.corrected) + weighted


def _agreement_order(row: Agreement) -> tuple[int, str]:
    return (list(_LABEL_FIELDS).index(row.field) if row.field in _LABEL_FIELDS else 99, row.rater)


def _third_party_mode(mode: ModeStudy) -> list[Table]:
    shared = f"{mode.conversations} shared conversations"
    excluded = "; ".join(f"{m}: {why}" for m, why in mode.excluded.items())
    left_out = f" Not ranked: {excluded}." if excluded else ""
    test = mode.test
    tables = [
        Table(
            f"Self vs third-party labels ({mode.mode}): per-task scores and the self-specific "
            f"gain ({shared}, paired 95% bootstrap CI)",
            ["model", "task", "conversations", "self labels", "third-party labels", "gain"],
            [
                [g.model, _task(g.task), g.gain.n, ci(g.own), ci(g.third), ci(g.gain)]
                for g in mode.gains
            ],
            "Gain = score against the participants' own labels - score against the third "
            "parties' consensus, on the same conversations and items: > 0, the model reads these "
            "people better than an outsider's reading of the same conversation predicts. Judged "
            "response quality reads no label (the judge's reference is the participant's edited "
            f"reply): its gain is 0 by construction.{left_out}",
            empty=f"No evaluated model shares a conversation with the third-party labels in this "
            f"mode ({shared}).{left_out}",
        ),
        Table(
            f"The reviewer's test ({mode.mode}): do the task rankings converge under "
            "third-party labels?",
            ["verdict", "models", "shared conversations", "reading"],
            [[test.verdict, len(test.models), test.conversations, test.reading]],
            f"{RULE[0].upper()}{RULE[1:]}.",
        ),
    ]
    if test.information:
        tables.append(_information(mode))
    return [*tables, *_rho_tables(mode), _pair_table(mode)] if test.pairs else tables


def _information(mode: ModeStudy) -> Table:
    """The rule's information condition: the consensus's kappa per label field of each task."""
    return Table(
        f"The reviewer's test ({mode.mode}): do the third parties read the participants? "
        f"(the consensus's kappa within items, 95% CI, {mode.conversations} shared "
        "conversations)",
        ["task", "labels", "kappa", "informative"],
        [
            [
                _task(task),
                _LABEL_FIELDS.get(name, name),
                ci(kappa),
                "yes" if k.informative else "no",
            ]
            for task, k in mode.test.information.items()
            for name, kappa in k.kappas.items()
        ],
        "A task's pairs are tested only where every label field of it reads the participants "
        "above chance (the interval's lower end above 0): rankings that fail to converge, or "
        "converge, under labels that carry no information about the person say nothing about "
        "self-annotation.",
    )


def _rho_tables(mode: ModeStudy) -> list[Table]:
    test = mode.test
    names = [_task(t) for t in test.tasks]
    tables = []
    for side, title in (("own", "self labels"), ("third", "third-party labels")):
        # Each pair under both orders: the matrix is symmetric.
        cells = {t: getattr(p, side) for p in test.pairs for t in (p.tasks, p.tasks[::-1])}
        tables.append(
            Table(
                f"The reviewer's test ({mode.mode}): Spearman rho between the tasks' model "
                f"rankings under {title} (95% bootstrap CI, {len(test.models)} models, "
                f"{mode.conversations} shared conversations)",
                ["task", *names],
                [
                    [names[i], *("1" if a == b else ci(cells[a, b], 2) for b in test.tasks)]
                    for i, a in enumerate(test.tasks)
                ],
            )
        )
    return tables


def _pair_table(mode: ModeStudy) -> Table:
    test = mode.test
    untested = ("not separable under self labels", "no information")
    tested = sum(p.status not in untested for p in test.pairs)
    return Table(
        f"The reviewer's test ({mode.mode}): each pair of tasks",
        [
            "tasks",
            "rho, self labels",
            "rho, third-party labels",
            "rise (third-party - self)",
            f"rise, CI at 1 - 0.05/{max(tested, 1)}",
            "status",
        ],
        [
            [
                f"{_task(p.tasks[0])} / {_task(p.tasks[1])}",
                ci(p.own, 2),
                ci(p.third, 2),
                ci(p.change, 2),
                ci(p.change_corrected, 2),
                p.status,
            ]
            for p in test.pairs
        ],
        "The intervals resample conversations (the same draws for both label sets): they say "
        "how sure the rankings of these models are, not how other models would rank.",
    )


def _charts(report: Report, mode: str) -> Iterator[Chart]:
    from ...tools.report._plot import Chart
    from ._charts import third_party

    found = report.part(ReannotationPart).third_party
    studied = found.modes if found else []
    for study in (s for s in studied if s.mode == mode and s.gains):
        yield Chart(f"third_party_{mode}", mode, third_party(study))


SECTION = Section("third_party", _tables, _charts)
