"""A third-party study from a report's logs: the answer files read as labels of the conversations
the logs hold, every model run scored again against them, and the analyses of the report's
"Third-party labels" section (`ThirdPartySection`). No model is called; the label reader is handed
the visible parts and the participant IDs only (`load_third_party`), and the participant's labels
meet the third parties' only in the scoring (`rescore_pair`) and the agreement."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from inspect_ai.log import EvalSample, read_eval_log_sample
from inspect_ai.util import Store

from ..._util.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED
from ...data._codebook import Codebook
from ...data._problems import Problems
from ...data._samples import truth_of, visible_of
from ...data._split import GroundTruth, VisibleConversation
from ...solve._store import read_walk
from ...tools.report._logs import Run
from ...tools.report._run_table import mean_dicts
from ._agreement import Agreement, agreement, task_information
from ._consensus import Consensus, consensus_all, ties_of
from ._labels import NOT_COVERED_METRICS, Phrasing, ThirdParty, load_third_party
from ._rescore import rescore_pair
from ._separability import RULE, SeparabilityTest, reviewers_test
from ._tasks import TASKS, Gain, excluded_from_ranking, self_specific_gains, task_scores

UNREAD_SAMPLE_FIELDS = {"events", "messages", "attachments", "output", "model_usage", "role_usage"}
"""What rescoring does not read of a sample (its metadata and store are all it needs)."""
SELF, THIRD_PARTY = "self", "third_party"
"""The two label sets a run is scored against (`third_party_df`'s `labels` column)."""

Values = dict[str, float]


class ThirdPartyError(Problems):
    """Answer files, identities or logs that cannot be used together, one located line each."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__(problems, "the third-party labels")


@dataclass(frozen=True)
class RunValues:
    """One run against both label sets: conversation -> (self, third-party) epoch-mean values."""

    model: str
    mode: str
    log: str
    conversations: dict[str, tuple[Values, Values]]


@dataclass(frozen=True)
class Rescored:
    """The labels read from the answer files, their consensus, and every run rescored."""

    files: tuple[str, ...]
    third: ThirdParty
    consensus: dict[str, Consensus]
    participants: dict[str, GroundTruth]
    """The participants' own labels of the conversations the logs hold."""
    logged: int
    """How many conversations the logs hold (of those `--where` selects)."""
    runs: list[RunValues]


def _sample(run: Run, sample_id: str, epoch: int, *unread: str) -> EvalSample:
    return read_eval_log_sample(
        run.location, sample_id, epoch, exclude_fields={*UNREAD_SAMPLE_FIELDS, *unread}
    )


@dataclass
class _Held:
    """What the runs hold: each conversation's first run and epoch that scored it (where its
    visible part and labels are read), its participant ID, every run's scored epochs of it, and
    the conversations a filter left out."""

    first: dict[str, tuple[Run, int]] = field(default_factory=dict)
    participant_ids: dict[str, str] = field(default_factory=dict)
    epochs_of: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    unselected: set[str] = field(default_factory=set)


def _held(runs: Sequence[Run], only: Mapping[str, set[str]] | None) -> _Held:
    held = _Held()
    for run in runs:
        keep = None if only is None else only.get(run.location, set())
        for row in run.scored():
            cid = str(row.id)
            if keep is not None and cid not in keep:
                held.unselected.add(cid)
                continue
            held.first.setdefault(cid, (run, row.epoch))
            held.epochs_of.setdefault((run.location, cid), []).append(row.epoch)
            held.participant_ids.setdefault(cid, str(row.metadata.get("participant_id", "")))
    return held


def _run_values(
    run: Run,
    held: _Held,
    agreed: Mapping[str, Consensus],
    participants: Mapping[str, GroundTruth],
    codebook: Codebook,
) -> RunValues:
    """One run scored against the participants and the consensus, epochs averaged."""
    values: dict[str, tuple[Values, Values]] = {}
    for cid in sorted(agreed):
        pairs = [
            rescore_pair(
                participants[cid],
                agreed[cid].labels,
                read_walk(Store(dict(_sample(run, cid, epoch).store))),
                q3_options=codebook.q3_options,
            )
            for epoch in held.epochs_of.get((run.location, cid), [])
        ]
        if pairs:
            values[cid] = (mean_dicts([p[0] for p in pairs]), mean_dicts([p[1] for p in pairs]))
    return RunValues(run.model, run.mode, run.location, values)


def rescore_runs(
    runs: Sequence[Run],
    answers: Sequence[str | Path],
    codebook: Codebook,
    *,
    identities: Mapping[str, str] | None = None,
    phrasing: Phrasing = "observer",
    only: Mapping[str, set[str]] | None = None,
) -> Rescored:
    """Every answer file read as labels of the conversations `runs` hold (of their scored samples;
    `only`: log location -> the conversations to keep), and every run scored again against the
    consensus. `ThirdPartyError` lists every problem that stops it, one line each."""
    problems = [
        f"{run.location}: codebook_sha256: found {found}; expected {codebook.sha256} (the "
        f"codebook the answer files are read with, {codebook.path}: pass the runs' codebook)"
        for run in runs
        if (found := (run.header.eval.metadata or {}).get("codebook_sha256")) != codebook.sha256
    ]
    held = _held(runs, only)
    visible: dict[str, VisibleConversation] = {}
    participants: dict[str, GroundTruth] = {}
    for cid, (run, epoch) in sorted(held.first.items()):
        metadata = dict(_sample(run, cid, epoch, "store").metadata)
        visible[cid], participants[cid] = visible_of(metadata), truth_of(metadata)
    third = load_third_party(
        answers,
        visible,
        held.participant_ids,
        codebook,
        identities=identities,
        phrasing=phrasing,
        unselected=held.unselected - set(held.first),
    )
    problems += third.problems
    if problems:
        raise ThirdPartyError(problems)
    agreed = consensus_all(third, codebook)
    rescored = [_run_values(run, held, agreed, participants, codebook) for run in runs]
    return Rescored(
        tuple(str(a) for a in answers), third, agreed, participants, len(held.first), rescored
    )


# --- the report's section --------------------------------------------------------------------


@dataclass(frozen=True)
class AnnotatorRow:
    annotator: str
    file: str
    conversations: int
    """Conversations the annotator labelled in full, of those the logs hold."""
    self_ratings: int
    """Of them, the annotator's own (marked, left out of the consensus)."""


@dataclass(frozen=True)
class ModeStudy:
    """One mode's runs against both label sets."""

    mode: str
    models: list[str]
    """The ranked models: runs of evaluated models."""
    excluded: dict[str, str]
    """Runs of the mode that are not ranked, and why."""
    conversations: int
    """Shared conversations: those every ranked model and the third parties have."""
    gains: list[Gain]
    test: SeparabilityTest


@dataclass(frozen=True)
class ThirdPartySection:
    """The report's "Third-party labels" section (JSON: `third_party`)."""

    files: list[str]
    phrasing: str
    annotators: list[AnnotatorRow]
    logged: int
    """Conversations the logs hold."""
    labelled: int
    """Of them, conversations with a third-party consensus (self-ratings left out)."""
    annotators_per_conversation: dict[int, int]
    """How many conversations have a consensus of k annotators: k -> count."""
    notes: list[str]
    """What was left out and why, and every self-rating: one located line each."""
    ties: list[str]
    """Every consensus tie and how it was settled, one line each."""
    tied: dict[str, dict[str, int]]
    """Per conversation with ties: its annotators, and its ties by kind of label."""
    agreement: list[Agreement]
    modes: list[ModeStudy]
    rule: str = RULE
    tasks: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(TASKS))
    not_covered: dict[str, str] = field(default_factory=lambda: dict(NOT_COVERED_METRICS))
    """Metrics third-party labels cannot give, and why (left out of every third-party value)."""


