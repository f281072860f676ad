"""The human baseline: the page of questions, answer files replayed as runs, the comparison with
models in the report."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log

from attunebench_inspect import (
    TASK_VERSION,
    build_report,
    default,
    to_json,
    to_markdown,
    to_terminal,
)
from attunebench_inspect._suite.cli import main
from attunebench_inspect.data import Codebook
from attunebench_inspect.data._panas import PANAS_ITEMS
from attunebench_inspect.data._problems import InputError
from attunebench_inspect.instruments.human._answers import read_answers
from attunebench_inspect.instruments.human._export import page_data
from attunebench_inspect.tools.report._analyses import FEW_CONVERSATIONS
from tests.human_answers import (
    SHORTEST,
    answer_file,
    composite_of,
    data_folder,
    human_import,
    one_answered,
    only_log,
    oracle,
    page_of,
    split_all,
    turns_of,
    write_json,
)

# --- answers a person could have given, and the perfect ones ----------------------------------


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory, codebook: Codebook) -> dict[str, Any]:
    """Three conversations; an annotator answers two of them, one perfectly and one with gaps;
    the majority baseline runs on all three."""
    root = tmp_path_factory.mktemp("replayed")
    data = data_folder(root / "data", SHORTEST[:3])
    convs = split_all(data, codebook)
    perfect, gappy, unanswered = sorted(convs)
    gaps = oracle(*convs[gappy], codebook)
    for turn in gaps["turns"].values():
        del turn["draft"]  # no reply drafted
    first = gaps["turns"]["1"]["emotion"]["binary"]
    del first[next(iter(first))]  # one binary question left unanswered
    del gaps["turns"]["2"]["pairwise"]
    del gaps["post"]
    page = page_of([convs[perfect][0], convs[gappy][0]], codebook)
    answers = write_json(
        root / "oracle.json",
        answer_file("oracle", {perfect: oracle(*convs[perfect], codebook), gappy: gaps}, page=page),
    )
    logs = root / "logs"
    code = main(["human", "import", str(answers), "--data", str(data), "--log-dir", str(logs)])
    assert code == 0
    human = only_log(logs)
    eval(default(data=str(data)), model="attunebench/majority", display="none", log_dir=str(logs))
    return {
        "data": data,
        "logs": logs,
        "human": human,
        "ids": (perfect, gappy, unanswered),
        "convs": convs,
        "answers": answers,
    }


def test_replay_is_an_ordinary_run_of_the_answered_conversations(replayed: dict[str, Any]) -> None:
    log: EvalLog = replayed["human"]
    perfect, gappy, _ = replayed["ids"]
    assert log.status == "success"
    assert log.eval.model == "human/oracle"
    assert log.eval.task == "attunebench_inspect/default"
    assert log.samples is not None and sorted(str(s.id) for s in log.samples) == [perfect, gappy]
    # Every label matched: the pairwise labels, turns and conversations were recognised.
    assert composite_of(log, perfect)["composite"] == pytest.approx(100.0)
    assert composite_of(log, perfect)["parse_failures"] == 0
    # Gaps are parse failures, counted, and the conversation is still scored.
    turns = len(replayed["convs"][gappy][0].turns)
    gappy_value = composite_of(log, gappy)
    assert gappy_value["parse_failures"] == turns + 3
    assert gappy_value["calls"] == 4 * turns + 1
    assert 0 < gappy_value["composite"] < 100


def test_import_lists_unanswered_calls(
    replayed: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, gappy, _ = replayed["ids"]
    code, out, err = human_import(
        capsys,
        str(replayed["answers"]),
        "--data",
        str(replayed["data"]),
        "--log-dir",
        str(tmp_path),
    )
    assert code == 0 and err == f"data: {replayed['data']}, 3 conversations\n"
    head, *details = out.splitlines()
    assert head.startswith("human/oracle: 2 conversation(s), Composite ")
    assert ", 6 unanswered or incomplete (parse failures); log " in head
    assert details[0] == f"  {gappy}: turn 1 draft: the reply is empty"
    assert any(line.startswith(f"  {gappy}: turn 1 emotion: binary.") for line in details)
    assert any(
        line.startswith(f"  {gappy}: turn 2 pairwise: c01: Field required") for line in details
    )
    assert details[-1].startswith(f"  {gappy}: post-conversation: post_panas: Field required")


def test_report_compares_humans_with_models_on_shared_conversations(
    replayed: dict[str, Any],
) -> None:
    report = build_report([replayed["logs"]], resamples=300)
    rows = {(h.model, h.metric): h for h in report.human}
    composite = rows[("attunebench/majority", "composite")]
    assert composite.human == "human/oracle" and composite.conversations == 2
    # The model's value is over the two conversations the person answered, not its three.
    majority = next(r for r in report.leaderboard if r.model == "attunebench/majority")
    assert majority.composite.n == 3
    text = to_terminal(report)
    assert "Humans beside models, on the conversations both answered" in text
    # The table is wider than 120 columns and wraps in the terminal: its cells read whole in
    # Markdown.
    assert "| 2 (few) |" in to_markdown(report)
    assert f"Fewer than {FEW_CONVERSATIONS} conversations" in text
    # A person's run is compared on shared conversations, never ranked beside full runs.
    assert all(not r.model.startswith("human/") for r in report.leaderboard)
    assert composite.difference.estimate == pytest.approx(
        composite.human_value.estimate - composite.model_value.estimate
    )
    perfect, gappy, _ = replayed["ids"]
    (model_log,) = (
        read_eval_log(str(f))
        for f in replayed["logs"].glob("*.eval")
        if read_eval_log(str(f), header_only=True).eval.model == "attunebench/majority"
    )
    shared = [composite_of(model_log, i)["composite"] for i in (perfect, gappy)]
    assert composite.model_value.estimate == pytest.approx(sum(shared) / 2)
    assert json.loads(to_json(report))["human"]


def test_a_conversation_without_answers_is_an_error_not_a_guess(
    replayed: dict[str, Any], tmp_path: Path
) -> None:
    data, answers = str(replayed["data"]), str(replayed["answers"])
    perfect, gappy, unanswered = replayed["ids"]
    log = eval(
        default(data=data),
        model="human/oracle",
        model_args={"answers": answers, "data": data},
        display="none",
        log_dir=str(tmp_path),
    )[0]
    # The other conversations are still run (continue_on_fail); the run ends in error.
    assert log.status == "error"
    (failed,) = [s for s in log.samples or [] if s.error]
    assert str(failed.id) == unanswered and failed.error is not None
    said = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", failed.error.message).split())
    assert (
        f"matches no conversation of {answers}: run only the answered conversations "
        f"(--sample-id {perfect},{gappy})" in said
    )


def test_answers_from_another_harness_through_inspect_eval(
    tmp_path: Path, codebook: Codebook
) -> None:
    """The provider on its own, as any Inspect model: verbose-mode answers with reasoning."""
    data = data_folder(tmp_path / "data", SHORTEST[:1])
    ((cid, pair),) = split_all(data, codebook).items()
    answers = write_json(
        tmp_path / "harness.json",
        answer_file("harness", {cid: oracle(*pair, codebook, reasoning=True)}, mode="verbose"),
    )
    inspect = Path(sys.executable).parent / "inspect"
    result = subprocess.run(
        [
            str(inspect),
            "eval",
            "attunebench_inspect/verbose",
            "--model",
            "human/harness",
            "-M",
            f"answers={answers}",
            "-M",
            f"data={data}",
            "-T",
            f"data={data}",
            "--log-dir",
            str(tmp_path / "logs"),
            "--display",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    log = only_log(tmp_path / "logs")
    assert log.eval.model == "human/harness"
    assert composite_of(log, cid)["composite"] == pytest.approx(100.0)


NO_PAGE = (
    "page: missing; expected the exported page's id and conversations (the page saves them with "
    "task_version): the file cannot be checked against the page it was answered on (another "
    "harness's answers run with `inspect eval --model human/NAME -M answers=FILE`)"
)


def test_bad_answer_files_get_one_line_per_problem(
    tmp_path: Path, codebook: Codebook, capsys: pytest.CaptureFixture[str]
) -> None:
    data = data_folder(tmp_path / "data", SHORTEST[:1])
    cid = json.loads(SHORTEST[0].read_text(encoding="utf-8"))["conversationId"]
    malformed = write_json(
        tmp_path / "malformed.json",
        {
            "format": "attunebench-answers/0",
            "annotator": "a b",
            "extra": 1,
            "conversations": {
                cid: {
                    "turns": {
                        "1": {
                            "emotion": {
                                "mood_shift": {"happy": 3, "nervous": 9},
                                "binary": {"B1": {"observed": "maybe"}},
                            },
                            "pairwise": {"c01": {"winner": "4"}},
                        }
                    }
                }
            },
        },
    )
    elsewhere = write_json(
        tmp_path / "elsewhere.json",
        answer_file(
            "b",
            {"nope": {}, cid: {"turns": {"9": {}}}},
            codebook_sha256="0" * 64,
            task_version="2-A",
        ),
    )
    twice = write_json(tmp_path / "twice.json", answer_file("b", {cid: {}}))
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    files = [malformed, elsewhere, twice, tmp_path / "broken.json"]
    code, out, err = human_import(capsys, *map(str, files), "--data", str(data))
    assert code == 1 and out == ""
    m, e, t, b = map(str, files)
    path = f"conversations.{cid}.turns.1"
    assert err.splitlines()[0] == f"data: {data}, 1 conversations"
    assert err.splitlines()[1:] == [
        f"{m}: (top level): missing the required field task_version",
        f"{m}: (top level): found the field(s) extra; expected only annotator, codebook_sha256, "
        "conversations, format, mode, page, shuffle_seed, source, task_version",
        f"{m}: annotator: found a b; expected text matching ^[A-Za-z0-9][A-Za-z0-9._-]{{0,63}}$",
        f"{m}: {path}.emotion.binary.B1.observed: found maybe; expected one of yes, no, na",
        f"{m}: {path}.emotion.mood_shift: found the key happy; expected one of "
        + ", ".join(PANAS_ITEMS),
        f"{m}: {path}.emotion.mood_shift.nervous: found 9; expected one of 1, 2, 3, 4, 5, 6, 7",
        f"{m}: {path}.pairwise.c01.winner: found 4; expected one of 1, 2, 3",
        f"{m}: format: found attunebench-answers/0; expected attunebench-answers/1",
        f"{e}: codebook_sha256: found {'0' * 64}; expected {codebook.sha256} (the answers "
        f"were given to another codebook's questions than {codebook.path})",
        f"{e}: task_version: found 2-A; expected {TASK_VERSION.split('-')[0]}-* (the answers "
        "were given on the page of another task version than this suite's "
        f"{TASK_VERSION}: its questions or its replies' labels may differ)",
        f"{e}: conversations.{cid}.turns.9: found turn 9; expected 1 to {turns_of(SHORTEST[0])}",
        f"{e}: conversations.nope: found a conversation the data does not have",
        f"{e}: {NO_PAGE}",
        f"{t}: {NO_PAGE}",
        f"{t}: annotator: found b, as in {e}; expected one file per annotator (each is one run "
        "of its model)",
        f"{b}: invalid JSON (Expecting property name enclosed in double quotes at line 1 column 2)",
        "nothing imported: 16 problem(s)",
    ]
    assert not (tmp_path / "logs").exists()


def test_answer_files_with_unreadable_values_get_one_line_each(tmp_path: Path) -> None:
    """An integer past Python's limit on digits and a lone surrogate: values that would raise
    where they are read, or where they are written to the log."""
    text = json.dumps(answer_file("a", {"c1": {"turns": {"1": {"emotion": {"n": 0}}}}}))
    path = tmp_path / "answers.json"
    path.write_text(
        text.replace('"n": 0', '"n": ' + "9" * 5_000).replace('"a"', '"a\\udc00"'),
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        read_answers(path)
    assert str(caught.value).splitlines()[1:] == [
        f"{path}: annotator: found a lone surrogate \\udc00 (character 2); expected valid "
        "Unicode text (a \\ud800-\\udfff escape only as half of a surrogate pair)",
        f"{path}: conversations.c1.turns.1.emotion.n: found an integer of 5,000 digits; "
        f"expected a number of at most {sys.get_int_max_str_digits():,} digits",
    ]


# --- what an import refuses -----------------------------------------------------------------------


def test_a_second_import_of_an_annotator_needs_supersede(
    tmp_path: Path, codebook: Codebook, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = one_answered(tmp_path, codebook)
    args = [str(answers), "--data", str(tmp_path / "data"), "--log-dir", str(tmp_path / "logs")]
    assert human_import(capsys, *args)[0] == 0
    (first,) = (tmp_path / "logs").glob("*.eval")
    code, _, err = human_import(capsys, *args)
    assert code == 1
    assert (
        f"{answers}: annotator: found ann, already imported in {first.as_uri()} (default mode); "
        "expected a new annotator, or --supersede to replace that import (the report reads the "
        "newest log)"
    ) in err.splitlines()
    assert list((tmp_path / "logs").glob("*.eval")) == [first]
    assert human_import(capsys, *args, "--supersede")[0] == 0
    assert len(list((tmp_path / "logs").glob("*.eval"))) == 2
    report = build_report([tmp_path / "logs"], resamples=50)
    assert [r.model for r in report.runs] == ["human/ann"]
    assert any(s.reason == "superseded by a newer successful log" for s in report.skipped)


def test_answers_off_the_exported_page_are_refused(
    tmp_path: Path, codebook: Codebook, capsys: pytest.CaptureFixture[str]
) -> None:
    data = data_folder(tmp_path / "data", SHORTEST[:2])
    convs = split_all(data, codebook)
    shown, other = sorted(convs)
    page = {"id": page_data([convs[shown][0]], codebook, 0)["page"], "conversations": [shown]}
    both = {c: oracle(*convs[c], codebook) for c in (shown, other)}
    off_page = write_json(tmp_path / "off.json", answer_file("ann", both, page=page))
    code, _, err = human_import(capsys, str(off_page), "--data", str(data))
    assert code == 1
    assert (
        f"{off_page}: conversations.{other}: found a conversation that was not on the exported "
        f"page {page['id']} (it exported {shown}); expected only those"
    ) in err.splitlines()
    # The page's list cannot be widened by hand: the id is a digest of what the page showed.
    widened = {"id": page["id"], "conversations": [shown, other]}
    forged = write_json(tmp_path / "forged.json", answer_file("ann", both, page=widened))
    code, _, err = human_import(capsys, str(forged), "--data", str(data))
    assert code == 1 and f"{forged}: page.id: found {page['id']}; expected " in err
    honest = write_json(tmp_path / "ok.json", answer_file("ann", {shown: both[shown]}, page=page))
    code, out, _ = human_import(
        capsys, str(honest), "--data", str(data), "--log-dir", str(tmp_path)
    )
    assert code == 0 and out.startswith("human/ann: 1 conversation(s)")


def test_duplicate_keys_in_an_answer_file_are_located_warnings(
    tmp_path: Path, codebook: Codebook, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = one_answered(tmp_path, codebook)
    text = answers.read_text(encoding="utf-8")
    answers.write_text(text.replace('"annotator": "ann"', '"annotator": "bob", "annotator": "ann"'))
    logs = str(tmp_path / "logs")
    code, out, err = human_import(
        capsys, str(answers), "--data", str(tmp_path / "data"), "--log-dir", logs
    )
    assert code == 0 and out.startswith("human/ann: ")
    assert (
        f"warning: {answers}: annotator: found the key more than once in one object; expected "
        "each key once (the last value is used)"
    ) in err.splitlines()


def test_an_import_on_a_full_disk_leaves_no_log(
    tmp_path: Path,
    codebook: Codebook,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The disk fills as Inspect finishes the log: one line, and no log, whole or cut, among
    the runs a report reads."""
    from inspect_ai.log._recorders.eval import EvalRecorder

    async def full(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(EvalRecorder, "log_finish", full)
    answers = one_answered(tmp_path, codebook)
    logs = tmp_path / "logs"
    code, out, err = human_import(
        capsys, str(answers), "--data", str(tmp_path / "data"), "--log-dir", str(logs)
    )
    assert code == 1 and "Traceback" not in out + err
    assert out.strip() == (
        "human/ann: the replay did not succeed (OSError(28, 'No space left on device')); "
        "nothing was imported"
    )
    assert [p for p in logs.rglob("*") if p.is_file()] == []
