"""The planted models' runs, made once a session and only read after: the modules that study them
share one process (tests/conftest.py, SHARED_LOGS)."""

from __future__ import annotations

import pytest

from tests.third_party_world import PlantedRuns, planted_runs


@pytest.fixture(scope="session")
def planted(tmp_path_factory: pytest.TempPathFactory) -> PlantedRuns:
    return planted_runs(tmp_path_factory.mktemp("planted_runs"))
