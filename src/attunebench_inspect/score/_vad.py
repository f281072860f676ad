"""The 20x20 valence-arousal similarity matrix of the PANAS items.

Valence and arousal (0-1) are the NRC-VAD lexicon v1 entries of the 20 PANAS words:
Saif M. Mohammad, "Obtaining Reliable Human Ratings of Valence, Arousal, and Dominance for 20,000
English Words", ACL 2018. The lexicon is free for research use; NRC asks that it not be
redistributed, so only these 20 rows are kept here. Similarity = 1 - Euclidean distance in the
(valence, arousal) unit square / sqrt(2), which gives Distressed-Upset = 0.918, the 0.92 example
of the AttuneBench README."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..data._panas import PANAS_ITEMS

VALENCE_AROUSAL: dict[str, tuple[float, float]] = {
    "interested": (0.750, 0.529),
    "excited": (0.908, 0.931),
    "strong": (0.912, 0.745),
    "enthusiastic": (0.885, 0.868),
    "proud": (0.906, 0.700),
    "alert": (0.479, 0.820),
    "inspired": (0.967, 0.702),
    "determined": (0.760, 0.528),
    "attentive": (0.812, 0.520),
    "active": (0.847, 0.730),
    "distressed": (0.143, 0.771),
    "upset": (0.071, 0.680),
    "guilty": (0.135, 0.770),
    "scared": (0.146, 0.828),
    "hostile": (0.188, 0.877),
    "irritable": (0.112, 0.952),
    "ashamed": (0.156, 0.588),
    "nervous": (0.235, 0.820),
    "jittery": (0.344, 0.856),
    "afraid": (0.010, 0.775),
}

INDEX: dict[str, int] = {item: i for i, item in enumerate(PANAS_ITEMS)}


def _matrix() -> NDArray[np.float64]:
    points = np.array([VALENCE_AROUSAL[item] for item in PANAS_ITEMS])
    distances = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    result: NDArray[np.float64] = 1.0 - distances / math.sqrt(2.0)
    return result


SIMILARITY: NDArray[np.float64] = _matrix()


def similarity(a: str, b: str) -> float:
    return float(SIMILARITY[INDEX[a], INDEX[b]])
