"""The human page: built from the visible part only, the solver's replies and comparisons, filled in
headless Chromium and scored as a model, and what it says will count."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import ChatMessage, GenerateConfig
from inspect_ai.util import Store

from attunebench_inspect import TASK_VERSION, default
from attunebench_inspect._suite.cli import main
from attunebench_inspect.data import Codebook
from attunebench_inspect.data._panas import PANAS_ITEMS
from attunebench_inspect.data._problems import InputError
from attunebench_inspect.instruments.human._export import page_data
from attunebench_inspect.instruments.human._replay import HumanReplayAPI
from attunebench_inspect.solve import read_walk
from attunebench_inspect.solve._schemas import call_of
from tests.canaries import CANARIES, every_label_changed, with_canaries
from tests.conftest import BUNDLED
from tests.human_answers import (
    SHORTEST,
    answer_file,
    data_folder,
    human_import,
    only_log,
    oracle,
    sample_scores,
    split_all,
    write_json,
)
from tests.spy import Spy

_TURN = re.compile(r'<participant turn="(\d+)">')


_RESPONSE = re.compile(r'<response label="(\d)">\n(.*?)\n</response>', re.DOTALL)


_COMPARISON = re.compile(r"^- (c\d+): (.*) Reply (\d) or reply (\d)\?$", re.MULTILINE)


def test_no_label_reaches_the_page(tmp_path: Path, conversation_raw: dict[str, Any]) -> None:
    """Canaries in every free-text label field and in the participant's background (default mode
    shows none of it) stay out of the page, and changing every label (tags, binary values,
    winners, PANAS, questionnaire) leaves it byte-identical. The page's data is all in its HTML,
    so no browser is needed."""
    planted = with_canaries(conversation_raw)
    profile = planted["participant_profile"]
    background = ("CANARY-participant-id-51f0", "CANARY-country-c3d9", "CANARY-attitude-0be4")
    profile["participant_id"], profile["demographics"]["country"] = background[:2]
    profile["conversation_topic_attitude"] = background[2]
    pages = {}
    for name, raw in (
        ("planted", planted),
        ("original", conversation_raw),
        ("changed", every_label_changed(conversation_raw)),
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
    data = data_folder(tmp_path / "data", SHORTEST[:1])
    ((visible, _),) = split_all(data, codebook).values()
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
    data = data_folder(tmp_path / "data", SHORTEST[:1])
    ((cid, (visible, _)),) = split_all(data, codebook).items()
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
    code, out, _ = human_import(
        capsys, str(saved), "--data", str(data), "--log-dir", str(tmp_path / "h")
    )
    assert code == 0 and ", 0 unanswered or incomplete" in out
    human = only_log(tmp_path / "h")
    assert human.eval.model == "human/tester"
    records = read_walk(Store(human.samples[0].store)).records.values()  # type: ignore[index]
    assert all(r.status == "ok" for r in records)
    scripted = eval(
        default(data=str(data)),
        model=_scripted(expected).model("scripted"),
        display="none",
        log_dir=str(tmp_path / "s"),
    )[0]
    assert sample_scores(human) == sample_scores(scripted)


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
    convs = split_all(data, codebook)
    answers = write_json(
        tmp_path / "a.json", answer_file("a", {i: oracle(*c, codebook) for i, c in convs.items()})
    )
    with pytest.raises(InputError, match="open alike, so their calls cannot be told apart"):
        HumanReplayAPI("a", answers=str(answers), data=str(data))


def test_the_page_says_which_turns_will_count_before_saving(
    chromium: Any, tmp_path: Path, codebook: Codebook, capsys: pytest.CaptureFixture[str]
) -> None:
    """Half of a step answered counts for nothing (the import scores an incomplete answer as
    unanswered): the page says so on the step, and in the list of what saving now would give."""
    data = data_folder(tmp_path / "data", SHORTEST[:1])
    ((cid, (visible, _)),) = split_all(data, codebook).items()
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
    code, _, _ = human_import(
        capsys, str(saved), "--data", str(data), "--log-dir", str(tmp_path / "h")
    )
    assert code == 0
    # As the page said: the reply and the comparison count, the half-answered step does not.
    records = read_walk(Store(only_log(tmp_path / "h").samples[0].store)).records  # type: ignore[index]
    assert records[("draft", 1)].status == "ok" and records[("pairwise", 1)].status == "ok"
    assert records[("emotion", 1)].status == "failed"


def test_the_three_replies_are_side_by_side_above_the_fold(
    chromium: Any, tmp_path: Path, codebook: Codebook
) -> None:
    """The pairwise step at 1280 px, on the bundled conversation with the longest first reply
    (syn24): every reply starts on the first screen, and none sits in a scroll pane of its own
    (in the transcript's pane, Reply 3 began 500 px below the fold)."""
    data = data_folder(tmp_path / "data", [BUNDLED / "syn24-meeting-partners-family.json"])
    ((cid, _),) = split_all(data, codebook).items()
    html = tmp_path / "page.html"
    assert main(["human", "export", "--data", str(data), "--ids", cid, "--out", str(html)]) == 0
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(html.as_uri())
        page.fill("#annotator", "tester")
        page.click(f'button[data-open="{cid}"]')
        _next(page)
        found = page.evaluate(
            """() => [...document.querySelectorAll('.replies .msg')].map(m => {
                 let scrolled = false;
                 for (let e = m.parentElement; e; e = e.parentElement)
                   scrolled ||= ['auto', 'scroll'].includes(getComputedStyle(e).overflowY)
                     && e !== document.scrollingElement;
                 return [m.querySelector('.who').textContent, m.getBoundingClientRect().top,
                         scrolled];
               })"""
        )
        page.screenshot(path=str(tmp_path / "pairwise.png"))
    assert [label for label, _, _ in found] == ["Reply 1", "Reply 2", "Reply 3"]
    assert all(top < 800 and not scrolled for _, top, scrolled in found), found
