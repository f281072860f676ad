"""The partition-level verdict: has the model seen this data set?

Golchin & Surdeanu call a partition contaminated by either of two heuristics; here a partition is
one run of the probe: every instance of the conversations it probed. A third heuristic (recall.py)
was added after a first measurement on a real fine-tuned model, below.

**Heuristic 1** (theirs): guided completions overlap the references significantly more than
general ones. They compare the two mean ROUGE-L scores by bootstrap resampling each set of
scores separately, 10,000 resamples, significant at p <= 0.05
(their released code). Departures, each fixed before any measurement but the one
marked:

- The test is **paired**, over instances: the guided and the general completion of an instance
  complete the same segment, so the per-instance difference removes how predictable each text
  is, which an unpaired comparison leaves in as noise. It is the one-sided **sign-flip
  permutation test of the mean difference** (Fisher 1935; Good, "Permutation, Parametric and
  Bootstrap Tests of Hypotheses", 2005), guided minus general ROUGE-L, by
  `scipy.stats.permutation_test` (permutation type "samples": each instance's difference keeps or
  flips its sign; exact for up to 13 instances, else 10,000 random sign patterns, seed 0). Its
  null hypothesis is the one the design makes: a model that has not seen the data set gains
  nothing from its name, so an instance's guided and general completions are exchangeable. It
  is exact at any number of instances and assumes nothing about the shape of the differences,
  which pile up at 0 and 1. Like the paper's, its statistic is the mean: contamination shows as a
  share of instances recalled strongly, and a mean sees that share where a rank test dilutes it.
  *Changed after a first measurement*, and reported as such: the probe was first written with the
  one-sided Wilcoxon signed-rank test (same null, ranks instead of the mean); on 2 seeds of the
  power benchmark it flagged a model recalling 10% of the texts by heuristic 1 in 1 run of 2, as
  a rank test must when 90% of the differences are noise around 0. The benchmark keeps measuring
  it beside the permutation test (docs/contamination.md). No other parameter was changed.
  With no non-zero difference there is no evidence: p = 1.
- **alpha = 0.01** (`ALPHA`), not 0.05: the verdict fires on either heuristic, so the first one
  alone must stay well inside the 5% false-positive rate the probe is held to.
- Reported beside it: the mean difference with its 95% percentile bootstrap interval over
  instances (10,000 resamples, seed 0; the suite's bootstrap in `bootstrap.py`, after
  Efron & Tibshirani 1993).

**Heuristic 2** (theirs, as a mechanical rule; overlap.py defines exact and near-exact): at least
`EXACT_NEEDED` = 1 exact or at least `NEAR_EXACT_NEEDED` = 2 near-exact matches among the guided
completions (their released code's thresholds). The general completions' matches
are counted and reported, not used: a text long enough to probe (instances.py) is not reproduced
word for word by chance, so the paper's guided-only count stands.

**Heuristic 3** (ours; recall.py defines it): at least `RECALL_NEEDED` = 2 completions, guided or
general, write out a run of at least `RECALL_RUN_WORDS` = 13 words of *another* published text of
their conversation that the prompt did not show. *Added after a first measurement on a real
fine-tuned model*, and reported as such, as the Wilcoxon change is: SmolLM2-135M-Instruct
fine-tuned 3 epochs on two conversations' published texts (their loss fell from 3.68 to 0.36
nats per token) was `not suspected` on those conversations by heuristics 1 and 2 (guided minus
general ROUGE-L +0.014 [0.003, 0.026], p = 0.016 > alpha; no exact or near-exact completion),
because it answered with other texts of the conversation it had learned, mostly the original
assistant responses, under both instructions. Its threshold is calibrated on negatives only
(recall.py); heuristics 1 and 2 and their parameters are unchanged.

**The rule** (`RULE`), in order:

1. Heuristic 2 or heuristic 3 holds: **suspected**, at any number of instances (an exact
   reproduction of unseen text is evidence on its own; the paper uses no minimum for it; a
   13-word run of a text the model was not shown is the same kind of evidence).
2. The run carries too little evidence for a negative: **cannot decide: <reason>**, by the
   abstention table (`abstention`, docs/contamination.md "When it cannot decide"); the figures
   are still reported.
3. Heuristic 1 holds: **suspected**.
4. Otherwise: **not suspected**, which is not proof of absence (docs/contamination.md).

**Order.** The permutation test's random sign patterns and the bootstrap's draws are taken over
the instances in a fixed order (conversation ID, then the instance's order within it; the
metric sorts the samples by ID before pooling), so the figures recomputed from a log as stored,
whose samples are kept by ID, are the printed ones exactly, whatever the data files' order.

Instances are treated as independent draws, as in the paper; texts of one conversation share an
author and a topic, which the verdict does not model.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from ..._util.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, EMPTY, Interval, mean_ci
from ..._util.verdict import cannot_decide
from ._overlap import Match
from ._recall import RECALL_NEEDED, RECALL_RUN_WORDS

ALPHA = 0.01
"""Heuristic 1's significance level (one-sided)."""
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

