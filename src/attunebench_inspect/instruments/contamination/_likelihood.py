"""The likelihood method (pure, no Inspect): does the model find the published texts too likely?

A model trained on the deposit may never write its texts out at temperature 0 and still have
learned them: the SmolLM2 fine-tuned on the files byte for byte (bench/contamination/) has a loss
of 0.66 nats per token on its trained texts, 7.4 times below its held-out ones, and every
completion method reads it not suspected (docs/contamination.md). This method reads the
log-probability the model gives each published text, through a route that scores a *given* text
(Inspect's `openai-api-completions` provider with `echo`: `_likelihood_route.py`), and decides
by a rule fixed before any data (docs/contamination.md, "The likelihood method"). The scorer
reduces each conversation to its figures (`conversation_likelihood`); the metric decides the
run (`decide_likelihood`) by one of two tests:

- **The statistic**: Min-K% Prob (Shi et al., "Detecting Pretraining Data from Large Language
  Models", ICLR 2024): the mean of the lowest `K_SHARE` = 20% of a text's token
  log-probabilities (their code's count, `int(n * k)`, at least 1). A text the model has seen
  has few surprising tokens. A text is scored where it has at least `MIN_TOKENS` token
  log-probabilities; a conversation's score is the mean over its scored texts (the
  conversation is the unit: its texts share an author, a topic and, in the deposit, a file).
- **The control test**, where the run is given never-published conversations of the same
  collection: the published conversations' scores against theirs, by the one-sided two-sample
  permutation test of the difference of means (Fisher 1935; scipy's `permutation_test`, exact
  up to `PERMUTATIONS` arrangements, else that many random ones, seed 0), at `ALPHA`. Where the
  control conversations were drawn from the same collection as the published ones, every
  arrangement is equally likely under the null hypothesis (the model has seen neither), so the
  false-positive rate is at most alpha by construction, for any model. A control made from the
  published texts (shuffled words, recombined turns) is no such null: a capable model finds a
  coherent text more likely than a broken one whether or not it read it.
- **The decoy-ID test**, where it is given none: a conversation's ID in the deposit is a random
  UUID (version 4), drawn independently of its texts. The model scores the start of the
  conversation's document in the files' layout under its real ID and under `DECOYS` = 19
  random UUIDs (`decoy_ids`); only the tokens that follow the ID line, identical in every call,
  are summed (`shared_suffix`). A model that never read the file cannot tell the real ID from a
  decoy, so the real one's rank among the 20 is uniform whatever the model prefers; the p-value
  of the sum of ranks over conversations is exact (`rank_sum_p`). A model that read the file
  has tied the ID to its text.
- **The route check** (`route_check`): one call scores `CANARY`, a counting sequence every
  language model continues with near certainty; a mean log-probability under `CANARY_FLOOR` over
  its tokens from the `CANARY_SKIP`-th on (`canary_mean`) says the numbers returned are not the
  given text's (llama-cpp-python's echo pairs each token with the next position's distribution
  for a model whose tokenizer adds no BOS token: bench/contamination/RESULTS.md), and the method
  abstains.

Min-K%++ (Zhang et al., 2024) standardises each token's log-probability by the mean and variance
of the log-probabilities over the *whole vocabulary* at its position; a route returns at most the
top 20 of them (vLLM's `max_logprobs`, OpenAI's cap), which bound the mean but not the variance
(docs/contamination.md): it is not computed.
"""

from __future__ import annotations

import math
import random
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from ..._util.verdict import cannot_decide
from ...data._split import VisibleConversation
from ._layout import CUT_KEY, document
from ._rules import (
    ALPHA,
    CANARY_FLOOR,
    CONTROL_RULE,
    DECOY_RULE,
    DECOYS,
    K_SHARE,
    MIN_CONVERSATIONS,
    MIN_TOKENS,
    NO_TEXT_LOGPROBS,
    NOT_SUSPECTED,
    PERMUTATIONS,
    SUSPECTED,
    mean_or_nan,
    permutation_p,
)

