"""The human baseline: the page of questions, answer files replayed as runs, the comparison with
models in the report."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig
from inspect_ai.util import Store

from attunebench_inspect import TASK_VERSION, default
from attunebench_inspect._suite.cli import main
from attunebench_inspect._suite.render import to_json, to_markdown, to_terminal
from attunebench_inspect._suite.report import build_report
from attunebench_inspect.data import Codebook, load_conversations, split
from attunebench_inspect.data._panas import PANAS_ITEMS
from attunebench_inspect.data._problems import InputError
from attunebench_inspect.data._split import GroundTruth, VisibleConversation
from attunebench_inspect.instruments.human._answers import read_answers
from attunebench_inspect.instruments.human._export import page_data
from attunebench_inspect.instruments.human._replay import HumanReplayAPI
from attunebench_inspect.solve import read_walk
from attunebench_inspect.solve._schemas import call_of
from attunebench_inspect.solve._solver import pairwise_labels
from attunebench_inspect.tools.report._analyses import FEW_CONVERSATIONS
from tests.conftest import BUNDLED
from tests.spy import Spy
from tests.test_protocol import CANARIES, _every_label_changed, _with_canaries

_TURN = re.compile(r'<participant turn="(\d+)">')
_RESPONSE = re.compile(r'<response label="(\d)">\n(.*?)\n</response>', re.DOTALL)
_COMPARISON = re.compile(r"^- (c\d+): (.*) Reply (\d) or reply (\d)\?$", re.MULTILINE)


def _turns(file: Path) -> int:
    return len(json.loads(file.read_text(encoding="utf-8"))["turns"])


# The shortest bundled conversations keep the browser and replay tests fast.
SHORTEST = sorted(BUNDLED.glob("*.json"), key=lambda f: (_turns(f), f.name))


def _data(folder: Path, files: list[Path]) -> Path:
    folder.mkdir()
    for file in files:
        shutil.copy(file, folder / file.name)
    return folder


def _split(data: Path, codebook: Codebook) -> dict[str, tuple[VisibleConversation, GroundTruth]]:
    return {
        c.conversation.conversationId: split(c.conversation)
        for c in load_conversations(data, codebook).conversations
    }


def _scores(log: EvalLog) -> dict[str, dict[str, Any]]:
    assert log.samples is not None
    return {str(s.id): {k: v.value for k, v in s.scores.items()} for s in log.samples}


def _composite(log: EvalLog, sample_id: str) -> dict[str, float]:
    value = _scores(log)[sample_id]["composite_scorer"]
    assert isinstance(value, dict)
    return value


def _import(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["human", "import", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _only_log(folder: Path) -> EvalLog:
    (file,) = folder.glob("*.eval")
    return read_eval_log(str(file))


# --- answers a person could have given, and the perfect ones ----------------------------------


def _with_reason(answer: dict[str, str]) -> dict[str, str]:
    return {"reasoning": "From what they wrote.", **answer}


def oracle(
    visible: VisibleConversation,
    truth: GroundTruth,
    codebook: Codebook,
    *,
    reasoning: bool = False,
) -> dict[str, Any]:
    """The answers of one conversation that match every label (through the solver's labels)."""
    reason = _with_reason if reasoning else (lambda a: a)
    turns: dict[str, Any] = {}
    for turn, gold in zip(visible.turns, truth.turns, strict=True):
        n = turn.turn_number
        label_of = {s: label for label, s in pairwise_labels(0, visible.conversation_id, n).items()}
        binary = {
            q: reason({"observed": b.observed, "preferred": b.preferred})
            for q, b in gold.binary.items()
        }
        emotion: dict[str, Any] = {"mood_shift": gold.mood_shift, "binary": binary}
        turns[str(n)] = {
            "draft": f"A reply to turn {n}.",
            "emotion": _with_reason(emotion) if reasoning else emotion,
            "binary_hp": {"binary": {q: dict(a) for q, a in binary.items()}},
            "pairwise": {
                f"c{i + 1:02d}": reason({"winner": label_of[gold.pairwise[c.key]]})
                for i, c in enumerate(turn.comparisons)
            },
        }
    own = [o for o in truth.q3_follow_up if o not in codebook.follow_up_options]
    post: dict[str, Any] = {
        "post_panas": truth.post_panas,
        "q1_looking_for": {o: o in truth.q1_looking_for for o in codebook.q1_options},
        "q2_emotion_clarity": truth.q2_emotion_clarity,
        "q3_model_fit": truth.q3_model_fit,
        "q3_follow_up": {o: o in truth.q3_follow_up for o in codebook.follow_up_options},
        "four_branch": truth.four_branch,
        **({"q3_follow_up_own_words": "; ".join(own)} if own else {}),
    }
    return {"turns": turns, "post": _with_reason(post) if reasoning else post}


def answer_file(annotator: str, conversations: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "format": "attunebench-answers/1",
        "annotator": annotator,
        "conversations": conversations,
        **extra,
    }


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, indent=1), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory, codebook: Codebook) -> dict[str, Any]:
    """Three conversations; an annotator answers two of them, one perfectly and one with gaps;
    the majority baseline runs on all three."""
    root = tmp_path_factory.mktemp("replayed")
    data = _data(root / "data", SHORTEST[:3])
    convs = _split(data, codebook)
    perfect, gappy, unanswered = sorted(convs)
    gaps = oracle(*convs[gappy], codebook)
    for turn in gaps["turns"].values():
        del turn["draft"]  # no reply drafted
    first = gaps["turns"]["1"]["emotion"]["binary"]
    del first[next(iter(first))]  # one binary question left unanswered
    del gaps["turns"]["2"]["pairwise"]
    del gaps["post"]
    answers = _write(
        root / "oracle.json",
        answer_file("oracle", {perfect: oracle(*convs[perfect], codebook), gappy: gaps}),
    )
    logs = root / "logs"
    code = main(["human", "import", str(answers), "--data", str(data), "--log-dir", str(logs)])
    assert code == 0
    human = _only_log(logs)
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
    assert _composite(log, perfect)["composite"] == pytest.approx(100.0)
    assert _composite(log, perfect)["parse_failures"] == 0
    # Gaps are parse failures, counted, and the conversation is still scored.
    turns = len(replayed["convs"][gappy][0].turns)
    gappy_value = _composite(log, gappy)
    assert gappy_value["parse_failures"] == turns + 3
    assert gappy_value["calls"] == 4 * turns + 1
    assert 0 < gappy_value["composite"] < 100


