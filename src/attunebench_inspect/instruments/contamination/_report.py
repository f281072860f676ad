"""The contamination probe's runs in the report: per model, the verdict and the figures it
reads, beside that model's Composite (docs/contamination.md).

A probe run is read from its log header alone: the verdict's metrics (`contamination_verdict`)
and the task metadata (the rule, the seed, the method's parameters). It is a run's verdict over
every text it probed, so `--where` does not filter it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

from ..._util.bootstrap import Interval
from ...tools._instrument import Reported
from ...tools.report._build import Beside, Part, Scope
from ...tools.report._logs import Run, RunInfo
from ...tools.report._run_table import model_label
from ._dataset import METHOD_KEY, METHODS_KEY
from ._likelihood import LikelihoodVerdict
from ._likelihood_route import is_control
from ._rules import LIKELIHOOD, decide
from ._scorer import SCORER
from ._verdict import ProbeVerdict

PROBE_TASK = "contamination"
"""How reports name the probe's runs where the main task names its mode."""
NOT_PROBED = "not probed"
OTHER_CONVERSATIONS = "other conversations"
"""What the leaderboard's column adds where a verdict and a Composite cover different
conversations (the section says how they differ)."""


@dataclass(frozen=True)
class Contamination:
    """A probe run's verdict and what it reads: the guided probe's figures are its `Verdict`'s
    (`_rules.py`), which say what each is."""

    verdict: str
    """suspected, not suspected, or cannot decide: <reason>."""
    rule: str
    guided_rouge_l: float
    general_rouge_l: float
    difference: Interval
    p_value: float
    exact: int
    near_exact: int
    general_exact: int
    general_near_exact: int
    recalled: int
    longest_recall: int
    instances: int
    empty_completions: int
    conversations: int
    seed: int | None
    data: str
    probed: tuple[str, ...] = ()
    """The IDs of the conversations probed, sorted."""
    methods: tuple[str, ...] = ("guided",)
    layout: Layout | None = None
    """The files-layout probe's sub-verdict and figures, where it ran."""
    likelihood: Likelihood | None = None
    """The likelihood method's sub-verdict and figures, where it ran."""


@dataclass(frozen=True)
class Likelihood:
    """The likelihood method's sub-verdict and what it reads: `LikelihoodVerdict`'s figures
    (`_likelihood.py`, which says what each is), and how the log states its test."""

    verdict: str
    test: str
    """"control" (never-published conversations) or "decoy IDs"."""
    published: float
    control: float
    p_value: float
    conversations: int
    controls: int
    texts: int
    skipped: int
    canary: float
    statistic: str
    """What each conversation is scored by (the method's metadata: Min-K% Prob, or decoy ranks)."""
    alpha: float
    """The test's alpha, as the log records it."""


@dataclass(frozen=True)
class Layout:
    """The files-layout probe's sub-verdict and what it reads."""

    verdict: str
    recalled: int
    control_recalled: int
    longest: int
    control_longest: int
    instances: int
    labels: Labels | None = None
    """The label cut's sub-verdict and figures (None in a log written before it)."""


@dataclass(frozen=True)
class Labels:
    """The files-layout probe's label cut: its sub-verdict and what it reads (`_labels.py`)."""

    verdict: str
    match: float
    control_match: float
    reproduced: int
    scored: int
    instances: int


@dataclass(frozen=True)
class ContaminationRow:
    """One model: its probe's verdict, and its Composite in each mode it was run in."""

    model: str
    contamination: Contamination
    composite: dict[str, Interval] = field(default_factory=dict)
    coverage: dict[str, str] = field(default_factory=dict)
    """By mode, where the probe's conversations are not the Composite's: what each covers."""


def coverage(probed: frozenset[str], scored: frozenset[str]) -> str | None:
    """Where a verdict and a Composite read different conversations, what each covers (None
    where they read the same): a verdict says nothing of conversations it did not probe."""
    if probed == scored:
        return None
    return (
        f"the probe read {len(probed)} conversation(s), the Composite {len(scored)}, "
        f"{len(probed & scored)} in both"
    )


def contamination_of(run: Run) -> Contamination:
    """The verdict of a probe run, from its log header (`ProbeVerdict.from_metrics`)."""
    results = run.header.results
    score = next((s for s in results.scores if s.name == SCORER), None) if results else None
    found = ProbeVerdict.from_metrics(
        {k: m.value for k, m in score.metrics.items()} if score else {}, run.model
    )
    metadata = run.header.eval.metadata or {}
    seed = metadata.get("seed")
    shown = (found.guided if found else None) or decide([])
    samples = run.samples
    probed = sorted(str(s.id) for s in samples if not is_control(s.metadata))
    labels = found.labels if found else None
    return _copy(
        Contamination,
        shown,
        verdict=found.reading if found else "unreadable (no verdict in the log's metrics)",
        rule=_rule(metadata.get(METHOD_KEY) or {}, metadata),
        empty_completions=shown.evidence.empty,
        conversations=(results.completed_samples if results else 0) - (len(samples) - len(probed)),
        seed=seed if isinstance(seed, int) else None,
        data=str(metadata.get("data", "")),
        probed=tuple(probed),
        methods=tuple(metadata.get(METHODS_KEY) or ("guided",)),
        layout=(
            _copy(Layout, found.layout, labels=_copy(Labels, labels) if labels else None)
            if found and found.layout
            else None
        ),
        likelihood=(
            _likelihood(found.likelihood, metadata.get(METHOD_KEY) or {})
            if found and found.likelihood
            else None
        ),
    )