CANARY = ", ".join(str(n) for n in range(1, 61))
"""The route check's text: 1, 2, 3, ..., 60."""
CANARY_SKIP = 10
"""The canary's first token log-probabilities left out (the sequence is not yet evident)."""


# --- the statistic ------------------------------------------------------------------------------


def min_k_prob(logprobs: Sequence[float], share: float = K_SHARE) -> float:
    """Min-K% Prob: the mean of the `int(len * share)` lowest log-probabilities (at least one;
    Shi et al.'s code counts them so); NaN with none."""
    if not logprobs:
        return math.nan
    count = max(1, int(len(logprobs) * share))
    return float(np.mean(np.sort(np.asarray(logprobs, float))[:count]))


def canary_mean(canary: Sequence[float] | None) -> float:
    """The canary's mean log-probability from its CANARY_SKIP-th token on (NaN where none)."""
    return mean_or_nan(list(canary or ())[CANARY_SKIP:])


def route_check(canary: float) -> str | None:
    """Why the route's log-probabilities cannot be read (a `cannot decide` reason), or None where
    the canary's mean (`canary_mean`) is that of a text read in order."""
    if not canary >= CANARY_FLOOR:
        return (
            f"the log-probabilities returned are not the given text's: a counting sequence "
            f"scores {canary:.2f} nats per token, at least {CANARY_FLOOR} expected"
        )
    return None


@dataclass(frozen=True)
class ConversationLikelihood:
    """What the method reads of one conversation: the scorer's figures of a sample."""

    conversation: str
    control: bool = False
    """A never-published control conversation (the control test)."""
    score: float = math.nan
    """Mean Min-K% Prob over its texts scored (the control test; NaN where none)."""
    texts: int = 0
    """Texts scored: at least MIN_TOKENS log-probabilities."""
    skipped: int = 0
    """Texts left out, with fewer."""
    missing: int = 0
    """Calls that returned no log-probability of their text."""
    decoys_above: int | None = None
    """Decoys scoring at least the real ID (the decoy test; None where not scored)."""
    canary: float = math.nan
    """The canary's `canary_mean` (NaN where the provider returned none, or was not asked)."""


def conversation_likelihood(
    conversation: str,
    canary: Sequence[float] | None,
    texts: Sequence[Sequence[float] | None] = (),
    windows: Sequence[Sequence[tuple[str, float]] | None] = (),
    control: bool = False,
) -> ConversationLikelihood:
    """A conversation's figures from what the route returned: the canary's log-probabilities,
    each text's (None where none came back), each decoy window's tokens (the real ID first)."""
    scored = [min_k_prob(t) for t in texts if t is not None and len(t) >= MIN_TOKENS]
    missing = sum(t is None for t in texts) + sum(w is None for w in windows)
    whole = [w for w in windows if w is not None]
    sums = shared_suffix(whole) if whole and len(whole) == len(windows) else []
    return ConversationLikelihood(
        conversation=conversation,
        control=control,
        score=mean_or_nan(scored),
        texts=len(scored),
        skipped=sum(t is not None for t in texts) - len(scored),
        missing=missing,
        # A tie counts against the real ID.
        decoys_above=sum(d >= sums[0] for d in sums[1:]) if sums else None,
        canary=canary_mean(canary),
    )


# --- the verdict --------------------------------------------------------------------------------


