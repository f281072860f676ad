"""A base URL that carries credentials is warned of, masked, when the run starts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import get_model
from loopback.endpoint import Endpoint, EndpointConfig

from attunebench_inspect import attunebench
from attunebench_inspect.solve import _credentials as credentials
from tests.conftest import BUNDLED


def test_credentials_in_the_base_url_are_warned_of_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(sorted(BUNDLED.glob("*.json"))[2], data)
    warned: list[str] = []
    monkeypatch.setattr(credentials.logger, "warning", warned.append)
    with Endpoint(EndpointConfig(max_seconds=120)) as endpoint:
        url = endpoint.base_url.replace("http://", "http://user:s3cret@")
        model = get_model("openai-api/local/endpoint", base_url=url, api_key="k", memoize=False)
        log = eval(attunebench(data=str(data)), model=model, display="none", log_dir=str(tmp_path))[
            0
        ]
    assert log.status == "success"
    masked = url.replace("s3cret", "***")
    said = [w for w in warned if "carries credentials" in w]
    assert len(said) == 1 and said[0].startswith(f"the model base URL {masked} carries")
    assert all("s3cret" not in w for w in warned)
