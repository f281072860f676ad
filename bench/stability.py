"""The plan's tables of docs/stability.md ("How many epochs and conversations?"): conversations
needed for power 0.8 and the power with 200 conversations, under the plausible pilot b = 25,
w_A = w_B = 9 (pure arithmetic of `attunebench plan`). The stability verdicts' false-verdict
rates and power come from the verdict audit (bench/audit/run.py).

    .venv/bin/python bench/stability.py

Prints Markdown tables.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attunebench_inspect.instruments import stability as p


def plans() -> None:
    variances = p.Variances(between=25.0, within_a=9.0, within_b=9.0)
    print("plan: b = 25, w_A = w_B = 9; power 0.8, alpha 0.05 (conversations per epochs)")
    print("\n| difference (points) | E = 1 | E = 2 | E = 3 | E = 5 | E = 10 |")
    print("|---|---|---|---|---|---|")
    for difference in (1.0, 2.0, 3.0, 5.0):
        rows = {r.epochs: r.conversations for r in p.plan(difference, variances, max_epochs=10)}
        print(f"| {difference:g} | " + " | ".join(str(rows[e]) for e in (1, 2, 3, 5, 10)) + " |")
    print("\npower at 200 conversations")
    print("\n| difference (points) | E = 1 | E = 2 | E = 3 | E = 5 |")
    print("|---|---|---|---|---|")
    for difference in (1.0, 1.5, 2.0):
        cells = [f"{p.power(difference, variances, 200, e):.2f}" for e in (1, 2, 3, 5)]
        print(f"| {difference:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    plans()
