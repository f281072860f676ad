"""The `attunebench` command as a newcomer meets it: every data command takes a data set root and
defaults to the bundled set, and says which data set it read; hints name only what the command
offers; `validate` lists copyable IDs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attunebench_inspect import attunebench
from attunebench_inspect._suite.cli import main
from attunebench_inspect.data._problems import DataError

BUNDLED_LINE = (
    "data: the bundled synthetic set (25 conversations written for this project: demo and test "
    "numbers, not AttuneBench results)"
)


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