@dataclass(frozen=True)
class LikelihoodVerdict:
    """The likelihood method's sub-verdict and every figure it reads (the log header keeps
    them: the reading is recomputed from them, `read`)."""

    reading: str
    """suspected, not suspected, or cannot decide: <reason>."""
    p_value: float
    """One-sided p-value (NaN where the test was not run)."""
    published: float
    """Published conversations' mean Min-K% Prob (control test), or the real IDs' mean count
    of decoys scoring at least as high (decoy test); NaN where none."""
    control: float
    """Control conversations' mean Min-K% Prob, or the count a model that cannot tell the IDs
    apart has on average (DECOYS / 2)."""
    conversations: int
    """Published conversations scored."""
    controls: int
    """Control conversations scored (the control test) or decoys per conversation (decoys)."""
    control_test: bool
    """The control test ran (else the decoy-ID test)."""
    texts: int = 0
    """Texts scored (both groups)."""
    skipped: int = 0
    """Texts left out, with fewer than MIN_TOKENS log-probabilities."""
    missing: int = 0
    """Calls that returned no log-probability of their text."""
    canary: float = math.nan
    """The route check's figure: the lowest canary mean of the run's conversations."""
    not_random: int = 0
    """Published conversation IDs that are not random UUIDs (the decoy test)."""

    @property
    def rule(self) -> str:
        return CONTROL_RULE if self.control_test else DECOY_RULE


def abstention(v: LikelihoodVerdict, provider: str) -> str | None:
    """Why the figures cannot decide (in `CONTROL_RULE`'s or `DECOY_RULE`'s order), or None."""
    if v.missing or math.isnan(v.canary):
        return cannot_decide(f"{provider} {NO_TEXT_LOGPROBS}")
    route = route_check(v.canary)
    if route is not None:
        return cannot_decide(route)
    if v.control_test:
        if v.conversations < MIN_CONVERSATIONS:
            return cannot_decide(
                f"{v.conversations} published conversation(s) scored, at least "
                f"{MIN_CONVERSATIONS} needed (texts of at least {MIN_TOKENS} tokens)"
            )
        if v.controls < MIN_CONVERSATIONS:
            return cannot_decide(
                f"{v.controls} never-published control conversation(s) scored, at least "
                f"{MIN_CONVERSATIONS} needed"
            )
        least = smallest_p(v.conversations, v.controls)
        if least >= ALPHA:
            return cannot_decide(
                f"{v.conversations} published and {v.controls} control conversations cannot "
                f"reach alpha {ALPHA} (smallest p-value {least:.3g})"
            )
        return None
    if v.not_random:
        return cannot_decide(
            f"{v.not_random} conversation ID(s) are not random UUIDs (version 4): a decoy "
            "cannot stand in for them"
        )
    least = rank_sum_p([0] * v.conversations, v.controls)
    if not least < ALPHA:
        return cannot_decide(
            f"{v.conversations} conversation(s) cannot reach alpha {ALPHA} against "
            f"{v.controls} decoys each (smallest p-value {least:.3g})"
        )
    return None


def read(v: LikelihoodVerdict, provider: str) -> LikelihoodVerdict:
    """The figures with their reading: an abstention, else the p-value against alpha."""
    reason = abstention(v, provider)
    return replace(v, reading=reason or (SUSPECTED if v.p_value < ALPHA else NOT_SUSPECTED))


def decide_likelihood(
    found: Sequence[ConversationLikelihood],
    control_test: bool,
    provider: str,
    decoys: int = DECOYS,
) -> LikelihoodVerdict:
    """The sub-verdict over a run's conversations (by `CONTROL_RULE` where `control_test`, else
    `DECOY_RULE`); `provider` names the model's route in an abstention."""
    published = [c for c in found if not c.control]
    not_random = sum(not is_random_uuid(c.conversation) for c in published)
    if control_test:
        ours = [c.score for c in published if not math.isnan(c.score)]
        theirs = [c.score for c in found if c.control and not math.isnan(c.score)]
        controls, center = len(theirs), mean_or_nan(theirs)
    else:
        ours = [float(c.decoys_above) for c in published if c.decoys_above is not None]
        theirs, controls, center = [], decoys, decoys / 2
    figures = LikelihoodVerdict(
        reading="",
        control_test=control_test,
        p_value=math.nan,
        conversations=len(ours),
        controls=controls,
        published=mean_or_nan(ours),
        control=center,
        texts=sum(c.texts for c in found),
        skipped=sum(c.skipped for c in found),
        missing=sum(c.missing for c in found),
        # NaN where any conversation has none: np.min carries it.
        canary=float(np.min([c.canary for c in found])) if found else math.nan,
        not_random=0 if control_test else not_random,
    )
    if abstention(figures, provider) is None:
        p_value = (
            published_above_control(ours, theirs)
            if control_test
            else rank_sum_p([int(c) for c in ours], decoys)
        )
        figures = replace(figures, p_value=p_value)
    return read(figures, provider)


