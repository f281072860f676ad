"""Response Similarity: the arithmetic offline, the packaged model when the extra is installed."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from inspect_ai._util.registry import registry_info

from attunebench_inspect.score import _similarity as similarity
from attunebench_inspect.score._scorers import attunebench_scorers


def _letters(texts: Sequence[str]) -> list[list[float]]:
    # A transparent stand-in embedding: counts of a, b and c.
    return [[float(t.count(ch)) for ch in "abc"] for t in texts]


def test_response_similarity_arithmetic() -> None:
    scores = similarity.response_similarity(["aab", None, "c"], ["aab", "abc", "a"], _letters)
    assert scores == [pytest.approx(1.0), 0.0, 0.0]
    assert similarity.cosine([1.0, 0.0], [1.0, 1.0]) == pytest.approx(2**-0.5)


def test_metric_is_absent_not_zero_without_the_extra() -> None:
    names = [registry_info(s).name for s in attunebench_scorers()]
    present = "attunebench_inspect/response_similarity_scorer" in names
    assert present == similarity.available()


@pytest.mark.slow
def test_packaged_minilm_embeds_offline() -> None:
    if not similarity.available():
        pytest.fail("install the similarity extra to run this test")
    embed = similarity.minilm()
    close = similarity.response_similarity(
        ["I'm so sorry about your dog."], ["I am really sorry your dog died."], embed
    )
    far = similarity.response_similarity(
        ["Here is a spreadsheet formula."], ["I am really sorry your dog died."], embed
    )
    assert close[0] > 0.6 > far[0]
