"""llama-cpp-python's server (`python -m llama_cpp.server`, same arguments) with its
log-probability alternatives found by a partial sort: run by likelihood.py with the server's own
Python (the virtualenv that built llama-cpp-python[server]), never imported by the suite.

To answer `logprobs` = k, llama-cpp-python (0.3.36, llama_cpp/llama.py) sorts every position's
whole vocabulary in Python, `sorted(zip(logprobs, range(len(logprobs))), reverse=True)`, and
keeps the first k: 49,152 pairs per token for SmolLM2, 177 ms a token on this machine (2 shared
cores), 4 hours for one model's texts. Here the module's `sorted` is one that returns the same
first `TOP` pairs, in the same order (value, then index, both descending), from a partial sort
(numpy's argpartition); those three call sites are its only uses of `sorted`, and each reads at
most the first k <= TOP pairs. `check()` compares it with the builtin on random rows first.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable
from typing import Any

import numpy as np

TOP = 100
"""Alternatives kept per position: more than any request here asks (1 to 20)."""


def top_sorted(pairs: Iterable[tuple[Any, int]], reverse: bool = False) -> list[tuple[Any, int]]:
    """`sorted(zip(values, range(n)), reverse=True)[:TOP]` for the zip llama.py builds."""
    if not (reverse and isinstance(pairs, zip)):
        return sorted(pairs, reverse=reverse)
    values_iterator, _ = pairs.__reduce__()[1]
    _, (values, *_), *_ = values_iterator.__reduce__()
    row = np.asarray(values)
    keep = min(TOP, row.size)
    top = np.argpartition(row, row.size - keep)[row.size - keep :]
    # Ties at the cut may keep other indices than a full sort; within the kept pairs the order
    # is the full sort's.
    return sorted(((values[i], int(i)) for i in top), reverse=True)


def check() -> None:
    rng = random.Random(0)
    for size in (5, 150, 49_152):
        row = np.asarray([rng.gauss(0, 3) for _ in range(size)], dtype=np.float32)
        for values in (row, row.tolist()):
            want = sorted(zip(values, range(size), strict=True), reverse=True)[:TOP]
            if top_sorted(zip(values, range(size), strict=True), reverse=True) != want:
                sys.exit("llamacpp_server.py: the partial sort differs from the builtin")


if __name__ == "__main__":
    check()
    import llama_cpp.llama
    from llama_cpp.server.__main__ import main

    llama_cpp.llama.sorted = top_sorted  # type: ignore[attr-defined]
    main()