def test_import_lists_unanswered_calls(
    replayed: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, gappy, _ = replayed["ids"]
    code, out, err = _import(
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
    shared = [_composite(model_log, i)["composite"] for i in (perfect, gappy)]
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
    data = _data(tmp_path / "data", SHORTEST[:1])
    ((cid, pair),) = _split(data, codebook).items()
    answers = _write(
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
    log = _only_log(tmp_path / "logs")
    assert log.eval.model == "human/harness"
    assert _composite(log, cid)["composite"] == pytest.approx(100.0)


def test_bad_answer_files_get_one_line_per_problem(
    tmp_path: Path, codebook: Codebook, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _data(tmp_path / "data", SHORTEST[:1])
    cid = json.loads(SHORTEST[0].read_text(encoding="utf-8"))["conversationId"]
    malformed = _write(
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
    elsewhere = _write(
        tmp_path / "elsewhere.json",
        answer_file(
            "b",
            {"nope": {}, cid: {"turns": {"9": {}}}},
            codebook_sha256="0" * 64,
            task_version="2-A",
        ),
    )
    twice = _write(tmp_path / "twice.json", answer_file("b", {cid: {}}))
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    files = [malformed, elsewhere, twice, tmp_path / "broken.json"]
    code, out, err = _import(capsys, *map(str, files), "--data", str(data))
    assert code == 1 and out == ""
    m, e, t, b = map(str, files)
    path = f"conversations.{cid}.turns.1"
    assert err.splitlines()[0] == f"data: {data}, 1 conversations"
    assert err.splitlines()[1:] == [
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
        f"{e}: conversations.{cid}.turns.9: found turn 9; expected 1 to {_turns(SHORTEST[0])}",
        f"{e}: conversations.nope: found a conversation the data does not have",
        f"{t}: annotator: found b, as in {e}; expected one file per annotator (each is one run "
        "of its model)",
        f"{b}: invalid JSON (Expecting property name enclosed in double quotes at line 1 column 2)",
        "nothing imported: 13 problem(s)",
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


# --- the page ------------------------------------------------------------------------------------


def test_no_label_reaches_the_page(tmp_path: Path, conversation_raw: dict[str, Any]) -> None:
    """Canaries in every free-text label field and in the participant's background (default mode
    shows none of it) stay out of the page, and changing every label (tags, binary values,
    winners, PANAS, questionnaire) leaves it byte-identical. The page's data is all in its HTML,
    so no browser is needed."""
    planted = _with_canaries(conversation_raw)
    profile = planted["participant_profile"]
    background = ("CANARY-participant-id-51f0", "CANARY-country-c3d9", "CANARY-attitude-0be4")
    profile["participant_id"], profile["demographics"]["country"] = background[:2]
    profile["conversation_topic_attitude"] = background[2]
    pages = {}
    for name, raw in (
        ("planted", planted),
        ("original", conversation_raw),
        ("changed", _every_label_changed(conversation_raw)),
    ):
        data = tmp_path / name
        data.mkdir()
        (data / "c.json").write_text(json.dumps(raw), encoding="utf-8")
        out = tmp_path / f"{name}.html"
        ids = ["--ids", raw["conversationId"]]
        assert main(["human", "export", "--data", str(data), *ids, "--out", str(out)]) == 0
        pages[name] = out.read_text(encoding="utf-8")
    for canary in (*CANARIES, *background):
        assert canary not in pages["planted"], canary
    assert pages["changed"] == pages["original"]
    # Not vacuous: what a model sees is there, the messages and every reply.
    for turn in conversation_raw["turns"]:
        alternates = turn["annotations"]["alternateResponses"].values()
        for text in (turn["userMessage"], turn["llmResponse"], *alternates):
            assert json.dumps(text[:30])[1:-1] in pages["original"]


def test_page_replies_and_comparisons_are_the_solvers(tmp_path: Path, codebook: Codebook) -> None:
    """The page's neutral labels, their order and each comparison's pair are those of the
    pairwise prompt the solver sends."""
    data = _data(tmp_path / "data", SHORTEST[:1])
    ((visible, _),) = _split(data, codebook).values()
    spy = Spy()
    eval(default(data=str(data)), model=spy.model(), display="none", log_dir=str(tmp_path / "l"))
    prompts = {
        int(_TURN.findall(text)[-1]): text
        for text, config in zip(spy.texts(), spy.configs, strict=True)
        if config.response_schema is not None and config.response_schema.name.endswith("pairwise")
    }
    [page] = page_data([visible], codebook, 0)["conversations"]
    for turn in page["turns"]:
        prompt = prompts[turn["number"]]
        assert [(r["label"], r["text"]) for r in turn["replies"]] == _RESPONSE.findall(prompt)
        assert [(c["id"], c["question"], *c["options"]) for c in turn["comparisons"]] == [
            (c, q, a, b) for c, q, a, b in _COMPARISON.findall(prompt)
        ]


MOOD = {1: {"nervous": 4, "upset": 2}, 2: {}, 3: {"proud": 5}}


def _observer(i: int) -> dict[str, str]:
    return {"observed": ("yes", "no", "na")[i % 3], "preferred": ("no", "yes")[i % 2]}


def _participant(i: int) -> dict[str, str]:
    return {"observed": ("no", "yes")[i % 2], "preferred": ("yes", "na", "no")[i % 3]}


def _expected(page: dict[str, Any]) -> dict[str, Any]:
    """What the page should save after `_fill` (the same choices)."""
    (conv,) = page["conversations"]
    turns = {}
    for t in conv["turns"]:
        n = t["number"]
        turns[str(n)] = {
            "draft": f"My reply at turn {n}.",
            "pairwise": {
                c["id"]: {"winner": c["options"][k % 2]} for k, c in enumerate(t["comparisons"])
            },
            "emotion": {
                "mood_shift": MOOD[n],
                "binary": {q["id"]: _observer(i) for i, q in enumerate(t["binary"])},
            },
            "binary_hp": {"binary": {q["id"]: _participant(i) for i, q in enumerate(t["binary"])}},
        }
    q1, follow_up = page["q1"]["options"], page["follow_up"]["options"]
    post = {
        "post_panas": {item: j % 7 + 1 for j, item in enumerate(PANAS_ITEMS)},
        "q1_looking_for": {o: o in (q1[0], q1[2]) for o in q1},
        "q2_emotion_clarity": page["q2"]["options"][1],
        "q3_model_fit": page["q3"]["options"][0],
        "q3_follow_up": {o: o == follow_up[1] for o in follow_up},
        "q3_follow_up_own_words": "Too quick to reassure",
        "four_branch": {"perceiving": 2, "facilitating": 3, "understanding": 4, "managing": 5},
    }
    return {conv["id"]: {"turns": turns, "post": post}}


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


def _next(page: Any) -> None:
    page.click("button[data-go=next]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280


def _fill(page: Any, data: dict[str, Any]) -> None:
    (conv,) = data["conversations"]
    for t in conv["turns"]:
        n = t["number"]
        # The assistant's reply is not on the page before the three replies are compared.
        assert t["reply"][:60] not in page.inner_text("#app")
        page.fill("#draft", f"My reply at turn {n}.")
        if n == 2:  # progress survives closing the page
            page.reload()
            assert "turn 2 of 3" in page.inner_text("#where")
            assert page.input_value("#draft") == "My reply at turn 2."
        _next(page)
        if n == 1:  # nothing answered yet: every comparison is marked
            page.click("button[data-go=next]")
            assert page.locator(".q.missing").count() == len(t["comparisons"])
            assert page.inner_text("#count") == f"0 of {len(t['comparisons'])} answered"
        for k, c in enumerate(t["comparisons"]):
            page.check(f'input[name="pairwise:{c["id"]}"][value="{c["options"][k % 2]}"]')
        _next(page)
        for item, value in MOOD[n].items():
            page.check(f'input[name="mood:{item}"][value="{value}"]')
        if not MOOD[n]:
            page.check("#no-shift")
        for kind, answers in (("observer", _observer), ("participant", _participant)):
            for i, q in enumerate(t["binary"]):
                for field, value in answers(i).items():
                    page.check(f'input[name="{kind}:{q["id"]}:{field}"][value="{value}"]')
            _next(page)
    for j, item in enumerate(PANAS_ITEMS):
        page.check(f'input[name="panas:{item}"][value="{j % 7 + 1}"]')
    for bind, key in (("q1", 0), ("q1", 2), ("q2", 1), ("q3", 0), ("followUp", 1)):
        page.check(f'input[data-bind="{bind}"][data-key="{key}"]')
    page.fill("#own-words", "Too quick to reassure")
    for branch, value in (("perceiving", 2), ("facilitating", 3), ("understanding", 4)):
        page.check(f'input[name="branch:{branch}"][value="{value}"]')
    page.click("button[data-go=next]")  # one rating missing: the page says which
    assert page.locator(".q.missing").count() == 1
    page.check('input[name="branch:managing"][value="5"]')
    _next(page)


def _scripted(answers: dict[str, Any]) -> Spy:
    """A scripted model that gives the same answers, finding the turn on its own (the count of
    the participant's messages, or the transcript's last turn)."""
    ((_, conv),) = answers.items()

    def answer(messages: list[ChatMessage], config: GenerateConfig) -> str:
        schema = config.response_schema
        if schema is None:
            turn = sum(1 for m in messages if m.role == "user")
            return str(conv["turns"][str(turn)]["draft"])
        call = call_of(schema.name)
        if call == "post":
            return json.dumps(conv["post"])
        turn = max(int(n) for n in _TURN.findall(messages[1].text))
        return json.dumps(conv["turns"][str(turn)][call])

    return Spy(answer=answer)


def test_page_filled_in_chromium_is_scored_as_a_model(
    chromium: Any, tmp_path: Path, codebook: Codebook, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _data(tmp_path / "data", SHORTEST[:1])
    ((cid, (visible, _)),) = _split(data, codebook).items()
    html = tmp_path / "page.html"
    assert main(["human", "export", "--data", str(data), "--ids", cid, "--out", str(html)]) == 0
    expected = _expected(page_data([visible], codebook, 0))

    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800}, accept_downloads=True)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(html.as_uri())
        page.fill("#annotator", "tester")
        page.click(f'button[data-open="{cid}"]')
        _fill(page, page_data([visible], codebook, 0))
        assert page.inner_text(f"#status-{cid}") == "finished"
        with page.expect_download() as download:
            page.click("#save")
        assert download.value.suggested_filename == "attunebench-answers-tester.json"
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
    assert errors == []

    answers = json.loads(saved.read_text(encoding="utf-8"))
    assert answers["annotator"] == "tester" and answers["codebook_sha256"] == codebook.sha256
    assert answers["task_version"] == TASK_VERSION
    assert answers["conversations"] == expected
    code, out, _ = _import(
        capsys, str(saved), "--data", str(data), "--log-dir", str(tmp_path / "h")
    )
    assert code == 0 and ", 0 unanswered or incomplete" in out
    human = _only_log(tmp_path / "h")
    assert human.eval.model == "human/tester"
    records = read_walk(Store(human.samples[0].store)).records.values()  # type: ignore[index]
    assert all(r.status == "ok" for r in records)
    scripted = eval(
        default(data=str(data)),
        model=_scripted(expected).model("scripted"),
        display="none",
        log_dir=str(tmp_path / "s"),
    )[0]
    assert _scores(human) == _scores(scripted)


def test_conversations_that_open_alike_are_refused(
    tmp_path: Path, codebook: Codebook, conversation_raw: dict[str, Any]
) -> None:
    """Their first calls have the same messages: one replay could not tell which is asked."""
    twin = json.loads(json.dumps(conversation_raw))
    twin["conversationId"] = "twin"
    twin["turns"][1]["userMessage"] = "A different second message."
    data = tmp_path / "data"
    data.mkdir()
    for raw in (conversation_raw, twin):
        (data / f"{raw['conversationId']}.json").write_text(json.dumps(raw), encoding="utf-8")
    convs = _split(data, codebook)
    answers = _write(
        tmp_path / "a.json", answer_file("a", {i: oracle(*c, codebook) for i, c in convs.items()})
    )
    with pytest.raises(InputError, match="open alike, so their calls cannot be told apart"):
        HumanReplayAPI("a", answers=str(answers), data=str(data))


# --- issue 31: what an import refuses, what the page says will count ---------------------------


def _one_answered(tmp_path: Path, codebook: Codebook, name: str = "a.json", **extra: Any) -> Path:
    """An answer file of the shortest conversation, answered perfectly."""
    data = tmp_path / "data"
    if not data.exists():
        _data(data, SHORTEST[:2])
    convs = _split(data, codebook)
    first = sorted(convs)[0]
    return _write(
        tmp_path / name, answer_file("ann", {first: oracle(*convs[first], codebook)}, **extra)
    )


def test_a_second_import_of_an_annotator_needs_supersede(
    tmp_path: Path, codebook: Codebook, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = _one_answered(tmp_path, codebook)
    args = [str(answers), "--data", str(tmp_path / "data"), "--log-dir", str(tmp_path / "logs")]
    assert _import(capsys, *args)[0] == 0
    (first,) = (tmp_path / "logs").glob("*.eval")
    code, _, err = _import(capsys, *args)
    assert code == 1
    assert (
        f"{answers}: annotator: found ann, already imported in {first.as_uri()} (default mode); "
        "expected a new annotator, or --supersede to replace that import (the report reads the "
        "newest log)"
    ) in err.splitlines()
    assert list((tmp_path / "logs").glob("*.eval")) == [first]
    assert _import(capsys, *args, "--supersede")[0] == 0
    assert len(list((tmp_path / "logs").glob("*.eval"))) == 2
    report = build_report([tmp_path / "logs"], resamples=50)
    assert [r.model for r in report.runs] == ["human/ann"]
    assert any(s.reason == "superseded by a newer successful log" for s in report.skipped)


def test_answers_off_the_exported_page_are_refused(
    tmp_path: Path, codebook: Codebook, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _data(tmp_path / "data", SHORTEST[:2])
    convs = _split(data, codebook)
    shown, other = sorted(convs)
    page = {"id": page_data([convs[shown][0]], codebook, 0)["page"], "conversations": [shown]}
    both = {c: oracle(*convs[c], codebook) for c in (shown, other)}
    off_page = _write(tmp_path / "off.json", answer_file("ann", both, page=page))
    code, _, err = _import(capsys, str(off_page), "--data", str(data))
    assert code == 1
    assert (
        f"{off_page}: conversations.{other}: found a conversation that was not on the exported "
        f"page {page['id']} (it exported {shown}); expected only those"
    ) in err.splitlines()
    # The page's list cannot be widened by hand: the id is a digest of what the page showed.
    widened = {"id": page["id"], "conversations": [shown, other]}
    forged = _write(tmp_path / "forged.json", answer_file("ann", both, page=widened))
    code, _, err = _import(capsys, str(forged), "--data", str(data))
    assert code == 1 and f"{forged}: page.id: found {page['id']}; expected " in err
    honest = _write(tmp_path / "ok.json", answer_file("ann", {shown: both[shown]}, page=page))
    code, out, _ = _import(capsys, str(honest), "--data", str(data), "--log-dir", str(tmp_path))
    assert code == 0 and out.startswith("human/ann: 1 conversation(s)")


def test_duplicate_keys_in_an_answer_file_are_located_warnings(
    tmp_path: Path, codebook: Codebook, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = _one_answered(tmp_path, codebook)
    text = answers.read_text(encoding="utf-8")
    answers.write_text(text.replace('"annotator": "ann"', '"annotator": "bob", "annotator": "ann"'))
    logs = str(tmp_path / "logs")
    code, out, err = _import(
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
    answers = _one_answered(tmp_path, codebook)
    logs = tmp_path / "logs"
    code, out, err = _import(
        capsys, str(answers), "--data", str(tmp_path / "data"), "--log-dir", str(logs)
    )
    assert code == 1 and "Traceback" not in out + err
    assert out.strip() == (
        "human/ann: the replay did not succeed (OSError(28, 'No space left on device')); "
        "nothing was imported"
    )
    assert [p for p in logs.rglob("*") if p.is_file()] == []


def test_the_page_says_which_turns_will_count_before_saving(
    chromium: Any, tmp_path: Path, codebook: Codebook, capsys: pytest.CaptureFixture[str]
) -> None:
    """Half of a step answered counts for nothing (the import scores an incomplete answer as
    unanswered): the page says so on the step, and in the list of what saving now would give."""
    data = _data(tmp_path / "data", SHORTEST[:1])
    ((cid, (visible, _)),) = _split(data, codebook).items()
    html = tmp_path / "page.html"
    assert main(["human", "export", "--data", str(data), "--ids", cid, "--out", str(html)]) == 0
    (conv,) = page_data([visible], codebook, 0)["conversations"]
    first = conv["turns"][0]
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800}, accept_downloads=True)
        page.goto(html.as_uri())
        page.fill("#annotator", "half")
        page.click(f'button[data-open="{cid}"]')
        page.fill("#draft", "My reply.")
        _next(page)
        for k, c in enumerate(first["comparisons"]):
            page.check(f'input[name="pairwise:{c["id"]}"][value="{c["options"][k % 2]}"]')
        _next(page)
        page.check("#no-shift")
        q = first["binary"][0]["id"]
        page.check(f'input[name="observer:{q}:observed"][value="yes"]')
        page.check(f'input[name="observer:{q}:preferred"][value="no"]')
        total = 1 + len(first["binary"])
        assert page.inner_text("#count") == (
            f"2 of {total} answered: this step counts only when all are answered"
        )
        page.click("#home")
        note = page.inner_text("#will-count")
        n = len(conv["turns"])
        assert note == (
            f"{conv['topic']}: no turn counts yet; turn 1: \u201cYour reply\u201d and \u201cWhich "
            f"reply\u201d count; \u201cFeelings and behaviour\u201d is partly answered (2 of "
            f"{total}) and counts as unanswered: a step counts only when every question of it "
            f"is answered; turns 2\u2013{n} and the questionnaire are unanswered."
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        page.screenshot(path=str(tmp_path / "will-count.png"))
        with page.expect_download() as download:
            page.click("#save")
        saved = tmp_path / "saved.json"
        download.value.save_as(saved)
    code, _, _ = _import(capsys, str(saved), "--data", str(data), "--log-dir", str(tmp_path / "h"))
    assert code == 0
    # As the page said: the reply and the comparison count, the half-answered step does not.
    records = read_walk(Store(_only_log(tmp_path / "h").samples[0].store)).records  # type: ignore[index]
    assert records[("draft", 1)].status == "ok" and records[("pairwise", 1)].status == "ok"
    assert records[("emotion", 1)].status == "failed"