TIE_KINDS = ("mood_shift", "binary", "pairwise")
"""Turn labels a tie is counted under; any other (the questionnaire) is "questionnaire"."""


def _tied(found: Mapping[str, Consensus]) -> dict[str, dict[str, int]]:
    tied: dict[str, dict[str, int]] = {}
    for cid in sorted(found):
        kinds = Counter(
            next((k for k in TIE_KINDS if f".{k}." in f".{t.where}"), "questionnaire")
            for t in found[cid].ties
        )
        if kinds:
            annotators = {"annotators": len(found[cid].annotators)}
            tied[cid] = annotators | {k: kinds[k] for k in (*TIE_KINDS, "questionnaire")}
    return tied


def _mode_study(
    mode: str, rescored: Rescored, codebook: Codebook, draws: Mapping[str, int]
) -> ModeStudy:
    """One mode's gains and reviewer's test (with its information condition), on shared ones."""
    runs = [r for r in rescored.runs if r.mode == mode]
    excluded = {r.model: why for r in runs if (why := excluded_from_ranking(r.model)) is not None}
    ranked = [r for r in runs if r.model not in excluded]
    shared = set.intersection(*(set(r.conversations) for r in ranked)) if ranked else set()
    scores = task_scores(
        {r.model: {c: v for c, v in r.conversations.items() if c in shared} for r in ranked}
    )
    consensus = [rescored.consensus[c].labels for c in sorted(shared)]
    information = task_information(rescored.participants, consensus, codebook, **draws)
    gains = self_specific_gains(scores, **draws) if shared else []
    test = reviewers_test(scores, information, **draws)
    return ModeStudy(mode, [r.model for r in ranked], excluded, len(shared), gains, test)


def third_party_section(
    rescored: Rescored,
    codebook: Codebook,
    *,
    phrasing: Phrasing = "observer",
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> ThirdPartySection:
    """The analyses of a third-party study (the report's "Third-party labels" section)."""
    third = rescored.third
    files = {s.annotator: s.source for s in third.labels}
    labelled = Counter(s.annotator for s in third.labels)
    own = Counter(s.annotator for s in third.labels if s.self_rating)
    annotators = [AnnotatorRow(a, files[a], labelled[a], own[a]) for a in sorted(files)]
    label_sets = [*third.labels, *(c.labels for c in rescored.consensus.values())]
    modes = sorted({r.mode for r in rescored.runs})
    draws = {"resamples": resamples, "seed": seed}
    return ThirdPartySection(
        files=list(rescored.files),
        phrasing=phrasing,
        annotators=annotators,
        logged=rescored.logged,
        labelled=len(rescored.consensus),
        annotators_per_conversation=dict(
            sorted(Counter(len(c.annotators) for c in rescored.consensus.values()).items())
        ),
        notes=list(third.notes),
        ties=ties_of(rescored.consensus),
        tied=_tied(rescored.consensus),
        agreement=agreement(rescored.participants, label_sets, codebook, **draws),
        modes=[_mode_study(mode, rescored, codebook, draws) for mode in modes],
    )