# --- the control test ---------------------------------------------------------------------------


def _difference(x: NDArray[np.float64], y: NDArray[np.float64], axis: int) -> NDArray[np.float64]:
    result: NDArray[np.float64] = np.mean(x, axis=axis) - np.mean(y, axis=axis)
    return result


def smallest_p(published: int, control: int) -> float:
    """The least p-value the control test can give: one arrangement of all of them."""
    arrangements = math.comb(published + control, published)
    return 1 / arrangements if arrangements <= PERMUTATIONS else 1 / (PERMUTATIONS + 1)


def published_above_control(published: Sequence[float], control: Sequence[float]) -> float:
    """One-sided p-value that the published scores' mean exceeds the control's, by the two-sample
    permutation test (exact where there are at most PERMUTATIONS arrangements)."""
    return permutation_p(
        (np.asarray(published, float), np.asarray(control, float)), _difference, "independent"
    )


# --- the decoy-ID test --------------------------------------------------------------------------


def is_random_uuid(value: str) -> bool:
    """Whether a conversation ID is a random UUID (version 4) written as UUIDs are."""
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        return False
    return parsed.version == 4 and str(parsed) == value.lower()


def decoy_ids(conversation_id: str, seed: int, count: int = DECOYS) -> list[str]:
    """`count` random UUIDs (version 4) for a conversation, seeded by the seed and its ID."""
    rng = random.Random(f"likelihood-decoys/{seed}/{conversation_id}")
    return [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(count)]


def decoy_window(conv: VisibleConversation) -> str:
    """The conversation's document in the files' layout (layout.py: no label) up to the end of
    its first turn's `userMessage` line, under its real ID."""
    text = document(conv)
    return text[: text.index("\n", text.index(CUT_KEY)) + 1]


def decoy_prompts(window: str, real: str, ids: Sequence[str]) -> list[str]:
    """The window under its real ID first, then under each of `ids` (`decoy_ids`). Every
    occurrence is replaced: a window that names its ID twice, under a decoy at the top and the
    real ID below, would rank the real ID first for any model that copies what it has seen."""
    return [window.replace(real, i) for i in [real, *ids]]


def shared_suffix(responses: Sequence[Sequence[tuple[str, float]]]) -> list[float]:
    """Each response's summed log-probability over the longest run of final tokens that every
    response holds alike (the text after the ID, tokenised the same in every call)."""
    shortest = min((len(r) for r in responses), default=0)
    length = 0
    while length < shortest and len({r[-1 - length][0] for r in responses}) == 1:
        length += 1
    return [float(sum(lp for _, lp in r[len(r) - length :])) for r in responses]


def rank_sum_p(counts: Sequence[int], decoys: int = DECOYS) -> float:
    """Exact one-sided p-value of the summed counts: the chance that conversations whose real ID
    is one more random draw among its decoys (each count uniform on 0..decoys) sum to at most the
    observed; NaN with no conversation."""
    if not counts:
        return math.nan
    one = np.full(decoys + 1, 1 / (decoys + 1))
    total = np.ones(1)
    for _ in counts:
        total = np.convolve(total, one)
    return float(min(1.0, total[: sum(counts) + 1].sum()))