SUSPECTED = "suspected"
NOT_SUSPECTED = "not suspected"

RULE = (
    f"suspected if the guided completions hold at least {EXACT_NEEDED} exact or at least "
    f"{NEAR_EXACT_NEEDED} near-exact match(es) (ROUGE-L >= 0.75), or at least {RECALL_NEEDED} "
    f"completions (guided or general) write out a run of {RECALL_RUN_WORDS}+ words of another "
    f"published text of their conversation that the prompt did not show, at any number of "
    f"instances; "
    f"else cannot decide with no instance, fewer than {MIN_CONVERSATIONS} conversations, fewer "
    f"than {MIN_INSTANCES} instances, fewer than {MIN_INSTANCES} (or under "
    f"{MIN_TEXT_SHARE:.0%} of the) instances whose two completions carry text (not empty, not "
    f"cut at the length limit), or one same answer to over {MAX_ONE_ANSWER_SHARE:.0%} of the "
    f"completions that carry text; else "
    f"suspected if mean guided ROUGE-L exceeds mean general ROUGE-L by a one-sided paired "
    f"sign-flip permutation test over instances at alpha {ALPHA}; else not suspected"
)
"""The verdict's rule as it is printed beside the verdict."""
LAYOUT_RULE = (
    f"suspected if at least {RECALL_NEEDED} completions of the documents write out a run of "
    f"{RECALL_RUN_WORDS}+ words of a published text of their conversation that the prompt did "
    f"not show, and more than of the control documents; else cannot decide by the same "
    f"abstention table (the document's completion and its control's as the pair; a completion cut "
    f"at the length limit still carries text); else not "
    f"suspected"
)
"""The files-layout probe's sub-verdict (layout.py)."""
LABELS_NEEDED = 2
"""Document continuations that must reproduce every label field they write (labels.py)."""
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
"""The files-layout probe's label sub-verdict (labels.py)."""
OVERALL_RULE = (
    "suspected if any method's sub-verdict is suspected; else cannot decide if any method "
    "cannot decide (its reason); else not suspected"
)
"""How the verdict reads the sub-verdicts of the methods run (the guided probe alone: its own)."""


def overall(readings: Sequence[tuple[str, str]]) -> str:
    """The verdict from each method's (name, sub-verdict), by `OVERALL_RULE`; a single method's
    own verdict where it alone ran."""
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
    """What the verdict reads of one instance: its two completions' overlap with the reference,
    and whether each carries text."""

    guided: float
    general: float
    guided_match: Match
    general_match: Match
    guided_recall: int = 0
    """The guided completion's longest run of another published text (recall.py)."""
    general_recall: int = 0
    conversation: str = ""
    guided_answer: str | None = None
    """A digest of the guided completion's normalised words: "" when it is empty, None where
    it carries text that was not kept (what tells one answer from another)."""
    general_answer: str | None = None
    guided_cut: bool = False
    """The guided completion stopped at the length limit."""
    general_cut: bool = False


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


def abstention(e: Evidence, carried: str = "text") -> str | None:
    """Why the run cannot decide without a match or a recall, by the abstention table
    (docs/contamination.md), or None where a negative may be read; `carried`: what a completion
    must carry to count (the label cut's: "label fields")."""
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
            f"two ({e.empty} completion(s) {'empty' if carried == 'text' else 'without any'}, "
            f"{e.cut} cut at the length limit)"
        )
    if e.one_answer > MAX_ONE_ANSWER_SHARE * e.answered:
        return cannot_decide(
            f"the model answered one same {carried} to {e.one_answer} of {e.answered} completions"
        )
    return None