RULED = ("guided", "files layout", "labels", LIKELIHOOD, "overall")
"""The methods and cuts a verdict's rule names, in the order it states them."""


def _rule(method: dict[str, object], metadata: dict[str, object]) -> str:
    """The rule of the verdict as the log states it: the guided probe's alone, or the rule of
    each method run and the overall rule (`rule_parts` reads them back)."""
    rule = str(method.get("rule", ""))
    methods = metadata.get(METHODS_KEY)
    if not isinstance(methods, list) or methods == ["guided"]:
        return rule
    test = "control" if metadata.get("likelihood_control") else "decoy"
    parts = {
        "guided": rule if "guided" in methods else None,
        "files layout": method.get("layout_rule", "") if "layout" in methods else None,
        "labels": method.get("labels_rule") if "layout" in methods else None,
        LIKELIHOOD: method.get(f"likelihood_{test}_rule") if LIKELIHOOD in methods else None,
        "overall": method.get("overall_rule", ""),
    }
    return "; ".join(f"{name}: {text}" for name, text in parts.items() if text is not None)


def rule_parts(rule: str) -> dict[str, str]:
    """A verdict's rule by the method or cut it names (`RULED`), as `_rule` joined them; a rule
    of the guided probe alone is the guided rule."""
    split = re.split(f"(?:^|; )({'|'.join(RULED)}): ", rule)
    if len(split) == 1:
        return {"guided": rule} if rule else {}
    return dict(zip(split[1::2], split[2::2], strict=True))


_Record = TypeVar("_Record", Contamination, Layout, Labels, Likelihood)


def _copy(record: type[_Record], figures: object, **given: Any) -> _Record:
    """`record` with `given`, its other fields read from the verdict's `figures` of the same
    name (`verdict` from their `reading`)."""
    read = {
        f.name: getattr(figures, "reading" if f.name == "verdict" else f.name)
        for f in fields(record)
        if f.name not in given
    }
    return record(**read, **given)


def _likelihood(v: LikelihoodVerdict, method: dict[str, object]) -> Likelihood:
    alpha = method.get("alpha")
    return _copy(
        Likelihood,
        v,
        test="control" if v.control_test else "decoy IDs",
        statistic=(
            str(method.get("likelihood_statistic", ""))
            if v.control_test
            else f"rank of the real ID among {v.controls} decoys"
        ),
        alpha=float(alpha) if isinstance(alpha, (int, float)) else math.nan,
    )


@dataclass(frozen=True)
class ContaminationPart(Part):
    contamination: list[ContaminationRow]
    """One row per model probed for contamination: the verdict beside its Composite."""

    def alone(self) -> bool:
        return bool(self.contamination)

    def beside(self) -> list[Beside]:
        """Each probed model's verdict, beside its Composite on the leaderboard (none where no
        model was probed)."""
        if not self.contamination:
            return []
        # The verdict's word; a "cannot decide" says why in the section below.
        verdicts = {
            c.model: c.contamination.verdict.partition(": ")[0]
            + (f" ({OTHER_CONVERSATIONS})" if c.coverage else "")
            for c in self.contamination
        }
        return [
            Beside(
                "contamination",
                verdicts,
                NOT_PROBED,
                "Contamination: the probe's verdict (below, with the reason of a cannot decide); "
                f"'{OTHER_CONVERSATIONS}': the probe did not read the conversations the Composite "
                "did, and says nothing of those it did not read.",
            )
        ]


def contamination_part(scope: Scope) -> Reported:
    """Every probe run's verdict beside its model's Composite in each mode (and what each covers
    where they differ), and the probe runs."""
    probes = [r for r in scope.runs if METHOD_KEY in (r.header.eval.metadata or {})]
    scored = {(t.label, t.mode): frozenset(t.ids) for t in scope.tables}
    rows = []
    for run in probes:
        label, found = model_label(run.model), contamination_of(run)
        mine = [row for row in scope.main.leaderboard if row.model == label]
        differs = {
            r.mode: coverage(frozenset(found.probed), scored.get((label, r.mode), frozenset()))
            for r in mine
        }
        rows.append(
            ContaminationRow(
                label,
                found,
                {r.mode: r.composite for r in mine},
                {mode: text for mode, text in differs.items() if text is not None},
            )
        )
    version = scope.main.task_version
    return Reported(
        ContaminationPart(rows),
        [
            RunInfo(c.model, PROBE_TASK, r.task, c.contamination.conversations, r.location, version)
            for c, r in zip(rows, probes, strict=True)
        ],
    )
