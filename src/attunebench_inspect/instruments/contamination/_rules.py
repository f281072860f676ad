"""The contamination probe's rules, all of them, fixed before any data is seen: the thresholds of
its measures, the sentences printed beside each verdict, and the deciders that read a run's
instances (pure: no Inspect). docs/contamination.md states each rule with its sources and its
departures from Golchin & Surdeanu ("What it does", "The files-layout probe", "When it cannot
decide", "Where we depart from the paper"); the measures themselves are `_overlap.py` (ROUGE-L,
exact and near-exact, the echo), `_recall.py` (a run of another published text) and
`_labels.py` (a written label's match).

Every decider reads its instances in the order given: the metric gives them by conversation ID,
then in the conversation's order, so a saved log recomputes its own figures exactly. Instances are
treated as independent draws, as in the paper; texts of one conversation share an author and a
topic, which the verdicts do not model (hence `MIN_CONVERSATIONS`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from ..._util.bootstrap import DEFAULT_SEED, EMPTY, Interval, mean_ci
from ..._util.verdict import cannot_decide

NEAR_EXACT_ROUGE_L = 0.75
"""A near-exact match reads at least this ROUGE-L over the reference's length (Ippolito et al.,
INLG 2023)."""
ECHO_MIN_WORDS = 4
"""A word of a completion in a run of at least this many words that stands in its prompt is
shown: an echo where the reference does not hold the run (heuristics 1 and 2), never recall
(heuristic 3)."""
RECALL_RUN_WORDS = 13
"""A completion recalls another published text when it shares a run of this many unshown words
with it (Brown et al.'s n-gram length, 2020)."""
RECALL_NEEDED = 2
"""Recalled completions (guided or general) that make heuristic 3 hold."""
ALPHA = 0.01
"""Heuristic 1's significance level (one-sided), and the label cut's: the verdict fires on any
heuristic, so each alone stays well inside the 5% false-positive rate the probe is held to."""
PERMUTATIONS = 10_000
"""Random sign patterns of heuristic 1's test where there are more than 2**13 of them."""
EXACT_NEEDED = 1
NEAR_EXACT_NEEDED = 2
MIN_INSTANCES = 10
"""Instances (and instances whose two completions carry text) a negative needs: the paper's
sample per partition."""
MIN_CONVERSATIONS = 2
"""Conversations a negative needs: the texts of one conversation share an author and a topic,
so one conversation is one draw, however many texts it has."""
MIN_TEXT_SHARE = 0.5
"""The share of instances whose two completions must carry text for a negative."""
MAX_ONE_ANSWER_SHARE = 0.5
"""A model that answers one same text to more than this share of the completions that carry
text answers one thing: its completions say nothing about the texts."""
CI_LEVEL = 0.95
LABELS_NEEDED = 2
"""Document continuations that must reproduce every label field they write (the label cut)."""

GUIDED = "guided"
LAYOUT = "layout"
LIKELIHOOD = "likelihood"
METHODS = (GUIDED, LAYOUT, LIKELIHOOD)
"""The probe's methods (`-T methods=`), in the order their sub-verdicts are read."""
DEFAULT_METHODS = f"{GUIDED},{LIKELIHOOD}"
"""What `-T methods` runs unless told: every method that any provider can answer without
reading cannot decide for a model that merely does not write the files back. The guided probe
needs only chat; the likelihood method runs where the provider scores a given text and is left
out of the verdict elsewhere (`overall`). The files-layout probe is asked for by name: its label
cut reads cannot decide for every model that does not continue the files' layout (every chat
model that answers in prose), and it costs four calls per turn (docs/contamination.md)."""
NO_TEXT_LOGPROBS = "gives no log-probability of a given text"
"""Why the likelihood method cannot be answered by a provider: its sub-verdict reads `cannot
decide: <provider> gives no ...`, and the overall verdict leaves it out."""
SUSPECTED = "suspected"
NOT_SUSPECTED = "not suspected"
TEXT = "text"
LABEL_FIELDS = "label fields"
"""What a completion must carry to count in the abstention table: the label cut's carry label
fields."""

Match = Literal["exact", "near_exact", "none"]

RULE = (
    f"suspected if the guided completions hold at least {EXACT_NEEDED} exact or at least "
    f"{NEAR_EXACT_NEEDED} near-exact match(es) (ROUGE-L >= {NEAR_EXACT_ROUGE_L}; echoes of the "
    f"prompt that the reference does not hold removed) of texts whose general completion "
    f"matches neither way, or at least "
    f"{RECALL_NEEDED} completions (guided or general) write out a run of {RECALL_RUN_WORDS}+ words "
    f"of another published text of their conversation that the prompt did not show, at any number "
    f"of instances; "
    f"else cannot decide with no instance, fewer than {MIN_CONVERSATIONS} conversations, fewer "
    f"than {MIN_INSTANCES} instances, fewer than {MIN_INSTANCES} (or under "
    f"{MIN_TEXT_SHARE:.0%} of the) instances whose two completions carry text (not empty, not "
    f"cut at the length limit), or one same answer to over {MAX_ONE_ANSWER_SHARE:.0%} of the "
    f"completions that carry text; else "
    f"suspected if mean guided ROUGE-L exceeds mean general ROUGE-L by a one-sided paired "
    f"sign-flip permutation test over instances at alpha {ALPHA}; else not suspected"
)
"""The guided probe's verdict, as it is printed beside the verdict."""
LAYOUT_RULE = (
    f"suspected if at least {RECALL_NEEDED} completions of the documents write out a run of "
    f"{RECALL_RUN_WORDS}+ words of a published text of their conversation that the prompt did "
    f"not show, and more than of the control documents; else cannot decide by the same "
    f"abstention table (the document's completion and its control's as the pair; a completion cut "
    f"at the length limit still carries text); else not "
    f"suspected"
)
"""The files-layout probe's sub-verdict (`_layout.py`)."""
LABELS_RULE = (
    f"suspected if the documents' mean label match (each turn's label fields written after its "
    f"response, against the participant's labels: emotion tags by Jaccard of names, binary "
    f"answers and pairwise winners by share equal, averaged over the fields written) exceeds the "
    f"never-published controls' (scored against the same labels) by a one-sided paired sign-flip "
    f"permutation test at alpha {ALPHA} (instances where either writes a label field, the other's "
    f"missing score 0) and at least {LABELS_NEEDED} document continuations reproduce every label "
    f"field they write; else cannot decide by the same abstention table (a continuation that "
    f"writes no label field as empty); else not suspected"
)
"""The files-layout probe's label sub-verdict (`_labels.py`)."""
OVERALL_RULE = (
    "suspected if any method's sub-verdict is suspected; else cannot decide if any method the "
    "provider can answer cannot decide (its reason); else not suspected. A method the provider "
    f"cannot answer (the likelihood method, where the provider {NO_TEXT_LOGPROBS}) is left out, "
    "its sub-verdict saying why: the verdict reads as if it had not run; where it cannot answer "
    "any method run, cannot decide"
)
"""How the verdict reads the sub-verdicts of the methods run (one method alone: its own)."""


# --- the likelihood method (_likelihood.py) ---------------------------------------------------

K_SHARE = 0.2
"""Min-K% Prob's share of lowest-probability tokens (Shi et al.'s recommended k = 20%)."""
MIN_TOKENS = 16
"""Token log-probabilities a text needs to be scored (a short text's 20% is a token or two)."""
DECOYS = 19
"""Random UUIDs each conversation's real ID is ranked among (20 IDs: a rank p of 1/20 each)."""
CANARY_FLOOR = -1.0
"""The canary's least mean log-probability (nats per token) from its CANARY_SKIP-th token on."""

LIKELIHOOD_METHOD = "Min-K% Prob (Shi et al., ICLR 2024), k = 20%"
_ROUTE = (
    f"cannot decide where the provider returns no log-probability of a given text (left out of "
    f"the overall verdict), where its log-probabilities fail the route check (mean under "
    f"{CANARY_FLOOR} nats per token on a counting sequence)"
)
CONTROL_RULE = (
    f"control test: each published text's {LIKELIHOOD_METHOD}: the mean of its lowest "
    f"{K_SHARE:.0%} token log-probabilities (texts with at least {MIN_TOKENS}), averaged per "
    f"conversation; "
    f"{_ROUTE}, with fewer than {MIN_CONVERSATIONS} published or control conversations scored, "
    f"or where no arrangement can reach alpha {ALPHA}; else suspected if the published "
    f"conversations' mean exceeds the never-published control conversations' by a one-sided "
    f"two-sample permutation test over conversations at alpha {ALPHA}; else not suspected"
)
"""The control test's rule as it is printed beside its verdict."""
DECOY_RULE = (
    f"decoy-ID test: each conversation's document start in the files' layout scored under its "
    f"real ID and {DECOYS} random UUIDs (the log-probability of the tokens after the ID line); "
    f"{_ROUTE}, where a conversation ID is not a random UUID (version 4), or where no outcome "
    f"can reach alpha {ALPHA} (fewer than 2 conversations); else suspected if the real IDs rank "
    f"above their decoys by the exact test of the sum of ranks at alpha {ALPHA}; else not suspected"
)
"""The decoy-ID test's rule as it is printed beside its verdict."""


def overall(readings: Sequence[tuple[str, str]]) -> str:
    """The verdict from each method's (name, sub-verdict), by `OVERALL_RULE`; a single method's
    own verdict where it alone ran. A method the provider cannot answer says nothing of the
    model: with the likelihood method run by default, it would otherwise make every chat model's
    verdict cannot decide."""
    answered = [(m, r) for m, r in readings if not r.endswith(NO_TEXT_LOGPROBS)]
    if answered and len(answered) < len(readings):
        # Left out: the verdict reads as if the method had not run.
        return overall(answered)
    if len(readings) == 1:
        return readings[0][1]
    if any(r == SUSPECTED for _, r in readings):
        return SUSPECTED
    for method, reading in readings:
        if reading != NOT_SUSPECTED:
            return cannot_decide(f"{method}: {reading.removeprefix('cannot decide: ')}")
    return NOT_SUSPECTED


@dataclass(frozen=True)
class InstanceResult:
    """What a verdict reads of one instance: its two completions' overlap with the reference,
    their recall runs, and whether each carries text. The layout probe puts the document's
    completion in the `guided_*` fields and its control's in the `general_*` ones."""

    guided: float
    general: float
    guided_match: Match
    general_match: Match
    guided_recall: int = 0
    """The guided completion's longest run of another published text (`_recall.py`)."""
    general_recall: int = 0
    conversation: str = ""
    guided_answer: str | None = None
    """A digest of the guided completion's normalised words: "" when it is empty, None where
    it carries text that was not kept (what tells one answer from another)."""
    general_answer: str | None = None
    guided_cut: bool = False
    """The guided completion stopped at the length limit."""
    general_cut: bool = False

    @property
    def counted(self) -> Match:
        """The guided completion's match as heuristic 2 counts it: none where the general
        completion of the same text matches too. Golchin & Surdeanu's guided-vs-general
        comparison is a difference: a text the model completes untold (a repetitive one, which
        any model continues from its own start) is no evidence of having read it."""
        return self.guided_match if self.general_match == "none" else "none"


@dataclass(frozen=True)
class LabelResult:
    """One label instance: the document's and the control's continuation, as scored."""

    conversation: str
    match: float | None
    control_match: float | None
    answer: str
    """The document's written labels' digest ("" where it writes none)."""
    control_answer: str


@dataclass(frozen=True)
class Evidence:
    """How much a run's completions can say: what the abstention table reads."""

    instances: int
    conversations: int
    with_text: int
    """Instances whose two completions carry text (neither empty nor cut)."""
    empty: int
    """Completions with no text."""
    cut: int
    """Completions (with text) stopped at the length limit."""
    answered: int
    """Completions that carry text."""
    one_answer: int
    """Completions that carry text and share the most common answer."""


def evidence(results: Sequence[InstanceResult]) -> Evidence:
    answers = [
        (answer, cut)
        for r in results
        for answer, cut in ((r.guided_answer, r.guided_cut), (r.general_answer, r.general_cut))
    ]
    carried = [a for a, cut in answers if a != "" and not cut]
    return Evidence(
        instances=len(results),
        conversations=len({r.conversation for r in results}),
        with_text=sum(
            "" not in (r.guided_answer, r.general_answer) and not (r.guided_cut or r.general_cut)
            for r in results
        ),
        empty=sum(a == "" for a, _ in answers),
        cut=sum(a != "" and cut for a, cut in answers),
        answered=len(carried),
        one_answer=max(Counter(a for a in carried if a is not None).values(), default=0),
    )


def abstention(e: Evidence, carried: str = TEXT) -> str | None:
    """Why the run cannot decide without a match or a recall, by the abstention table
    (docs/contamination.md), or None where a negative may be read; `carried`: what a completion
    must carry to count."""
    if e.instances == 0:
        return cannot_decide("no text long enough to probe")
    if e.conversations < MIN_CONVERSATIONS:
        return cannot_decide(
            f"{e.conversations} conversation(s) probed, at least {MIN_CONVERSATIONS} needed "
            "(one conversation's texts share an author and a topic)"
        )
    if e.instances < MIN_INSTANCES:
        return cannot_decide(f"too few instances ({e.instances}, at least {MIN_INSTANCES})")
    if e.with_text < max(MIN_INSTANCES, MIN_TEXT_SHARE * e.instances):
        return cannot_decide(
            f"too few completions carry {carried}: {e.with_text} of {e.instances} instances have "
            f"two ({e.empty} completion(s) {'empty' if carried == TEXT else 'without any'}, "
            f"{e.cut} cut at the length limit)"
        )
    if e.one_answer > MAX_ONE_ANSWER_SHARE * e.answered:
        return cannot_decide(
            f"the model answered one same {carried} to {e.one_answer} of {e.answered} completions"
        )
    return None


def guided_above_general(guided: Sequence[float], general: Sequence[float]) -> float:
    """Heuristic 1's test: the one-sided sign-flip permutation p-value that guided exceeds
    general on average, paired by index (Fisher 1935; `scipy.stats.permutation_test`, exact up to
    13 pairs); 1.0 when every difference is zero, NaN with no pair."""
    if not guided:
        return math.nan
    # Equal completions score equal floats; rounding keeps sums of rounding error out of ranks.
    pairs = [g - h for g, h in zip(guided, general, strict=True)]
    difference = np.round(np.asarray(pairs, float), 12)
    if not difference.any():
        return 1.0
    if difference.size == 1:
        # The two sign patterns of one pair, counted as the test counts them (scipy's test
        # needs two observations): the observed mean or above in one of two, or in both.
        return 0.5 if difference[0] > 0 else 1.0
    return permutation_p((difference,), np.mean, "samples")


def permutation_p(
    samples: tuple[NDArray[np.float64], ...],
    statistic: Callable[..., NDArray[np.float64]],
    kind: Literal["samples", "independent"],
) -> float:
    """The one-sided ("greater") permutation p-value of `statistic` over `samples`, exact up to
    PERMUTATIONS arrangements, else that many seeded ones (`scipy.stats.permutation_test`)."""
    result = stats.permutation_test(
        samples,
        statistic,
        permutation_type=kind,
        vectorized=True,
        n_resamples=PERMUTATIONS,
        alternative="greater",
        random_state=np.random.default_rng(DEFAULT_SEED),
    )
    return float(result.pvalue)


def mean_or_nan(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else math.nan


@dataclass(frozen=True)
class Verdict:
    """The guided probe's verdict (`RULE`) and every figure it reads."""

    reading: str
    """suspected, not suspected, or cannot decide: <reason>."""
    difference: Interval
    """Mean guided minus general ROUGE-L, with its bootstrap interval."""
    exact: int
    """Guided exact matches that count (`InstanceResult.counted`)."""
    near_exact: int
    recalled: int
    """Completions, guided or general, whose recall run reaches RECALL_RUN_WORDS."""
    guided_rouge_l: float
    general_rouge_l: float
    p_value: float
    """Heuristic 1's one-sided p-value (NaN with no instance)."""
    instances: int
    general_exact: int
    """The general completions' exact matches (for comparison: they count for nothing)."""
    general_near_exact: int
    longest_recall: int
    evidence: Evidence

    @property
    def heuristic_1(self) -> bool:
        return abstention(self.evidence) is None and self.p_value < ALPHA

    @property
    def heuristic_2(self) -> bool:
        return self.exact >= EXACT_NEEDED or self.near_exact >= NEAR_EXACT_NEEDED

    @property
    def heuristic_3(self) -> bool:
        return self.recalled >= RECALL_NEEDED


def decide(results: Sequence[InstanceResult]) -> Verdict:
    """The guided probe's verdict by `RULE`: a match (heuristic 2) or a recall (3) first, then
    the abstention table, then heuristic 1."""
    guided = [r.guided for r in results]
    general = [r.general for r in results]
    differences = [g - h for g, h in zip(guided, general, strict=True)]
    runs = [run for r in results for run in (r.guided_recall, r.general_recall)]
    found = Verdict(
        reading="",
        instances=len(results),
        guided_rouge_l=mean_or_nan(guided),
        general_rouge_l=mean_or_nan(general),
        difference=mean_ci(differences, level=CI_LEVEL) if results else EMPTY,
        p_value=guided_above_general(guided, general),
        exact=sum(r.counted == "exact" for r in results),
        near_exact=sum(r.counted == "near_exact" for r in results),
        general_exact=sum(r.general_match == "exact" for r in results),
        general_near_exact=sum(r.general_match == "near_exact" for r in results),
        evidence=evidence(results),
        recalled=sum(run >= RECALL_RUN_WORDS for run in runs),
        longest_recall=max(runs, default=0),
    )
    heuristic = found.heuristic_1 or found.heuristic_2 or found.heuristic_3
    reading = SUSPECTED if heuristic else abstention(found.evidence) or NOT_SUSPECTED
    return replace(found, reading=reading)


@dataclass(frozen=True)
class LayoutVerdict:
    """The files-layout probe's sub-verdict (`LAYOUT_RULE`) and what it reads."""

    reading: str
    recalled: int
    """Real completions with a run of RECALL_RUN_WORDS or more."""
    control_recalled: int
    longest: int
    control_longest: int
    instances: int
    evidence: Evidence


def decide_layout(results: Sequence[InstanceResult]) -> LayoutVerdict:
    """The layout sub-verdict over instances whose `guided_*` fields hold the real completion
    and `general_*` the control's (their ROUGE-L fields unused)."""
    real = [r.guided_recall for r in results]
    fake = [r.general_recall for r in results]
    recalled = sum(run >= RECALL_RUN_WORDS for run in real)
    control_recalled = sum(run >= RECALL_RUN_WORDS for run in fake)
    found = evidence(results)
    reading = (
        SUSPECTED
        if recalled >= RECALL_NEEDED and recalled > control_recalled
        else abstention(found) or NOT_SUSPECTED
    )
    return LayoutVerdict(
        reading,
        recalled,
        control_recalled,
        max(real, default=0),
        max(fake, default=0),
        len(results),
        found,
    )


@dataclass(frozen=True)
class LabelsVerdict:
    """The label cut's sub-verdict (`LABELS_RULE`) and what it reads."""

    reading: str
    match: float
    """The documents' mean label match over the scored instances (a side that writes none
    there counts 0); NaN with none scored."""
    control_match: float
    p_value: float
    reproduced: int
    """Document continuations that reproduce every label field they write."""
    scored: int
    """Instances where the document's or the control's continuation writes a label field."""
    instances: int
    evidence: Evidence


def decide_labels(results: Sequence[LabelResult]) -> LabelsVerdict:
    """The label sub-verdict over `results` in the order given (conversation ID, then turn)."""
    pairs = [
        (r.match or 0.0, r.control_match or 0.0)
        for r in results
        if r.match is not None or r.control_match is not None
    ]
    real, fake = [a for a, _ in pairs], [b for _, b in pairs]
    p_value = guided_above_general(real, fake) if pairs else 1.0
    reproduced = sum(r.match == 1.0 for r in results)
    # The abstention table's evidence: a continuation that writes no label field is empty.
    found = evidence(
        [
            InstanceResult(
                0.0,
                0.0,
                "none",
                "none",
                conversation=r.conversation,
                guided_answer=r.answer,
                general_answer=r.control_answer,
            )
            for r in results
        ]
    )
    reading = (
        SUSPECTED
        if p_value < ALPHA and reproduced >= LABELS_NEEDED
        else abstention(found, LABEL_FIELDS) or NOT_SUSPECTED
    )
    return LabelsVerdict(
        reading,
        sum(real) / len(real) if real else math.nan,
        sum(fake) / len(fake) if fake else math.nan,
        p_value,
        reproduced,
        len(pairs),
        len(results),
        found,
    )
