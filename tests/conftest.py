"""Shared fixtures: the bundled dataset, scratch copies of it, offline spy models, a headless
browser."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import rich
from hypothesis import settings
from inspect_ai import eval
from inspect_ai.model import ModelAPI

from attunebench_inspect import default
from attunebench_inspect._util.bundled import bundled_conversations_dir, bundled_dataset_dir
from attunebench_inspect.data import Codebook, load_codebook
from attunebench_inspect.instruments.profile._vocabulary import Vocabulary, load_vocabulary

BUNDLED = bundled_conversations_dir()
REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"

# Property tests draw the same examples on every run, so a run's result is reproducible and CI
# cannot fail on a draw no developer saw; HYPOTHESIS_PROFILE=explore draws afresh (and finds
# cases worth pinning with @example).
settings.register_profile("reproducible", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))


# `make test` runs the suite on two processes (pytest-xdist, `-n 2 --dist loadscope`). A unit of
# work is a module, so that the logs its module-scoped fixtures make are made once, or the modules
# that read the same session-scoped logs (SHARED_LOGS), so that those too are made once. The units
# that take longest (a third of the suite's CPU time between them) are handed out first, so that
# neither process is left running one alone at the end.
SHARED_LOGS = {
    "tests/core/score/test_catalog.py": "bundled baselines",
    "tests/core/score/test_metrics.py": "bundled baselines",
    "tests/tools/report/test_report.py": "known-skill logs",
    "tests/tools/report/test_figures.py": "known-skill logs",
    "tests/instruments/reannotation/test_report.py": "planted-model runs",
    "tests/instruments/reannotation/test_reannotation_abstention_table.py": "planted-model runs",
}
LONGEST = (
    "tests/tools/report/",
    "tests/e2e/test_s3.py",
    "tests/instruments/contamination/test_contamination.py",
    "tests/instruments/reannotation/test_report.py",
    "tests/instruments/reannotation/test_reannotation_abstention_table.py",
)


def _unit(nodeid: str) -> str:
    module = nodeid.split("::")[0]
    return SHARED_LOGS.get(module, module)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit(nodeid)

    config.option.loadscopereorder = False  # the units in the workers' order, below
    return ByUnit(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: not item.nodeid.startswith(LONGEST))


def pytest_configure(config: pytest.Config) -> None:
    """Runs made in the test process (all `display="none"`) skip two costs of Inspect's that
    nothing here reads, which were half of a small run's time: the live-view buffer (what
    `inspect view` shows of a run still going) and the results panel, which Inspect's display
    lays out in full before its quiet console drops it. The suite's commands run in subprocesses
    keep both, as a user's do. An Inspect that moved either name leaves its runs as they were:
    slower, not wrong."""
    try:
        from inspect_ai._display.rich import display as rich_display
        from inspect_ai._eval.task import log as task_log
    except ImportError:
        return
    defaults = getattr(task_log, "eval_config_defaults", None)
    if defaults is not None:
        task_log.eval_config_defaults = lambda: {**defaults(), "log_realtime": False}
    panel = getattr(rich_display, "tasks_results", None)
    if panel is not None:
        rich_display.tasks_results = lambda tasks: "" if rich.get_console().quiet else panel(tasks)


@pytest.fixture(autouse=True)
def offline_token_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inspect estimates tokens with tiktoken, which downloads its encoding on first use, for any
    model output without usage (pytest-inspect-evals' replay models among them). Tests are
    offline: estimate from characters instead."""

    async def by_characters(self: ModelAPI, text: str) -> int:
        return max(1, len(text) // 4)

    monkeypatch.setattr(ModelAPI, "count_text_tokens", by_characters)


@pytest.fixture(scope="session")
def codebook() -> Codebook:
    return load_codebook()


@pytest.fixture(scope="session")
def vocabulary() -> Vocabulary:
    return load_vocabulary()


@pytest.fixture(scope="session")
def bundled_files() -> list[Path]:
    return sorted(BUNDLED.glob("*.json"))


@pytest.fixture
def conversation_raw(bundled_files: list[Path]) -> dict[str, Any]:
    """A fresh copy of one bundled conversation (the 4-turn one used across tests)."""
    data: dict[str, Any] = json.loads(bundled_files[0].read_text())
    return data


@pytest.fixture
def small_dataset(tmp_path: Path, bundled_files: list[Path]) -> Callable[[int], Path]:
    """A folder holding the first `n` bundled conversations."""

    def make(n: int) -> Path:
        folder = tmp_path / f"data{n}"
        folder.mkdir()
        for file in bundled_files[:n]:
            shutil.copy(file, folder / file.name)
        return folder

    return make


@pytest.fixture(scope="session")
def baseline_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log folder as `make run` and `make run MODEL=attunebench/majority` leave one, small: the
    first bundled conversation run by both offline baselines."""

    root = tmp_path_factory.mktemp("baseline_logs")
    data = root / "data"
    data.mkdir()
    shutil.copy(sorted(BUNDLED.glob("*.json"))[0], data)
    for model in ("attunebench/random", "attunebench/majority"):
        eval(default(data=str(data)), model=model, display="none", log_dir=str(root / "logs"))
    return root / "logs"


@pytest.fixture
def chromium() -> Iterator[Any]:
    """A headless Chromium to launch; its event loop must be closed before Inspect runs one."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="needs Playwright (pip install playwright)"
    )
    executable = shutil.which("chromium")
    if executable is None:
        pytest.skip("needs Chromium on PATH (Debian: apt-get install chromium)")

    @contextmanager
    def launch() -> Iterator[Any]:
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
            yield browser
            browser.close()

    yield launch


@pytest.fixture
def deposit(tmp_path: Path) -> Path:
    """A folder laid out as the published deposit: Test Samples/Sample200/ and the codebook at
    its top (seed 003), here with three bundled conversations and a codebook of its own."""
    root = tmp_path / "deposit"
    sample = root / "Test Samples" / "Sample200"
    sample.mkdir(parents=True)
    for file in sorted(BUNDLED.glob("*.json"))[:3]:
        shutil.copy(file, sample)
    book = json.loads((bundled_dataset_dir() / "annotation_codebook.json").read_text())
    book["_note"] = "the deposit's own"
    (root / "annotation_codebook.json").write_text(json.dumps(book), encoding="utf-8")
    return root
