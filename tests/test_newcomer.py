"""What a newcomer meets (issue 31, A): data set roots and the bundled set by default, a line
saying which data set a command read, hints that name only what the command offers, what
`inspect view` shows of a run, and an estimate that restates its inputs in 120 columns."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log

from attunebench_inspect import attunebench, default
from attunebench_inspect._suite.cli import main
from attunebench_inspect._util.bundled import bundled_dataset_dir
from attunebench_inspect.data._problems import DataError
from attunebench_inspect.data._source import resolve
from attunebench_inspect.score._viewer import SHOWN
from attunebench_inspect.tools._arguments import WIDTH
from tests.conftest import BUNDLED

BUNDLED_LINE = (
    "data: the bundled synthetic set (25 conversations written for this project: demo and test "
    "numbers, not AttuneBench results)"
)


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


def test_every_data_command_accepts_a_root_and_defaults_to_the_bundled_set(
    deposit: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root_line = f"data: {deposit} ({deposit / 'Test Samples' / 'Sample200'}), 3 conversations"
    for argv, line in (
        (["validate"], BUNDLED_LINE),
        (["validate", str(deposit)], root_line),
        (["estimate", "--breakdown"], BUNDLED_LINE),
        (["estimate", "--breakdown", "--data", str(deposit)], root_line),
    ):
        assert main(argv) == 0, argv
        # The estimate wraps its prose at 120 columns.
        assert " ".join(line.split()) in " ".join(capsys.readouterr().out.split()), argv
    for argv, line in (
        (["human", "export", "--sample", "2", "--out", str(tmp_path / "a.html")], BUNDLED_LINE),
        (["human", "export", "--data", str(deposit), "--sample", "2", "--out",
          str(tmp_path / "b.html")], root_line),
    ):  # fmt: skip
        assert main(argv) == 0, argv
        assert f"{line}; the page shows 2" in capsys.readouterr().err.splitlines(), argv


def test_a_run_on_a_root_uses_its_codebook_and_names_both_digests(
    deposit: Path, tmp_path: Path
) -> None:
    log = eval(
        default(data=str(deposit)),
        model="attunebench/random",
        display="none",
        log_dir=str(tmp_path / "logs"),
        limit=1,
    )[0]
    assert log.status == "success"
    metadata = log.eval.metadata or {}
    assert metadata["codebook"] == str(deposit / "annotation_codebook.json")
    assert metadata["data"] == str(deposit / "Test Samples" / "Sample200")
    assert log.eval.task_args["data"] == str(deposit)
    name = log.eval.dataset.name or ""
    assert name == (
        f"Sample200 (data sha256 {metadata['data_sha256'][:12]}, "
        f"codebook sha256 {metadata['codebook_sha256'][:12]})"
    )
    bundled = eval(
        default(), model="attunebench/random", display="none", log_dir=str(tmp_path), limit=1
    )[0]
    assert bundled.eval.task_args["data"] == "bundled"
    assert (bundled.eval.dataset.name or "").startswith("bundled synthetic set (data sha256 ")
    # Runs on different data are told apart by their digests.
    assert bundled.eval.metadata["data_sha256"] != metadata["data_sha256"]  # type: ignore[index]


def test_hints_name_only_what_the_command_offers(
    tmp_path: Path, conversation_raw: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    conversation_raw["conversationId"] = "../bad"
    (tmp_path / "c.json").write_text(json.dumps(conversation_raw), encoding="utf-8")
    with pytest.raises(DataError) as raised:
        attunebench(data=str(tmp_path))
    assert str(raised.value).splitlines()[-1] == (
        f"(check it with `attunebench validate {tmp_path}`; pass -T skip_invalid=true to run "
        "without the invalid conversations)"
    )
    with pytest.raises(DataError) as raised:  # passed already: every conversation is invalid
        attunebench(data=str(tmp_path), skip_invalid=True)
    assert (
        str(raised.value).splitlines()[-1] == f"(check it with `attunebench validate {tmp_path}`)"
    )
    capsys.readouterr()  # under --display none the task prints its error too
    for argv in (
        ["estimate", "--breakdown", "--data", str(tmp_path)],
        ["human", "export", "--data", str(tmp_path), "--sample", "1", "--out", "p.html"],
    ):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert (
            "skip_invalid" not in err
            and f"(check it with `attunebench validate {tmp_path}`)" in err
        )
    # A broken codebook is not the data's: no data hint at all.
    book = tmp_path / "book.json"
    book.write_text("{}", encoding="utf-8")
    assert main(["validate", "--codebook", str(book)]) == 1
    assert "attunebench validate" not in capsys.readouterr().err


def test_validate_lists_copyable_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--ids"]) == 0
    out = capsys.readouterr().out.splitlines()
    start = out.index("conversation IDs (for inspect eval --sample-id):")
    ids = [line.strip() for line in out[start + 1 :]]
    assert len(ids) == 25 and "4723fdd3-f278-4748-8b63-77aa00ff14e0" in ids


# --- inspect view ---------------------------------------------------------------------------------


@pytest.fixture
def one_run(baseline_logs: Path) -> Path:
    """The random baseline's log of one conversation."""
    return next(
        p
        for p in baseline_logs.glob("*.eval")
        if read_eval_log(str(p), header_only=True).eval.model == "attunebench/random"
    )


