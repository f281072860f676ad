"""Re-judging the drafts of a stored log with another judge: `draft_rejudge`, for `inspect
score`."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from attunebench_inspect.data._samples import visible_of
from tests.conftest import BUNDLED
from tests.runs import logged_metric, run_main


@pytest.fixture(scope="module")
def unjudged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The log of a run without a judge: the random baseline on two conversations."""
    data = tmp_path_factory.mktemp("unjudged") / "data"
    data.mkdir()
    for file in sorted(BUNDLED.glob("*.json"))[:2]:
        shutil.copy(file, data / file.name)
    return Path(run_main(data, "attunebench/random").location)


def test_rejudge_scorer_judges_stored_drafts(unjudged: Path) -> None:
    from inspect_ai import score

    from attunebench_inspect.score import draft_rejudge

    log = read_eval_log(str(unjudged))
    # No judge bound: the draft metrics are absent from the results, not NaN.
    with pytest.raises(KeyError):
        logged_metric(log, "draft_judge")
    rescored = score(log, draft_rejudge(judge="attunebench/majority"), action="append")
    # The majority judge rates every draft 4 of 7 and answers "yes" about every draft; the
    # rejudged scores keep their own names.
    assert logged_metric(rescored, "rejudge_draft_judge", scorer="draft_rejudge") == pytest.approx(
        0.5
    )
    assert rescored.samples is not None
    value = rescored.samples[0].scores["draft_rejudge"].value
    assert isinstance(value, dict) and 0 < value["rejudge_draft_binary_alignment"] < 1
    metadata = rescored.samples[0].scores["draft_rejudge"].metadata or {}
    assert metadata["judge"] == "attunebench/majority"
    assert len(metadata["judgements"]) == len(visible_of(rescored.samples[0].metadata).turns)


def test_rejudge_without_a_judge_is_a_clear_error(unjudged: Path) -> None:
    from inspect_ai import score

    from attunebench_inspect.score import draft_rejudge

    log = read_eval_log(str(unjudged))
    with pytest.raises(ValueError, match="draft_rejudge needs a judge"):
        score(log, draft_rejudge(), action="append")


def test_report_shows_rejudged_drafts_beside_the_original_judge(
    small_dataset: Callable[[int], Path],
) -> None:
    from inspect_ai import score
    from inspect_ai.log import write_eval_log

    from attunebench_inspect import build_report
    from attunebench_inspect.score import draft_rejudge

    data = small_dataset(2)
    log = run_main(data, "attunebench/random", model_roles={"judge": "attunebench/majority"})
    rescored = score(log, draft_rejudge(judge="attunebench/random"), action="append")
    write_eval_log(rescored, log.location)
    [row] = build_report([log.location], resamples=100).leaderboard
    # The majority judge rates every draft 4 of 7; the random one anything from 1 to 7.
    assert row.metrics["draft_judge"].estimate == pytest.approx(0.5)
    assert row.metrics["rejudge_draft_judge"].estimate != pytest.approx(0.5)
    assert logged_metric(rescored, "draft_judge", scorer="draft_scorer") == pytest.approx(0.5)


def test_rejudge_command_runs_unattended(unjudged: Path, tmp_path: Path) -> None:
    """The README's rejudge command, with stdin closed as in a pipeline: no prompt, exit 0."""
    import subprocess
    import sys

    log = tmp_path / unjudged.name  # the command rewrites the log it scores
    shutil.copy(unjudged, log)
    inspect = Path(sys.executable).parent / "inspect"
    done = subprocess.run(
        [str(inspect), "score", str(log), "--scorer", "attunebench_inspect/draft_rejudge",
         "-S", "judge=attunebench/majority", "--action", "append", "--overwrite",
         "--display", "none"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    rescored = read_eval_log(str(log), header_only=True)
    assert rescored.results is not None
    assert "rejudge_draft_judge" in {s.name for s in rescored.results.scores}
