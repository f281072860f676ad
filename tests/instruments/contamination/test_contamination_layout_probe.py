"""The files-layout probe (instruments/contamination/_layout.py): the document in the files'
layout holds no label and stands as the files do around each cut; the planted file reader is
suspected by it and by it alone; the negatives and the control are not; `-T methods=` is checked
in one line; an empty answerer cannot decide."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from attunebench_inspect import contamination
from attunebench_inspect.data import load_codebook, load_conversations, split
from attunebench_inspect.data._problems import InputError
from attunebench_inspect.instruments.contamination._layout import (
    CUT_KEY,
    LABEL_KEY,
    LAYOUT_INSTRUCTION,
    continuation,
    control,
    document,
    layout_instances,
    layout_run,
    unescaped,
)
from attunebench_inspect.instruments.contamination._recall import published_texts
from attunebench_inspect.instruments.contamination._verdict import reading_of

from ...canaries import VISIBLE_KEYS, keys
from ...spy import Spy


def test_the_document_holds_the_visible_fields_in_the_files_layout(
    bundled_files: list[Path],
) -> None:
    for file in bundled_files[:5]:
        loaded = load_conversations(file, load_codebook()).conversations[0]
        visible = split(loaded.conversation)[0]
        text = document(visible)
        assert keys(json.loads(text)) == VISIBLE_KEYS
        published = file.read_text(encoding="utf-8")
        for instance in layout_instances(visible, 0):
            # The lines before the cut stand in the published file as shown.
            tail = instance.prefix[instance.prefix.rfind("{") :]
            assert tail.endswith(CUT_KEY) and tail in published
        assert len(layout_instances(visible, 0)) == len(visible.turns)


def test_the_control_was_never_published_and_keeps_the_layout(bundled_files: list[Path]) -> None:
    loaded = load_conversations(bundled_files[0], load_codebook()).conversations[0]
    visible = split(loaded.conversation)[0]
    fake = control(visible, 0)
    assert fake.conversation_id != visible.conversation_id and fake == control(visible, 0)
    for real_turn, fake_turn in zip(visible.turns, fake.turns, strict=True):
        assert sorted(real_turn.user_message.split()) == sorted(fake_turn.user_message.split())
        assert real_turn.user_message != fake_turn.user_message
    # The true continuation recalls the conversation's texts, and nothing of the control's.
    instance = layout_instances(visible, 0)[1]
    rest = document(visible)[len(instance.prefix) :][:600]
    assert layout_run(rest, instance.prefix, published_texts(visible)) >= 13
    assert layout_run(rest, instance.control_prefix, published_texts(fake)) < 13


def test_json_escapes_are_undone_before_scoring() -> None:
    assert unescaped(r"she said \"no\"\nthen left \u00e9") == 'she said "no"\nthen left é'
    # llama-server returns a continued message whole; a chat provider only what it wrote.
    assert continuation('{"a": "start and more', '{"a": "start') == " and more"
    assert continuation(" and more", '{"a": "start') == " and more"


def _run(model: Any, tmp_path: Path, data: Path, **task: Any) -> EvalLog:
    return eval(
        contamination(data=str(data), methods="guided,layout", **task),
        model=model,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]


def _metrics(log: EvalLog) -> dict[str, float]:
    assert log.status == "success" and log.results is not None
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def test_the_file_reader_is_suspected_by_the_layout_probe_alone(
    tmp_path: Path, small_dataset: Any
) -> None:
    data = small_dataset(4)
    reader = _metrics(
        eval(
            contamination(data=str(data), methods="guided,layout"),
            model="memorizer/files",
            model_args={"share": 1.0},
            display="none",
            log_dir=str(tmp_path / "logs"),
        )[0]
    )
    assert reading_of(reader) == "suspected"
    assert reader["layout_suspected"] == 1 and reader["guided_suspected"] == 0
    assert reader["layout_recalled"] >= 2 and reader["layout_control_recalled"] == 0
    for model in ("attunebench/random", "memorizer/echo"):
        negative = _metrics(_run(model, tmp_path, data))
        assert negative["layout_suspected"] == 0 and negative["layout_recalled"] == 0, model
        # Neither writes a label field at the label cut: the label cut cannot decide.
        reading = reading_of(negative)
        assert reading is not None and reading.startswith(
            "cannot decide: labels: too few completions carry label fields"
        ), model


def test_an_empty_answerer_cannot_decide_by_either_method(
    tmp_path: Path, small_dataset: Any
) -> None:
    spy = Spy(answer=lambda messages, config: "")
    metrics = _metrics(_run(spy.model("silent"), tmp_path, small_dataset(3)))
    reading = reading_of(metrics)
    assert reading is not None and reading.startswith(
        "cannot decide: guided: too few completions carry text"
    )
    # Each layout call: the instruction, then the document's start as the assistant's text.
    layout_calls = [c for c in spy.calls if len(c) == 2]
    assert layout_calls and all(
        c[0].text == LAYOUT_INSTRUCTION
        and c[1].role == "assistant"
        and c[1].text.endswith((CUT_KEY, LABEL_KEY))
        for c in layout_calls
    )


def test_methods_are_checked_in_one_line() -> None:
    with pytest.raises(InputError) as error:
        contamination(methods="guided,minkpp")
    assert str(error.value) == (
        "task parameter methods: unknown minkpp; expected some of guided, layout, likelihood, "
        "comma-separated"
    )


def test_no_label_in_any_layout_prompt(tmp_path: Path, conversation_raw: dict[str, Any]) -> None:
    from tests.canaries import CANARIES, with_canaries

    (tmp_path / "c.json").write_text(json.dumps(with_canaries(conversation_raw)), encoding="utf-8")
    probe = Spy()
    log = eval(
        contamination(data=str(tmp_path), methods="layout"),
        model=probe.model("probed"),
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    assert log.status == "success" and probe.calls
    prompts = probe.texts()
    assert any(CUT_KEY in p for p in prompts) and any(p.endswith(LABEL_KEY) for p in prompts)
    for canary in CANARIES:
        assert not any(canary in p for p in prompts), canary
