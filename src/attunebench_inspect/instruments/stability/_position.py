"""Position: where a model's pairwise choices fall by display position (`position_bias`), and
whether it chooses the same reply by content when the pair is shown in the other order in
another epoch (`position_consistency`); from the pairwise call records (`pair_choices`)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..._util.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    EMPTY,
    Interval,
    percentile_interval,
    resample_counts,
)
from ..._util.verdict import cannot_decide
from ...data._split import comparison_pair
from ._rules import (
    BIAS_ALPHA,
    BIAS_MARGIN,
    MIN_CLUSTERS,
    MIN_COMPARISONS,
    MIN_SWAPS,
    NAN,
    RULES,
    Matrix,
)


def _ratio_intervals(
    numerators: Matrix, denominators: Matrix, resamples: int, seed: int, level: float
) -> list[Interval]:
    """Per column, sum(numerator) / sum(denominator) over rows (conversations) and its
    percentile bootstrap interval, the rows resampled with the suite's draws."""
    counts = resample_counts(numerators.shape[0], resamples, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        replicates = (counts @ numerators) / (counts @ denominators)
        estimates = numerators.sum(axis=0) / denominators.sum(axis=0)
    low, high = percentile_interval(replicates, level)
    rows = numerators.shape[0]
    return [
        Interval(float(e), float(lo), float(hi), rows)
        for e, lo, hi in zip(estimates, low, high, strict=True)
    ]


# --- pairwise choices, as a pairwise call leaves them ------------------------------------------


@dataclass(frozen=True)
class PairChoice:
    """One comparison of one pairwise call: which two replies were shown where, and which the
    model chose. Positions are 1-based display positions (the labels' order in the call)."""

    conversation: str
    epoch: int
    turn: int
    comparison: str
    """The comparison's ground-truth key (question and unordered pair): the same in every epoch."""
    earlier: str
    """The source shown earlier of the two."""
    later: str
    positions: tuple[int, int]
    """The display positions of `earlier` and `later` (earlier first)."""
    chosen: str

    @property
    def chose_earlier(self) -> bool:
        return self.chosen == self.earlier

    @property
    def chosen_position(self) -> int:
        return self.positions[0] if self.chose_earlier else self.positions[1]


def pair_choices(
    conversation: str,
    epoch: int,
    turn: int,
    shown: Sequence[str],
    chosen: Mapping[str, str],
) -> list[PairChoice]:
    """The choices of one pairwise call: `shown` is the three sources in display order, `chosen`
    each answered comparison's key -> the source chosen (`_record.py`). A key naming a source
    not shown, or a choice outside its comparison, is a ValueError naming the call."""
    where = {source: i for i, source in enumerate(shown, start=1)}
    choices = []
    for key, source in chosen.items():
        a, b = comparison_pair(key)
        if a not in where or b not in where:
            raise ValueError(
                f"conversation {conversation} turn {turn} comparison {key}: names a source "
                f"not shown (shown: {', '.join(shown)})"
            )
        if source not in (a, b):
            raise ValueError(
                f"conversation {conversation} turn {turn} comparison {key}: the choice "
                f"{source!r} is neither of the compared replies ({a}, {b})"
            )
        earlier, later = sorted((a, b), key=where.__getitem__)
        positions = (where[earlier], where[later])
        choices.append(
            PairChoice(conversation, epoch, turn, key, earlier, later, positions, source)
        )
    return choices


# --- 1. position bias --------------------------------------------------------------------------

PositionVerdict = str
"""One of READINGS["position_bias"], or "cannot decide: <reason>"."""


@dataclass(frozen=True)
class PositionShare:
    position: int
    share: Interval
    """Of all choices, the share that went to this display position."""
    expected: float
    """The share a content-blind uniform chooser gives it: half the share of comparisons that
    show it (1/3 only when every pair of positions is compared equally often)."""


@dataclass(frozen=True)
class PositionBias:
    choices: int
    conversations: int
    earlier: Interval
    """The share of choices that went to the earlier-displayed reply (expected 1/2)."""
    positions: list[PositionShare]
    chi2: float
    """Pearson's chi-square over the displayed pairs (each pair's earlier count against half)."""
    permutation_p: float
    """The chi-square's p under the shuffle itself: the share of draws of the display orders
    (`_permutation_test`) whose chi-square is at least the observed one."""
    deviation: float
    """The largest distance of a share (the earlier one's, a position's) from its expectation."""
    verdict: PositionVerdict
    rule: str = RULES["position_bias"]


@dataclass(frozen=True)
class _ByPosition:
    """Choices counted per conversation (rows) and per display position."""

    conversations: int
    total: Matrix
    earlier: Matrix
    chosen: Matrix
    """(conversations, positions): choices that went to each display position."""
    shown: Matrix
    """(conversations, positions): comparisons that showed each display position."""


def _by_position(choices: Sequence[PairChoice]) -> _ByPosition:
    row = {conv: i for i, conv in enumerate(sorted({c.conversation for c in choices}))}
    n, width = len(row), max((p for c in choices for p in c.positions), default=0)
    counts = _ByPosition(
        n, np.zeros((n, 1)), np.zeros((n, 1)), np.zeros((n, width)), np.zeros((n, width))
    )
    for c in choices:
        i = row[c.conversation]
        counts.total[i, 0] += 1
        counts.earlier[i, 0] += c.chose_earlier
        counts.chosen[i, c.chosen_position - 1] += 1
        for p in c.positions:
            counts.shown[i, p - 1] += 1
    return counts


def _chi_square(counts: Matrix, cells: int) -> Matrix:
    """Pearson's chi-square of each row of counts [n_1..n_k, earlier_1..earlier_k] over the k
    displayed pairs of positions, each pair's counts against half (tests pin it to scipy's)."""
    n, earlier = counts[:, :cells], counts[:, cells:]
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(n > 0, (2 * earlier - n) ** 2 / n, 0.0)
    return np.asarray(terms.sum(axis=1), dtype=float)


PERMUTATION_CHUNK = 1000
"""Draws of the display orders summed at once (a draw holds every unit's counts)."""


def _layouts(choices: Sequence[PairChoice]) -> tuple[Matrix, int]:
    """(units, relabellings, 2k): per unit of the shuffle (a conversation's turn,
    `solve._solver.pairwise_labels`) and per relabelling of its replies, the counts
    [n_s, earlier_s] per displayed pair of positions s had the shuffle put each reply where the
    relabelling's image was shown, the chosen replies unchanged; and k. Relabelling 0 is the
    identity (the data)."""
    width = max(p for c in choices for p in c.positions)
    cell = {pair: i for i, pair in enumerate(itertools.combinations(range(1, width + 1), 2))}
    units: dict[tuple[str, int], list[PairChoice]] = defaultdict(list)
    for c in choices:
        units[(c.conversation, c.turn)].append(c)
    sources = sorted({s for c in choices for s in (c.earlier, c.later)})
    relabellings = [dict(zip(sources, p, strict=True)) for p in itertools.permutations(sources)]
    counts = np.zeros((len(units), len(relabellings), 2 * len(cell)))
    # In the units' own order, not the records': the draws then fall on the same turns
    # whatever order a log's reader hands the samples in.
    for u, unit in enumerate(units[key] for key in sorted(units)):
        where: dict[int, dict[str, int]] = defaultdict(dict)
        for c in unit:
            where[c.epoch] |= {c.earlier: c.positions[0], c.later: c.positions[1]}
        for shown in where.values():
            # A reply no comparison of the call named sat in the position left over.
            left = sorted(set(range(1, width + 1)) - set(shown.values()))
            shown |= dict(zip((s for s in sources if s not in shown), left, strict=False))
        for r, relabel in enumerate(relabellings):
            for c in unit:
                other = c.later if c.chose_earlier else c.earlier
                chosen = where[c.epoch].get(relabel[c.chosen], c.chosen_position)
                beside = where[c.epoch].get(relabel[other], sum(c.positions) - c.chosen_position)
                k = cell[(min(chosen, beside), max(chosen, beside))]
                counts[u, r, k] += 1
                counts[u, r, len(cell) + k] += chosen < beside
    return counts, len(cell)


def _permutation_test(
    layouts: Matrix, cells: int, resamples: int, seed: int
) -> tuple[float, float]:
    """The chi-square of the data and its Monte Carlo p under the null that the chosen reply
    follows the content alone: each turn's display order redrawn as the solver drew it (one
    permutation of its replies, the same in every epoch), every chosen reply kept;
    p = (1 + draws at least as large) / (1 + draws) (Fisher 1935; Phipson & Smyth 2010)."""
    observed = float(_chi_square(layouts[:, 0].sum(axis=0, keepdims=True), cells)[0])
    units, options = layouts.shape[:2]
    rng = np.random.default_rng(seed)
    above = 0
    for start in range(0, resamples, PERMUTATION_CHUNK):
        drawn = rng.integers(0, options, size=(min(PERMUTATION_CHUNK, resamples - start), units))
        totals = layouts[np.arange(units), drawn].sum(axis=1)
        # A relative tolerance: a draw that reproduces the data sums in another order.
        above += int((_chi_square(totals, cells) >= observed * (1 - 1e-9)).sum())
    return observed, (1 + above) / (1 + resamples)


def _bias_verdict(count: int, p: float, deviation: float) -> PositionVerdict:
    if count < MIN_COMPARISONS:
        return cannot_decide(f"{count} choice(s); the rule needs {MIN_COMPARISONS}")
    if p < BIAS_ALPHA and deviation >= BIAS_MARGIN:
        return "position-biased"
    return "no position bias found"


def position_bias(
    choices: Sequence[PairChoice],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> PositionBias:
    """Where the model's pairwise choices fall by display position, against a chooser blind to
    the display order (every epoch's choices; one model and mode): Pearson's chi-square over the
    displayed pairs of positions, its p from redrawing each turn's display order
    (`_permutation_test`: the answers of one call are dependent), the shares' intervals from a
    bootstrap over conversations; read by RULES["position_bias"]. The test and why it is not
    the chi-square's own p: docs/stability.md, 'Does the answer follow the content? (position)'."""
    count = len(choices)
    if count == 0:
        return PositionBias(0, 0, EMPTY, [], NAN, NAN, NAN, _bias_verdict(0, NAN, NAN))
    by = _by_position(choices)
    width = by.chosen.shape[1]
    share_earlier = _ratio_intervals(by.earlier, by.total, resamples, seed, level)[0]
    shares = _ratio_intervals(by.chosen, np.repeat(by.total, width, axis=1), resamples, seed, level)
    expected = by.shown.sum(axis=0) / (2 * count)
    position_shares = [
        PositionShare(p, shares[p - 1], float(expected[p - 1])) for p in range(1, width + 1)
    ]
    chi2, p = _permutation_test(*_layouts(choices), resamples, seed)
    deviation = max(
        abs(share_earlier.estimate - 0.5),
        *(abs(s.share.estimate - s.expected) for s in position_shares),
    )
    verdict = _bias_verdict(count, p, float(deviation))
    return PositionBias(
        count, by.conversations, share_earlier, position_shares, chi2, p, float(deviation), verdict
    )


# --- 2. position consistency -------------------------------------------------------------------

ConsistencyVerdict = str
"""One of READINGS["position_consistency"], or "cannot decide: <reason>"."""
UNIFORM_CHANCE = 0.5
"""The consistency of a coin-flipper: P(same reply) = 1/2 * 1/2 + 1/2 * 1/2."""


@dataclass(frozen=True)
class PositionConsistency:
    epochs: int
    swaps: int
    """Pairs of epochs x comparisons in which the two replies were shown in opposite order."""
    conversations: int
    consistency: Interval
    """The share of swaps in which the model chose the same reply (by content) both times."""
    chance: float
    """The consistency a content-blind chooser with this model's position shares would reach."""
    excess: Interval
    """consistency - chance, with its bootstrap interval (the verdict reads this)."""
    verdict: ConsistencyVerdict
    chance_uniform: float = UNIFORM_CHANCE
    rule: str = RULES["position_consistency"]


@dataclass(frozen=True)
class _SwapTable:
    """Per conversation (rows): earlier choices and choices per displayed pair of positions
    (cells; for the chooser's own position shares q), swaps per pair of cells (for the chance
    of each swap), swaps, and consistent swaps."""

    earlier: Matrix
    shown: Matrix
    swap_cells: Matrix
    swaps: Matrix
    consistent: Matrix

    def chance(self, draws: Matrix) -> Matrix:
        """The content-blind chance of the swaps of each draw of rows (a row of ones: the data)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            q = (draws @ self.earlier) / (draws @ self.shown)  # (draws, cells)
            pair = q[:, :, None] * (1 - q[:, None, :]) + (1 - q[:, :, None]) * q[:, None, :]
            pair = np.nan_to_num(pair.reshape(len(q), -1))
            swaps = (draws @ self.swaps)[:, 0]
            result: Matrix = ((draws @ self.swap_cells) * pair).sum(axis=1) / swaps
        return result


def _swap_table(choices: Sequence[PairChoice], conversations: Sequence[str]) -> _SwapTable:
    row = {conv: i for i, conv in enumerate(conversations)}
    cell = {pair: i for i, pair in enumerate(sorted({c.positions for c in choices}))}
    cells, n = len(cell), len(conversations)
    table = _SwapTable(
        earlier=np.zeros((n, cells)),
        shown=np.zeros((n, cells)),
        swap_cells=np.zeros((n, cells * cells)),
        swaps=np.zeros((n, 1)),
        consistent=np.zeros((n, 1)),
    )
    by_comparison: dict[tuple[str, int, str], list[PairChoice]] = defaultdict(list)
    for c in choices:
        i = row[c.conversation]
        table.earlier[i, cell[c.positions]] += c.chose_earlier
        table.shown[i, cell[c.positions]] += 1
        by_comparison[(c.conversation, c.turn, c.comparison)].append(c)
    for (conversation, _, _), group in by_comparison.items():
        i = row[conversation]
        for a, b in itertools.combinations(sorted(group, key=lambda c: c.epoch), 2):
            if a.earlier == b.earlier:
                continue
            table.swaps[i, 0] += 1
            table.consistent[i, 0] += a.chosen == b.chosen
            table.swap_cells[i, cell[a.positions] * cells + cell[b.positions]] += 1
    return table


@dataclass(frozen=True)
class ConsistencyPoint:
    swaps: int
    consistency: float
    chance: float


def consistency_point(choices: Sequence[PairChoice]) -> ConsistencyPoint | None:
    """Position consistency and its chance, no intervals (for a log metric); None without a swap."""
    conversations = sorted({c.conversation for c in choices})
    table = _swap_table(choices, conversations)
    swaps = int(table.swaps.sum())
    if swaps == 0:
        return None
    chance = float(table.chance(np.ones((1, len(conversations))))[0])
    return ConsistencyPoint(swaps, float(table.consistent.sum() / swaps), chance)


def _consistency_verdict(
    epochs: int, swaps: int, conversations: int, excess: Interval
) -> ConsistencyVerdict:
    if epochs < 2:
        return cannot_decide(f"{epochs} epoch(s); swaps need 2 or more")
    if swaps < MIN_SWAPS:
        return cannot_decide(f"{swaps} swapped pair(s); the rule needs {MIN_SWAPS}")
    if conversations < MIN_CLUSTERS:
        return cannot_decide(f"{conversations} conversation(s); the interval needs {MIN_CLUSTERS}")
    if excess.low > 0:
        return "follows content"
    if excess.high < 0:
        return "against content"
    return "consistent only by chance"


def position_consistency(
    choices: Sequence[PairChoice],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> PositionConsistency:
    """Position consistency across epochs: does the model choose the same reply when the pair is
    shown in the opposite order? A swap is one comparison in two epochs whose earlier-displayed
    reply differs (a pair that only moved, (1,2) to (1,3), is not one: an earlier-picker stays
    "consistent" there without reading); every pair of epochs counts. The excess over the
    chance of a content-blind chooser with the model's own position shares, q recomputed in
    every replicate, is read by RULES["position_consistency"] (docs/stability.md, 'Does the
    answer follow the content? (position)')."""
    epochs = len({c.epoch for c in choices})
    conversations = sorted({c.conversation for c in choices})
    n = len(conversations)
    table = _swap_table(choices, conversations)
    total = int(table.swaps.sum())
    if epochs < 2 or total == 0:
        verdict = _consistency_verdict(epochs, total, n, EMPTY)
        return PositionConsistency(epochs, 0, n, EMPTY, NAN, EMPTY, verdict)
    chance = float(table.chance(np.ones((1, n)))[0])
    consistency = _ratio_intervals(table.consistent, table.swaps, resamples, seed, level)[0]
    # The excess's replicates: the same draws, q recomputed in each.
    counts = resample_counts(n, resamples, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        draws = (counts @ table.consistent) / (counts @ table.swaps) - table.chance(counts)[:, None]
    low, high = percentile_interval(draws, level)
    excess = Interval(consistency.estimate - chance, float(low[0]), float(high[0]), n)
    verdict = _consistency_verdict(epochs, total, n, excess)
    return PositionConsistency(epochs, total, n, consistency, chance, excess, verdict)
