"""The likelihood method (pure, no Inspect): does the model find the published texts too likely?

A model trained on the deposit may never write its texts out at temperature 0 and still have
learned them: the SmolLM2 fine-tuned on the files byte for byte (bench/contamination/) has a loss
of 0.66 nats per token on its trained texts, 7.4 times below its held-out ones, and every
completion method reads it not suspected (docs/contamination.md). This method reads the
log-probability the model gives each published text, through a route that scores a *given* text
(Inspect's `openai-api-completions` provider with `echo`, or `prompt_logprobs`), and decides by a
rule fixed before any data (docs/contamination.md, "The likelihood method: design"):

- **The statistic**: Min-K% Prob (Shi et al., "Detecting Pretraining Data from Large Language
  Models", ICLR 2024): the mean of the lowest `K_SHARE` = 20% of a text's token
  log-probabilities (their code's count, `int(n * k)`, at least 1). A text the model has seen
  has few surprising tokens. A text is scored where it has at least `MIN_TOKENS` token
  log-probabilities; a conversation's score is the mean over its scored texts (the
  conversation is the unit: its texts share an author, a topic and, in the deposit, a file).
- **The control test** (`decide_against_control`): the published conversations' scores against
  those of *never-published conversations of the same collection*, by the one-sided two-sample
  permutation test of the difference of means (Fisher 1935; scipy's `permutation_test`, exact
  up to `PERMUTATIONS` arrangements, else that many random ones, seed 0), at `ALPHA`. Where the
  control conversations were drawn from the same collection as the published ones, every
  arrangement is equally likely under the null hypothesis (the model has seen neither), so the
  false-positive rate is at most alpha by construction, for any model. A control made from the
  published texts (shuffled words, recombined turns) is no such null: a capable model finds a
  coherent text more likely than a broken one whether or not it read it.
- **The decoy-ID test** (`decide_decoys`), for where no never-published conversation exists:
  a conversation's ID in the deposit is a random UUID (version 4), drawn independently of its
  texts. The model scores the start of the conversation's document in the files' layout under
  its real ID and under `DECOYS` = 19 random UUIDs (`decoy_ids`); only the tokens that follow the
  ID line, identical in every call, are summed (`shared_suffix`). A model that never read the
  file cannot tell the real ID from a decoy, so the real one's rank among the 20 is uniform
  whatever the model prefers; the p-value of the sum of ranks over conversations is exact
  (`rank_sum_p`). A model that read the file has tied the ID to its text.
- **The route check** (`route_check`): one call scores `CANARY`, a counting sequence every
  language model continues with near certainty; a mean log-probability under `CANARY_FLOOR` over
  its tokens from the `CANARY_SKIP`-th on says the numbers returned are not the given text's
  (llama-cpp-python's echo pairs each token with the next position's distribution for a model
  whose tokenizer adds no BOS token: bench/contamination/RESULTS.md), and the method abstains.

Min-K%++ (Zhang et al., 2024) standardises each token's log-probability by the mean and variance
of the log-probabilities over the *whole vocabulary* at its position; a route returns at most the
top 20 of them (vLLM's `max_logprobs`, OpenAI's cap), which bound the mean but not the variance
(docs/contamination.md): it is not computed.
"""

from __future__ import annotations

import math
import random
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from ..._util.bootstrap import DEFAULT_SEED
from ..._util.verdict import cannot_decide
from ...data._split import VisibleConversation
from ._layout import CUT_KEY, document
from ._rules import ALPHA, MIN_CONVERSATIONS, NOT_SUSPECTED, SUSPECTED

K_SHARE = 0.2
"""Min-K% Prob's share of lowest-probability tokens (Shi et al.'s recommended k = 20%)."""
MIN_TOKENS = 16
"""Token log-probabilities a text needs to be scored (a short text's 20% is a token or two)."""
PERMUTATIONS = 10_000
"""Arrangements of the control test: all of them up to this many, else this many at random."""
DECOYS = 19
"""Random UUIDs each conversation's real ID is ranked among (20 IDs: a rank p of 1/20 each)."""
CANARY = ", ".join(str(n) for n in range(1, 61))
"""The route check's text: 1, 2, 3, ..., 60."""
CANARY_SKIP = 10
"""The canary's first token log-probabilities left out (the sequence is not yet evident)."""
CANARY_FLOOR = -1.0
"""The canary's least mean log-probability (nats per token) from its CANARY_SKIP-th token on."""

METHOD = "Min-K% Prob (Shi et al., ICLR 2024), k = 20%"

