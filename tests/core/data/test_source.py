"""Which data set a name means: the bundled set by default, a data set root laid out as the
published deposit, a folder or a file."""

from __future__ import annotations

from pathlib import Path

from attunebench_inspect._util.bundled import bundled_dataset_dir
from attunebench_inspect.data._source import resolve
from tests.conftest import BUNDLED


def test_data_set_roots_resolve_to_their_conversations_and_codebook(deposit: Path) -> None:
    bundled = resolve(None)
    assert bundled.bundled and bundled.conversations == bundled_dataset_dir() / "conversations"
    assert bundled.codebook is None  # the bundled codebook
    assert resolve(str(bundled_dataset_dir())).conversations == bundled.conversations
    found = resolve(str(deposit))
    assert found.conversations == deposit / "Test Samples" / "Sample200"
    assert found.codebook == deposit / "annotation_codebook.json"
    assert resolve(str(deposit), "mine.json").codebook == Path("mine.json")
    plain = resolve(str(BUNDLED))
    assert plain.conversations == BUNDLED and plain.codebook is None