@dataclass(frozen=True)
class Verdict:
    reading: str
    """suspected, not suspected, or cannot decide: <reason>."""
    instances: int
    guided_rouge_l: float
    general_rouge_l: float
    difference: Interval
    """Mean guided minus general ROUGE-L, with its bootstrap interval."""
    p_value: float
    """Heuristic 1's one-sided p-value (NaN with no instance)."""
    heuristic_1: bool
    exact: int
    near_exact: int
    general_exact: int
    general_near_exact: int
    heuristic_2: bool
    evidence: Evidence
    recalled: int = 0
    """Completions, guided or general, whose recall run reaches RECALL_RUN_WORDS."""
    longest_recall: int = 0
    heuristic_3: bool = False

    def line(self) -> str:
        """The verdict with the figures it reads, on one line."""
        return (
            f"{self.reading}: {self.instances} instances; ROUGE-L guided "
            f"{self.guided_rouge_l:.3f}, general {self.general_rouge_l:.3f}, difference "
            f"{self.difference.show(3)} (95% CI), permutation p = {self.p_value:.3g}; guided exact "
            f"{self.exact}, near-exact {self.near_exact} (general {self.general_exact}, "
            f"{self.general_near_exact}); recalled {self.recalled} (longest run "
            f"{self.longest_recall} words)"
        )


def _mean_of(values: NDArray[np.float64], axis: int) -> NDArray[np.float64]:
    mean: NDArray[np.float64] = np.mean(values, axis=axis)
    return mean


def guided_above_general(guided: Sequence[float], general: Sequence[float]) -> float:
    """One-sided sign-flip permutation p-value that guided exceeds general on average, paired by
    index; 1.0 when every difference is zero, NaN with no pair."""
    if len(guided) != len(general):
        raise ValueError(f"paired scores differ in length: {len(guided)} and {len(general)}")
    if not guided:
        return math.nan
    # Equal completions score equal floats; rounding keeps sums of rounding error out of ranks.
    difference = np.round(np.asarray(guided, float) - np.asarray(general, float), 12)
    if not difference.any():
        return 1.0
    if difference.size == 1:
        # The two sign patterns of one pair, counted as the test counts them (scipy's test
        # needs two observations): the observed mean or above in one of two, or in both.
        return 0.5 if difference[0] > 0 else 1.0
    result = stats.permutation_test(
        (difference,),
        _mean_of,
        permutation_type="samples",
        vectorized=True,
        n_resamples=PERMUTATIONS,
        alternative="greater",
        random_state=np.random.default_rng(DEFAULT_SEED),
    )
    return float(result.pvalue)


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else math.nan


def decide(results: Sequence[InstanceResult]) -> Verdict:
    """The partition's verdict by `RULE`, over `results` in the order given (the metric gives
    them by conversation ID, so a log recomputes its own figures)."""
    guided = [r.guided for r in results]
    general = [r.general for r in results]
    exact = sum(r.guided_match == "exact" for r in results)
    near_exact = sum(r.guided_match == "near_exact" for r in results)
    p_value = guided_above_general(guided, general)
    found = evidence(results)
    abstain = abstention(found)
    heuristic_1 = abstain is None and p_value < ALPHA
    heuristic_2 = exact >= EXACT_NEEDED or near_exact >= NEAR_EXACT_NEEDED
    runs = [run for r in results for run in (r.guided_recall, r.general_recall)]
    recalled = sum(run >= RECALL_RUN_WORDS for run in runs)
    heuristic_3 = recalled >= RECALL_NEEDED
    reading = (
        SUSPECTED
        if heuristic_2 or heuristic_3 or heuristic_1
        else abstain
        if abstain is not None
        else NOT_SUSPECTED
    )
    difference = (
        mean_ci(
            [g - h for g, h in zip(guided, general, strict=True)],
            resamples=DEFAULT_RESAMPLES,
            seed=DEFAULT_SEED,
            level=CI_LEVEL,
        )
        if results
        else EMPTY
    )
    return Verdict(
        reading=reading,
        instances=len(results),
        guided_rouge_l=_mean(guided),
        general_rouge_l=_mean(general),
        difference=difference,
        p_value=p_value,
        heuristic_1=heuristic_1,
        exact=exact,
        near_exact=near_exact,
        general_exact=sum(r.general_match == "exact" for r in results),
        general_near_exact=sum(r.general_match == "near_exact" for r in results),
        heuristic_2=heuristic_2,
        evidence=found,
        recalled=recalled,
        longest_recall=max(runs, default=0),
        heuristic_3=heuristic_3,
    )