CONTROL_RULE = (
    f"each published text's {METHOD}: the mean of its lowest {K_SHARE:.0%} token "
    f"log-probabilities (texts with at least {MIN_TOKENS}), averaged per conversation; "
    f"cannot decide where the provider returns no log-probability of a given text, where its "
    f"log-probabilities fail the route check (mean under {CANARY_FLOOR} nats per token on a "
    f"counting sequence), with fewer than {MIN_CONVERSATIONS} published or control "
    f"conversations scored, or where no arrangement can reach alpha {ALPHA}; else suspected if "
    f"the published conversations' mean exceeds the never-published control conversations' by "
    f"a one-sided two-sample permutation test over conversations at alpha {ALPHA}; else not "
    f"suspected"
)
"""The control test's rule as it is printed beside its verdict."""
DECOY_RULE = (
    f"each conversation's document start in the files' layout scored under its real ID and "
    f"{DECOYS} random UUIDs (the log-probability of the tokens after the ID line); cannot decide "
    f"where the provider returns no log-probability of a given text, where its "
    f"log-probabilities fail the route check, where a conversation ID is not a random UUID "
    f"(version 4), or where no outcome can reach alpha {ALPHA} (fewer than 2 conversations); "
    f"else suspected if the real IDs rank above their decoys by the exact test of the sum of "
    f"ranks at alpha {ALPHA}; else not suspected"
)
"""The decoy-ID test's rule as it is printed beside its verdict."""


# --- the statistic ------------------------------------------------------------------------------


def min_k_prob(logprobs: Sequence[float], share: float = K_SHARE) -> float:
    """Min-K% Prob: the mean of the `int(len * share)` lowest log-probabilities (at least one;
    Shi et al.'s code counts them so); NaN with none."""
    if not logprobs:
        return math.nan
    count = max(1, int(len(logprobs) * share))
    return float(np.mean(np.sort(np.asarray(logprobs, float))[:count]))


@dataclass(frozen=True)
class TextLogprobs:
    """What the route returned for one published text: the log-probability of each of its
    tokens given the ones before (the first token has none), or None where the provider
    returned no log-probability of the given text."""

    conversation: str
    key: str
    """The text's place, as `_recall.py` names it ("t01 userMessage")."""
    logprobs: tuple[float, ...] | None


def conversation_scores(texts: Sequence[TextLogprobs]) -> dict[str, float]:
    """Each conversation's mean Min-K% Prob over its texts with at least MIN_TOKENS
    log-probabilities, by conversation ID (sorted); a conversation with none is left out."""
    by_conversation: dict[str, list[float]] = defaultdict(list)
    for text in texts:
        if text.logprobs is not None and len(text.logprobs) >= MIN_TOKENS:
            by_conversation[text.conversation].append(min_k_prob(text.logprobs))
    return {c: float(np.mean(v)) for c, v in sorted(by_conversation.items())}


# --- the route check ----------------------------------------------------------------------------


def route_check(canary: Sequence[float]) -> str | None:
    """Why the route's log-probabilities cannot be read (a `cannot decide` reason), or None where
    the canary's log-probabilities are those of a text read in order."""
    read = canary[CANARY_SKIP:]
    mean = float(np.mean(read)) if read else math.nan
    if not mean >= CANARY_FLOOR:
        return (
            f"the log-probabilities returned are not the given text's: a counting sequence "
            f"scores {mean:.2f} nats per token, at least {CANARY_FLOOR} expected"
        )
    return None


def _no_logprobs(provider: str) -> str:
    return cannot_decide(f"{provider} gives no log-probability of a given text")


# --- the control test ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LikelihoodVerdict:
    reading: str
    """suspected, not suspected, or cannot decide: <reason>."""
    rule: str
    p_value: float
    """One-sided p-value (NaN where the test was not run)."""
    conversations: int
    """Published conversations scored."""
    controls: int
    """Control conversations scored (the control test) or decoys per conversation (decoys)."""
    published: float
    """Published conversations' mean Min-K% Prob (control test), or the real IDs' mean count
    of decoys scoring at least as high (decoy test); NaN where none."""
    control: float
    """Control conversations' mean Min-K% Prob, or the count a model that cannot tell the IDs
    apart has on average (DECOYS / 2)."""
    texts: int = 0
    """Texts scored (the control test: both groups)."""
    skipped: int = 0
    """Texts left out, with fewer than MIN_TOKENS log-probabilities."""

    def line(self) -> str:
        """The verdict with the figures it reads, on one line."""
        return (
            f"{self.reading}: {self.conversations} conversation(s) against {self.controls}; "
            f"{self.published:.3f} against {self.control:.3f}; p = {self.p_value:.3g}"
        )


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
    result = stats.permutation_test(
        (np.asarray(published, float), np.asarray(control, float)),
        _difference,
        permutation_type="independent",
        vectorized=True,
        n_resamples=PERMUTATIONS,
        alternative="greater",
        random_state=np.random.default_rng(DEFAULT_SEED),
    )
    return float(result.pvalue)