def test_a_samples_score_list_holds_metrics_and_the_counts_metrics_read(one_run: Path) -> None:
    log = read_eval_log(str(one_run))
    assert log.samples is not None
    scores = log.samples[0].scores or {}
    listed = [k for s in scores.values() if isinstance(s.value, dict) for k in s.value]
    # 57 at task version 3-A; 18 counts are now in metadata, and the stability scorer adds the
    # two a run-level metric reads (pairwise_choices, pairwise_earlier).
    assert len(listed) == 41
    binary = scores["binary_scorer"]
    assert {"om_tp", "hp_tn"} <= set(binary.value) and "om_n" not in binary.value  # type: ignore[operator]
    assert binary.metadata is not None and {"om_n", "hp_hp_facing_tn"} <= set(binary.metadata)
    assert set(scores["pairwise_scorer"].metadata or {}) == {"tau_defined", "tau_undefined"}


def test_the_viewer_opens_on_the_headline_columns(one_run: Path) -> None:
    viewer = read_eval_log(str(one_run), header_only=True).eval.viewer
    assert viewer is not None and viewer.task_samples_view is not None
    view = viewer.task_samples_view
    assert not isinstance(view, list) and view.columns is not None and view.score_labels
    shown = [c.id for c in view.columns if c.visible and c.id.startswith("score__")]
    assert shown == [f"score__composite_scorer__{name}" for name in SHOWN]
    assert view.score_labels["emotion_f1"] == "Emotion F1"


def test_the_explanation_table_has_only_short_cells(one_run: Path) -> None:
    log = read_eval_log(str(one_run))
    assert log.samples is not None
    text = (log.samples[0].scores or {})["composite_scorer"].explanation or ""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert rows[0] == "| turn | binary OM | binary HP | pairwise |"
    # No cell long enough to squeeze its neighbours to a letter a line.
    assert all(len(cell.strip()) <= 9 for row in rows for cell in row.strip("|").split("|"))
    assert "the Info tab, Store (`WalkStore:records`)" in text and "Store tab" not in text


# --- the estimate ---------------------------------------------------------------------------------


def test_the_estimate_restates_its_inputs_in_120_columns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [
        "estimate", "--mode", "all", "--judge", "--model", "openai/gpt-4o",
        "anthropic/claude-sonnet-4-6", "--price-in", "2.5", "3", "--price-out", "10", "15",
        "--breakdown",
    ]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(map(len, lines)) <= WIDTH
    assert lines[:2] == [
        "data: the bundled synthetic set (25 conversations written for this project: demo and "
        "test numbers, not AttuneBench",
        "results)",
    ]
    assert (
        "- openai/gpt-4o: input 2.5, output 10, cached input 1.25 (0.5x input, openai's "
        "documented price), batch 50% of every" in lines
    )
    assert "floor: the bill if every prefix a call shares with an earlier call were read" in out
    assert "Scaled to the deposit's 200 conversations (x8, as if each were like the 25 here;" in out
    scaled = next(line for line in lines if line.startswith("- openai/gpt-4o (total): "))
    assert "21,280 calls" in scaled


def test_metrics_df_still_has_every_count(baseline_logs: Path) -> None:
    from attunebench_inspect._suite.dataframes import metrics_df

    frame = metrics_df(baseline_logs)
    assert len(frame) == 2
    for count in ("om_n", "hp_hp_facing_tn", "tau_defined", "calls", "om_tp"):
        assert frame[count].notna().all(), count
