"""The false-positive rates and power of the stability verdicts (score/stability.py), measured
over seeds on choosers, judges and model pairs of known behaviour (the generators of
tests/instruments/stability/test_statistics.py), and the plan's table for docs/stability.md.

    nice -n 10 .venv/bin/python bench/stability.py            # 200 seeds; a few minutes
    nice -n 10 .venv/bin/python bench/stability.py --seeds 50

Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.instruments.stability.test_statistics import (
    Chooser,
    _two_models,
    choices_of,
    coin,
    content,
    earlier,
    middle,
    mixture,
)

from attunebench_inspect.instruments import stability as s
from attunebench_inspect.tools import plan as p

CHOOSERS: dict[str, Chooser] = {
    "reads the content": content,
    "flips a coin": coin,
    "earlier 10% of the time, else reads": mixture(0.1),
    "earlier 20% of the time, else reads": mixture(0.2),
    "earlier 40% of the time, else reads": mixture(0.4),
    "always the earlier (majority baseline)": earlier,
    "the middle when shown, else a coin": middle,
    "reads 25% of the time, else a coin": mixture(0.75, content, coin),
    "reads 50% of the time, else a coin": mixture(0.5, content, coin),
    "reads 75% of the time, else a coin": mixture(0.25, content, coin),
}
SIZES = ((25, 5), (200, 5))


def position(seeds: int) -> None:
    print("| chooser | conversations | position-biased | follows content (2 epochs) |")
    print("|---|---|---|---|")
    for name, chooser in CHOOSERS.items():
        for conversations, turns in SIZES:
            n = seeds if conversations == 25 else max(seeds // 4, 20)
            data = [
                choices_of(chooser, conversations=conversations, turns=turns, seed=seed)
                for seed in range(n)
            ]
            biased = sum(
                s.position_bias(d, resamples=50).verdict == "position-biased" for d in data
            )
            follows = sum(
                s.position_consistency(d, resamples=500).verdict == "follows content" for d in data
            )
            print(f"| {name} | {conversations} | {biased / n:.3f} | {follows / n:.3f} |")


def judges(seeds: int) -> None:
    for clustered in (False, True):
        covered = 0
        for seed in range(seeds):
            rng = random.Random(seed)
            data = [[rng.randint(1, 7) for _ in range(120)] for _ in range(2)]
            # 24 conversations of 5 drafts each, when the bootstrap draws conversations
            clusters = [f"c{u // 5:02d}" for u in range(120)] if clustered else None
            alpha = s.judge_agreement(
                data, "ordinal", s.RATING_DOMAIN, clusters=clusters, resamples=1000, seed=seed
            ).alpha
            covered += alpha.low <= 0 <= alpha.high
        over = "24 conversations of 5" if clustered else "drafts"
        print(f"\nrandom judges, 120 drafts, bootstrap over {over}: the 95% CI of alpha covers 0")
        print(f"in {covered / seeds:.3f}")


def ranks(seeds: int) -> None:
    print("\n| shift (points) | epochs resampled | settled |")
    print("|---|---|---|")
    for shift in (0.0, 1.0, 2.0, 3.0):
        for epochs in (False, True):
            settled = sum(
                bool(
                    s.rank_stability(
                        _two_models(seed, shift), resamples=1000, seed=seed, resample_epochs=epochs
                    ).settled()[0, 1]
                )
                for seed in range(seeds)
            )
            print(f"| {shift} | {epochs} | {settled / seeds:.3f} |")


def plans() -> None:
    variances = p.Variances(between=25.0, within_a=9.0, within_b=9.0)
    print("\nplan: b = 25, w_A = w_B = 9; power 0.8, alpha 0.05 (conversations per epochs)")
    print("\n| difference | E=1 | E=2 | E=3 | E=5 | E=10 |")
    print("|---|---|---|---|---|---|")
    for difference in (1.0, 2.0, 3.0, 5.0):
        rows = {r.epochs: r.conversations for r in p.plan(difference, variances, max_epochs=10)}
        print(f"| {difference} | " + " | ".join(str(rows[e]) for e in (1, 2, 3, 5, 10)) + " |")
    print("\npower at 200 conversations")
    print("\n| difference | E=1 | E=2 | E=3 | E=5 |")
    print("|---|---|---|---|---|")
    for difference in (1.0, 1.5, 2.0):
        cells = [f"{p.power(difference, variances, 200, e):.2f}" for e in (1, 2, 3, 5)]
        print(f"| {difference} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200)
    seeds = parser.parse_args().seeds
    position(seeds)
    judges(seeds)
    ranks(seeds)
    plans()


if __name__ == "__main__":
    main()