def decide_against_control(
    published: Sequence[TextLogprobs],
    control: Sequence[TextLogprobs],
    canary: Sequence[float] | None,
    provider: str,
) -> LikelihoodVerdict:
    """The control test's verdict by `CONTROL_RULE`; `canary`: the route check's
    log-probabilities (None where the provider returned none)."""
    texts = [*published, *control]
    scored = sum(t.logprobs is not None and len(t.logprobs) >= MIN_TOKENS for t in texts)
    ours, theirs = conversation_scores(published), conversation_scores(control)

    def verdict(reading: str, p_value: float = math.nan) -> LikelihoodVerdict:
        return LikelihoodVerdict(
            reading=reading,
            rule=CONTROL_RULE,
            p_value=p_value,
            conversations=len(ours),
            controls=len(theirs),
            published=float(np.mean(list(ours.values()))) if ours else math.nan,
            control=float(np.mean(list(theirs.values()))) if theirs else math.nan,
            texts=scored,
            skipped=len(texts) - scored,
        )

    if canary is None or any(t.logprobs is None for t in texts):
        return verdict(_no_logprobs(provider))
    route = route_check(canary)
    if route is not None:
        return verdict(cannot_decide(route))
    if len(ours) < MIN_CONVERSATIONS:
        return verdict(
            cannot_decide(
                f"{len(ours)} published conversation(s) scored, at least {MIN_CONVERSATIONS} "
                f"needed (texts of at least {MIN_TOKENS} tokens)"
            )
        )
    if len(theirs) < MIN_CONVERSATIONS:
        return verdict(
            cannot_decide(
                f"{len(theirs)} never-published control conversation(s) scored, at least "
                f"{MIN_CONVERSATIONS} needed"
            )
        )
    least = smallest_p(len(ours), len(theirs))
    if least >= ALPHA:
        return verdict(
            cannot_decide(
                f"{len(ours)} published and {len(theirs)} control conversations cannot reach "
                f"alpha {ALPHA} (smallest p-value {least:.3g})"
            )
        )
    p_value = published_above_control(list(ours.values()), list(theirs.values()))
    return verdict(SUSPECTED if p_value < ALPHA else NOT_SUSPECTED, p_value)


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


def decoy_prompts(conv: VisibleConversation, seed: int, count: int = DECOYS) -> list[str]:
    """The conversation's document in the files' layout (layout.py: no label) up to the end of
    its first turn's `userMessage` line, under its real ID first, then under each decoy."""
    text = document(conv)
    window = text[: text.index("\n", text.index(CUT_KEY)) + 1]
    real = conv.conversation_id
    return [window.replace(real, i, 1) for i in [real, *decoy_ids(real, seed, count)]]


def shared_suffix(responses: Sequence[Sequence[tuple[str, float]]]) -> list[float]:
    """Each response's summed log-probability over the longest run of final tokens that every
    response holds alike (the text after the ID, tokenised the same in every call)."""
    shortest = min((len(r) for r in responses), default=0)
    length = 0
    while length < shortest and len({r[-1 - length][0] for r in responses}) == 1:
        length += 1
    return [float(sum(lp for _, lp in r[len(r) - length :])) for r in responses]


def decoy_count(real: float, decoys: Sequence[float]) -> int:
    """How many decoys score at least the real ID (a tie counts against the real one)."""
    return sum(d >= real for d in decoys)


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


def decide_decoys(
    counts: Sequence[int | None],
    ids: Sequence[str],
    canary: Sequence[float] | None,
    provider: str,
    decoys: int = DECOYS,
) -> LikelihoodVerdict:
    """The decoy-ID test's verdict by `DECOY_RULE`: `counts`, per conversation, how many decoys
    score at least its real ID (None where the provider returned no log-probability)."""
    known = [c for c in counts if c is not None]

    def verdict(reading: str, p_value: float = math.nan) -> LikelihoodVerdict:
        return LikelihoodVerdict(
            reading=reading,
            rule=DECOY_RULE,
            p_value=p_value,
            conversations=len(known),
            controls=decoys,
            published=float(np.mean(known)) if known else math.nan,
            control=decoys / 2,
        )

    if canary is None or len(known) < len(counts):
        return verdict(_no_logprobs(provider))
    route = route_check(canary)
    if route is not None:
        return verdict(cannot_decide(route))
    not_random = [i for i in ids if not is_random_uuid(i)]
    if not_random:
        return verdict(
            cannot_decide(
                f"{len(not_random)} conversation ID(s) are not random UUIDs (version 4), "
                f"e.g. {not_random[0]!r}: a decoy cannot stand in for them"
            )
        )
    least = rank_sum_p([0] * len(known), decoys)
    if not least < ALPHA:
        return verdict(
            cannot_decide(
                f"{len(known)} conversation(s) cannot reach alpha {ALPHA} against {decoys} "
                f"decoys each (smallest p-value {least:.3g})"
            )
        )
    p_value = rank_sum_p(known, decoys)
    return verdict(SUSPECTED if p_value < ALPHA else NOT_SUSPECTED, p_value)
