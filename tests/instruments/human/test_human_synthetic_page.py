"""A human page made from the bundled set says first that its conversations are synthetic (and a
page of another data set does not), outside the page's digest, so pages exported before still
import."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from attunebench_inspect.data._codebook import load_codebook
from attunebench_inspect.data._source import resolve
from attunebench_inspect.instruments.human._export import export_page
from tests.conftest import BUNDLED

_DATA = re.compile(r'<script type="application/json" id="page-data">(.*?)</script>', re.DOTALL)


def _data(page: Path) -> dict[str, object]:
    found = _DATA.search(page.read_text(encoding="utf-8"))
    assert found is not None
    return dict(json.loads(found.group(1)))


def test_a_page_of_the_bundled_set_says_it_is_synthetic(tmp_path: Path) -> None:
    files = sorted(BUNDLED.glob("*.json"))[:2]
    ids = [json.loads(f.read_text())["conversationId"] for f in files]
    folder = tmp_path / "mine"
    folder.mkdir()
    for file in files:
        shutil.copy(file, folder)
    book = load_codebook(None)
    bundled, mine = tmp_path / "bundled.html", tmp_path / "mine.html"
    export_page(resolve(None), book, bundled, ids=ids)
    export_page(resolve(str(folder)), book, mine, ids=ids)
    assert _data(bundled)["synthetic"] is True and _data(mine)["synthetic"] is False
    # The digest that names the page does not read the flag: the same conversations, one page.
    assert _data(bundled)["page"] == _data(mine)["page"]
