"""The contamination probe and its planted models (`_memorizer.py`): the arithmetic by hand, the
errors in one line, the planted models flagged or spared end to end, and no label in a prompt."""

from __future__ import annotations

import copy
import importlib.util
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, Model, get_model
from inspect_ai.scorer import Score
from pytest_inspect_evals.metrics import assert_agreeing_epochs_change_nothing, run_metrics

from attunebench_inspect import contamination
from attunebench_inspect._suite.cli import main
from attunebench_inspect.data import load_codebook, load_conversations, split
from attunebench_inspect.data._problems import InputError
from attunebench_inspect.instruments.contamination import (
    contamination_scorer,
    contamination_solver,
    contamination_verdict,
)
from attunebench_inspect.instruments.contamination._dataset import probe_data
from attunebench_inspect.instruments.contamination._instances import (
    SEGMENT_HIGH,
    SEGMENT_LOW,
    split_text,
)
from attunebench_inspect.instruments.contamination._memorizer import paraphrase
from attunebench_inspect.instruments.contamination._overlap import (
    overlap,
    rouge_l,
    strip_echo,
    words,
)
from attunebench_inspect.instruments.contamination._prompts import DATASET, shown_segment
from attunebench_inspect.instruments.contamination._report import rule_parts
from attunebench_inspect.instruments.contamination._rules import (
    RULE,
    InstanceResult,
    decide,
    guided_above_general,
)
from attunebench_inspect.instruments.contamination._scorer import RESULTS_KEY
from attunebench_inspect.instruments.contamination._verdict import reading_of
from tests.canaries import (
    CANARIES,
    PROFILE_SECRETS,
    every_label_changed,
    profile_planted,
    with_canaries,
)
from tests.commands import BIN, inspect_eval, run_command
from tests.conftest import BUNDLED, REPO
from tests.spy import Spy

# --- overlap --------------------------------------------------------------------------------

SEGMENT = "I have been thinking about moving to a new city for work"
REFERENCE = "but my family is here and I do not want to leave them behind"  # 14 words


def test_rouge_l_by_hand() -> None:
    # LCS of "the cat sat on the mat" and "the cat on the mat" is "the cat on the mat", 5 words:
    # precision 5/5, recall 5/6, F = 2 * 1 * 5/6 / (1 + 5/6) = 10/11.
    assert rouge_l("the cat sat on the mat", "the cat on the mat") == pytest.approx(10 / 11)
    # Disjoint words: no common subsequence.
    assert rouge_l("the cat sat", "a dog ran") == 0.0
    assert rouge_l("", "anything") == 0.0


def test_normalisation_ignores_case_punctuation_and_spacing() -> None:
    assert words("Ça va?  ÇA VA!") == ["ça", "va", "ça", "va"]
    assert rouge_l("Hello, WORLD!", "hello world") == 1.0
    # NFKC folds the ligature and the full-width letters.
    assert words("\ufb01ne \uff2f\uff2b") == ["fine", "ok"]


def test_an_echo_of_the_segment_scores_nothing() -> None:
    echo = overlap(SEGMENT, REFERENCE, SEGMENT)
    assert (echo.rouge_l, echo.match, echo.echoed) == (0.0, "none", 12)
    # Labels and an echo before a true continuation are removed; what is left is compared with
    # the reference alone.
    assert overlap(SEGMENT, REFERENCE, "SECOND PIECE: " + REFERENCE).match == "exact"
    assert overlap(SEGMENT, REFERENCE, f"{SEGMENT} {REFERENCE}").match == "exact"
    prompt_echo = f"FIRST PIECE:\n{SEGMENT}\n\nSECOND PIECE:\n{REFERENCE}"
    assert overlap(SEGMENT, REFERENCE, prompt_echo).match == "exact"
    # A light rewording of the segment overlaps the reference only by chance words.
    reworded = overlap(SEGMENT, REFERENCE, paraphrase(SEGMENT))
    assert reworded.match == "none" and reworded.rouge_l < 0.2


def test_an_echo_the_reference_holds_is_kept_and_the_control_discounts_it() -> None:
    # Changed on purpose (issue 45): the unseen rest repeats the shown segment word for word, so
    # an echo of the segment is also the true rest, and what the reference holds is never
    # removed (removing it scored a true recall of a repetitive text 0). The echo now matches;
    # a model that echoes under both instructions matches under both, and heuristic 2 counts a
    # guided match only where the general completion does not match.
    repeated = "we tried again and again and it never worked out for us at all"
    result = overlap(repeated, repeated, repeated)
    assert (result.rouge_l, result.match, result.echoed) == (1.0, "exact", 0)
    both = decide(_results([0.0] * 12, ["exact"] * 12, general="exact"))
    assert (both.reading, both.exact, both.general_exact) == ("not suspected", 0, 12)


def test_exact_and_near_exact_by_hand() -> None:
    assert overlap(SEGMENT, REFERENCE, REFERENCE.upper() + ".").match == "exact"
    # The reference and 4 more words: cut at the reference's 14 words it is the reference
    # (near-exact, as the paper's few-shot example 2); whole, LCS 14 of 18 words:
    # P = 14/18, R = 1, F = 2 * (14/18) / (1 + 14/18) = 28/32 = 0.875.
    longer = overlap(SEGMENT, REFERENCE, REFERENCE + " and that is all")
    assert (longer.match, longer.rouge_l) == ("near_exact", pytest.approx(0.875))
    # Two of 14 words replaced: LCS 12, P = R = 12/14, F = 0.857 >= 0.75: near-exact.
    two_off = REFERENCE.replace("family", "parents").replace("behind", "alone")
    assert overlap(SEGMENT, REFERENCE, two_off).match == "near_exact"
    # The first 7 words only: P = 1, R = 7/14, F = 2/3 < 0.75: no match.
    half = " ".join(REFERENCE.split()[:7])
    assert overlap(SEGMENT, REFERENCE, half).match == "none"
    assert overlap(SEGMENT, REFERENCE, half).rouge_l == pytest.approx(2 / 3)


def test_an_empty_completion_is_marked_and_scores_zero() -> None:
    result = overlap(SEGMENT, REFERENCE, "  \n")
    assert (result.rouge_l, result.match, result.empty) == (0.0, "none", True)


text_strategy = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=120)


@settings(max_examples=200, deadline=None)
@given(segment=text_strategy, reference=text_strategy, completion=text_strategy)
def test_overlap_stays_in_range(segment: str, reference: str, completion: str) -> None:
    result = overlap(segment, reference, completion)
    assert 0.0 <= result.rouge_l <= 1.0
    assert result.match in ("exact", "near_exact", "none")
    left, removed = strip_echo(segment, reference, completion)
    assert removed + len(left) == len(words(completion))
    assert rouge_l(reference, completion) == pytest.approx(rouge_l(completion, reference))


@settings(max_examples=200, deadline=None)
@given(
    text=st.lists(st.text("aZ',.!?", min_size=1, max_size=12), min_size=20, max_size=80),
    fraction=st.floats(SEGMENT_LOW, SEGMENT_HIGH),
)
def test_a_cut_keeps_every_word_and_leaves_both_parts(text: list[str], fraction: float) -> None:
    whole = " ".join(text)
    segment, reference = split_text(whole, fraction, "here")
    assert segment.split() + reference.split() == text
    assert segment and reference and whole.startswith(segment)


# --- the verdict ----------------------------------------------------------------------------


def _results(
    diffs: list[float], matches: list[str] | None = None, general: str = "none"
) -> list[InstanceResult]:
    matches = matches or ["none"] * len(diffs)
    # Two conversations, every completion its own text: evidence enough for a negative.
    return [
        InstanceResult(
            guided=max(d, 0.0),
            general=max(-d, 0.0),
            guided_match=m,  # type: ignore[arg-type]
            general_match=general,  # type: ignore[arg-type]
            conversation=f"c{i % 2}",
            guided_answer=f"g{i}",
            general_answer=f"h{i}",
        )
        for i, (d, m) in enumerate(zip(diffs, matches, strict=True))
    ]


def test_heuristic_1_by_hand() -> None:
    # 10 differences of +1: of the 2**10 = 1024 sign patterns (exact test) only all-positive
    # reaches the observed mean, so p = 1/1024 < 0.01: suspected.
    verdict = decide(_results([1.0] * 10))
    assert verdict.p_value == pytest.approx(1 / 1024)
    assert (verdict.reading, verdict.heuristic_1, verdict.heuristic_2) == ("suspected", True, False)
    assert verdict.difference.estimate == 1.0
    # 7 of +0.5 and 3 of -0.5: the statistic counts positive signs; P(at least 7 of 10) =
    # (C(10,7) + C(10,8) + C(10,9) + C(10,10)) / 1024 = (120 + 45 + 10 + 1) / 1024 = 176/1024.
    mixed = decide(_results([0.5] * 7 + [-0.5] * 3))
    assert mixed.p_value == pytest.approx(176 / 1024)
    assert mixed.reading == "not suspected"
    # Equal completions everywhere: no evidence at all.
    assert guided_above_general([0.3] * 12, [0.3] * 12) == 1.0


def test_below_ten_instances_only_a_match_decides() -> None:
    # 9 instances of +1: p = 1/512 would pass, but 9 < 10 instances: too few to decide.
    few = decide(_results([1.0] * 9))
    assert few.p_value == pytest.approx(1 / 512)
    assert few.reading == "cannot decide: too few instances (9, at least 10)"
    assert not few.heuristic_1
    # One exact match among 3 instances: suspected by heuristic 2 alone.
    one_exact = decide(_results([1.0, 0.0, 0.0], ["exact", "none", "none"]))
    assert (one_exact.reading, one_exact.exact) == ("suspected", 1)
    none_at_all = decide([])
    assert none_at_all.reading == "cannot decide: no text long enough to probe"
    assert none_at_all.instances == 0 and math.isnan(none_at_all.p_value)


def test_near_exact_needs_two() -> None:
    flat = [0.0] * 12
    one = decide(_results(flat, ["near_exact"] + ["none"] * 11))
    two = decide(_results(flat, ["near_exact"] * 2 + ["none"] * 10))
    assert (one.reading, one.near_exact) == ("not suspected", 1)
    assert (two.reading, two.near_exact) == ("suspected", 2)


def _conversation_score(differences: list[float], empty: int = 0, conversation: str = "") -> Score:
    """A sample's score as the scorer writes it: per-instance records in the metadata."""
    records = [
        {
            "key": f"t{i + 1:02d}-message",
            "guided": max(d, 0.0),
            "general": max(-d, 0.0),
            "guided_match": "none",
            "general_match": "none",
            "guided_answer": "" if empty and i == 0 else f"g{i}",
            "general_answer": f"h{i}",
            "empty": empty if i == 0 else 0,
            "conversation": conversation,
        }
        for i, d in enumerate(differences)
    ]
    return Score(value={"instances": len(records)}, metadata={RESULTS_KEY: records})


def test_the_verdict_metric_pools_every_conversation_and_ignores_epochs() -> None:
    # Two conversations of 6 and 5 instances of +1: 11 instances pooled, p = 1/2048 (as above);
    # one completion is empty, 10 instances have two completions with text.
    scores = [
        _conversation_score([1.0] * 6, empty=1, conversation="a"),
        _conversation_score([1.0] * 5, conversation="b"),
    ]
    values = run_metrics([contamination_verdict()], [[s] for s in scores])
    # The headline: suspected 1 (not suspected 0, cannot decide NaN), the verdict's word at 1.
    assert values["suspected"] == 1 and "not_suspected" not in values
    assert "cannot_decide" not in values
    assert values["instances"] == 11 and values["empty_completions"] == 1
    assert values["with_text"] == 10 and values["p_value"] == pytest.approx(1 / 2048)
    assert values["difference"] == values["ci_low"] == values["ci_high"] == 1.0
    # One conversation alone: it cannot decide.
    alone = run_metrics([contamination_verdict()], [[scores[0]]])
    assert alone["cannot_decide"] == 1 and math.isnan(alone["suspected"])
    assert_agreeing_epochs_change_nothing([contamination_verdict()], scores)


def test_the_rule_states_its_thresholds() -> None:
    for part in ("at least 1 exact", "at least 2 near-exact", "0.75", "fewer than 10", "0.01"):
        assert part in RULE


# --- errors in one line -----------------------------------------------------------------------


def test_an_empty_segment_is_a_located_error() -> None:
    with pytest.raises(InputError) as error:
        split_text("hello", 0.3, "c.json: turn 1: userMessage")
    assert str(error.value) == (
        "c.json: turn 1: userMessage: the segment shown would be empty (cut after 0 of 1 "
        "word(s) at 0.30); expected at least one word shown"
    )
    with pytest.raises(InputError, match="nothing would be left to complete"):
        split_text("one two", 0.9, "here")


def _written(
    raw: dict[str, Any], texts: list[tuple[str, str]], conversation_id: str
) -> dict[str, Any]:
    """A conversation of the published format with our own texts: the bundled file's structure,
    its first len(texts) turns, each turn's message and edited reply replaced."""
    conv = copy.deepcopy(raw)
    conv["conversationId"] = conversation_id
    conv["turns"] = conv["turns"][: len(texts)]
    for turn, (message, edited) in zip(conv["turns"], texts, strict=True):
        turn["userMessage"] = message
        turn["annotations"]["alternateResponses"]["humanEdited"] = edited
    return conv


def _folder(tmp_path: Path, conversations: list[dict[str, Any]]) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    for conv in conversations:
        (folder / f"{conv['conversationId']}.json").write_text(json.dumps(conv), encoding="utf-8")
    return folder


def test_no_text_long_enough_runs_and_cannot_decide_under_inspect_eval(
    tmp_path: Path, conversation_raw: dict[str, Any]
) -> None:
    short = _written(
        conversation_raw,
        [("i feel stuck and tired today", "That sounds hard. What happened?")],
        "00000000-0000-4000-8000-00000000a002",
    )
    folder = _folder(tmp_path, [short])
    code, output = inspect_eval(
        "contamination", "-T", f"data={folder}", "--display", "none", log_dir=tmp_path
    )
    assert code == 0 and "Traceback" not in output
    log = read_eval_log(str(next(tmp_path.glob("*.eval"))))
    assert reading_of(_metrics(log)) == "cannot decide: no text long enough to probe"
    assert len(log.eval.metadata["not_probed"]) == 2  # type: ignore[index]


def test_parameters_are_checked() -> None:
    with pytest.raises(InputError) as error:
        contamination(sed=1)
    assert str(error.value) == (
        "unknown task parameter(s): sed; the parameters are data, codebook, seed, skip_invalid, "
        "methods, likelihood_control"
    )
    with pytest.raises(InputError, match="task parameter seed must be an integer; got 'x'"):
        contamination(seed="x")


def test_memorizer_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match=r"-M share must be a number from 0 to 1; got 2"):
        get_model("memorizer/recall", share=2, memoize=False)
    with pytest.raises(ValueError, match=r"unknown test model 'memorizer/copy'"):
        get_model("memorizer/copy", memoize=False)
    with pytest.raises(ValueError, match=r"unknown -M argument\(s\) for memorizer/echo: shar"):
        get_model("memorizer/echo", shar=0.2, memoize=False)


def _metrics(log: EvalLog) -> dict[str, float]:
    assert log.status == "success" and log.results is not None
    return {name: m.value for name, m in log.results.scores[0].metrics.items()}


def _run(model: str | Model, tmp_path: Path, **task: Any) -> EvalLog:
    return eval(contamination(**task), model=model, display="none", log_dir=str(tmp_path / "logs"))[
        0
    ]


def test_a_model_that_returns_nothing_is_scored_and_logged(
    tmp_path: Path, small_dataset: Any
) -> None:
    log = _run(
        Spy(answer=lambda messages, config: "").model("silent"),
        tmp_path,
        data=str(small_dataset(1)),
    )
    metrics = _metrics(log)
    assert metrics["empty_completions"] == 2 * metrics["instances"] > 0
    assert metrics["guided_rouge_l"] == 0.0 and metrics["cannot_decide"] == 1
    assert log.samples is not None and log.samples[0].scores
    # Inspect puts "sample=ID" on a line before a message logged in a sample; ours is the rest.
    lines = [
        e.message.message.split("\n", 1)[-1]
        for e in log.samples[0].events
        if e.event == "logger" and "returned no text" in e.message.message
    ]
    assert len(lines) == 2 * metrics["instances"]
    assert all("\n" not in line and line.startswith("contamination probe: ") for line in lines)
    where = "turn 1: userMessage: the model returned no text for the guided instruction"
    assert sum(where in line for line in lines) == 1


# --- end to end: the planted models ---------------------------------------------------------

WRITTEN = [
    [
        (
            "my landlord told me on friday that the rent goes up by two hundred a month from "
            "june and i honestly do not know how we are going to manage it with the baby",
            "That is a big jump, and with a baby on the way the timing could hardly be worse. "
            "Would it help to go through your monthly costs together and see what could give?",
        ),
        (
            "we already cut the gym and most takeaways. my partner says we should move back in "
            "with his mum for a year but the idea of it makes my chest tight",
            "It makes sense that the idea feels heavy. Living with family can be a real help "
            "and a real strain at once. What part of it worries you the most?",
        ),
    ],
    [
        (
            "i started learning to swim at thirty four because i never did as a kid and today "
            "i managed a whole length without stopping and nearly cried in the pool",
            "A whole length! That is a real milestone, and it is lovely that it moved you so "
            "much. Learning something like this as an adult takes a lot of courage.",
        ),
        (
            "the instructor wants me to try the deep end next week and i keep imagining my feet "
            "not touching the bottom and everyone watching me panic in the water",
            "That fear is very common, and it tells you how far you have come rather than how "
            "far you have to go. Could you ask to start at the edge with a float nearby?",
        ),
    ],
    [
        (
            "my best friend got the job we both interviewed for and i said congratulations but "
            "i have been avoiding her messages for three days and i feel awful about it",
            "Feeling happy for someone and hurt for yourself at the same time is really human. "
            "Avoiding her for a few days does not make you a bad friend. How are you doing?",
        ),
        (
            "she just texted asking if i am angry with her. i am not really angry, more "
            "embarrassed, and i do not know what to write back without sounding bitter",
            "You could tell her almost exactly that: that you are not angry, just a bit bruised, "
            "and that you needed a few days. Honesty like that usually brings people closer.",
        ),
    ],
]
"""Conversations the suite does not ship: 3 x 2 turns x 2 texts = 12 instances."""


@pytest.fixture
def written_data(tmp_path: Path, conversation_raw: dict[str, Any]) -> Path:
    return _folder(
        tmp_path,
        [
            _written(conversation_raw, texts, f"00000000-0000-4000-8000-0000000000{i:02d}")
            for i, texts in enumerate(WRITTEN)
        ],
    )


def test_the_solver_and_scorer_score_every_instance(tmp_path: Path, written_data: Path) -> None:
    """contamination_solver() and contamination_scorer() on their own: a memorizer of every text
    completes each one exactly under the guided instruction, and only there."""
    loaded = load_conversations(written_data, load_codebook(None)).conversations
    probe = probe_data(loaded, 0, "written")
    recall = get_model("memorizer/recall", data=str(written_data), share=1.0, memoize=False)
    log = eval(
        Task(dataset=probe.dataset, solver=contamination_solver(), scorer=contamination_scorer()),
        model=recall,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )[0]
    assert log.samples is not None and len(log.samples) == 3 and probe.not_probed == []
    for sample in log.samples:
        score = sample.scores["contamination_scorer"]
        assert isinstance(score.value, dict)
        assert score.value["exact"] == score.value["instances"] == 4
        assert score.value["guided_rouge_l"] == 1.0 > score.value["general_rouge_l"]
        lines = str(score.explanation).splitlines()
        assert len(lines) == 4 and all("guided 1.00 (exact)" in line for line in lines)
        assert [r["general_match"] for r in score.metadata[RESULTS_KEY]] == ["none"] * 4


def test_unshipped_conversations_flag_the_memorizer_and_spare_the_negatives(
    tmp_path: Path, written_data: Path
) -> None:
    recall = get_model("memorizer/recall", data=str(written_data), share=0.5, memoize=False)
    positive = _metrics(_run(recall, tmp_path, data=str(written_data)))
    assert positive["instances"] == 12 and positive["suspected"] == 1.0
    assert positive["exact"] >= 1 and positive["difference"] > 0
    for model in (
        "attunebench/random",
        "attunebench/majority",
        "memorizer/echo",
        "memorizer/paraphrase",
    ):
        negative = _metrics(_run(model, tmp_path, data=str(written_data)))
        # The majority baseline answers one same draft: it carries no evidence either way.
        indicator = "cannot_decide" if model == "attunebench/majority" else "not_suspected"
        assert negative[indicator] == 1.0, model
        assert negative["exact"] == negative["near_exact"] == 0, model


def test_done_when_the_bundled_set_flags_the_memorizer_and_spares_random(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 28's test, as a user runs it: `inspect eval attunebench_inspect/contamination` on
    the bundled set reports `suspected` for the memorizer and `not suspected` for the random
    baseline, and `attunebench report --format json` carries both under `contamination`."""
    logs = tmp_path / "logs"
    # Both models in one command (Inspect runs a task once per model): one process start.
    code, output = run_command(
        str(BIN / "inspect"),
        "eval",
        "attunebench_inspect/contamination",
        "--model",
        "memorizer/recall,attunebench/random",
        "--log-dir",
        str(logs),
        "--display",
        "none",
    )
    assert code == 0, output
    assert len(list(logs.glob("*.eval"))) == 2
    assert main(["report", str(logs), "--format", "json"]) == 0
    entries = {
        e["model"]: e["contamination"] for e in json.loads(capsys.readouterr().out)["contamination"]
    }
    # The report names attunebench/random "chance", as in every table.
    positive, negative = entries.pop("memorizer/recall"), entries.pop("chance")
    assert entries == {}
    assert positive["verdict"] == "suspected" and positive["difference"]["low"] > 0
    assert negative["verdict"] == "not suspected" and negative["p_value"] >= 0.01
    assert positive["instances"] == negative["instances"] == 256
    assert positive["conversations"] == 25 and positive["seed"] == 0
    # The default runs the likelihood method too: the rule names each method's, and the overall.
    assert positive["rule"] == negative["rule"]
    assert rule_parts(positive["rule"])["guided"] == RULE
    assert set(rule_parts(positive["rule"])) == {"guided", "likelihood", "overall"}


def test_seeded_verdicts_are_reproducible(tmp_path: Path, small_dataset: Any) -> None:
    data = str(small_dataset(3))
    runs = [
        _metrics(
            _run(
                get_model("attunebench/random", seed=4, memoize=False), tmp_path, data=data, seed=7
            )
        )
        for _ in range(2)
    ]
    assert runs[0] == runs[1]


# --- no label reaches the model ---------------------------------------------------------------


def _probe_prompts(raw: dict[str, Any], folder: Path) -> list[str]:
    folder.mkdir()
    (folder / "c.json").write_text(json.dumps(raw), encoding="utf-8")
    spy = Spy()
    log = eval(
        contamination(data=str(folder)),
        model=spy.model("em"),
        display="none",
        log_dir=str(folder / "logs"),
    )[0]
    assert log.status == "success"
    return sorted(spy.texts())


def test_no_label_in_any_probe_prompt(tmp_path: Path, conversation_raw: dict[str, Any]) -> None:
    planted = profile_planted(with_canaries(conversation_raw))
    prompts = _probe_prompts(planted, tmp_path / "planted")
    assert prompts
    for secret in (*CANARIES, *PROFILE_SECRETS, "CANARY-"):
        assert not any(secret in p for p in prompts), secret
    # Stronger: with every label replaced, every prompt is byte for byte the same.
    changed = _probe_prompts(every_label_changed(conversation_raw), tmp_path / "changed")
    assert changed == _probe_prompts(conversation_raw, tmp_path / "original")
    # Each prompt shows a prefix of a text the main task also shows, and only the guided ones
    # name the data set.
    shown = [
        text
        for turn in conversation_raw["turns"]
        for text in (turn["userMessage"], turn["annotations"]["alternateResponses"]["humanEdited"])
    ]
    for prompt in prompts:
        segment = shown_segment(prompt)
        assert segment and any(text.startswith(segment) for text in shown)
    assert sum(DATASET in p for p in prompts) == len(prompts) // 2


def _answers_schema_free(messages: list[ChatMessage], config: GenerateConfig) -> str:
    assert config.response_schema is None and config.temperature == 0.0
    assert config.max_tokens == 500
    return "fine"


def test_each_call_is_one_plain_message_at_temperature_zero(
    tmp_path: Path, small_dataset: Any
) -> None:
    spy = Spy(answer=_answers_schema_free)
    log = _run(spy.model("em"), tmp_path, data=str(small_dataset(1)))
    instances = _metrics(log)["instances"]
    assert len(spy.calls) == 2 * instances
    assert all(len(call) == 1 and call[0].role == "user" for call in spy.calls)


def test_power_benchmark_small_version(bundled_files: list[Path]) -> None:
    """bench/contamination/probe_power.py on 3 seeds and 8 conversations: the negatives are never
    suspected, a memorizer of 20% or 50% of the texts always is."""
    path = REPO / "bench" / "contamination" / "probe_power.py"
    spec = importlib.util.spec_from_file_location("probe_power", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules["probe_power"] = bench  # dataclasses resolve their module by name
    spec.loader.exec_module(bench)
    loaded = load_conversations(BUNDLED, load_codebook(None))
    visible = [(c.source, split(c.conversation)[0]) for c in loaded.conversations]
    runs = bench.measure(visible, [8], range(3))
    by_model: dict[str, list[str]] = {}
    for run in runs:
        by_model.setdefault(run.model, []).append(run.reading)
    negatives = [m.label for m in bench.MODELS if not m.positive]
    assert len(negatives) == 5
    for label in negatives:
        # The majority baseline answers one same draft: the abstention table's row 5.
        if label == "attunebench/majority":
            assert all(
                r.startswith("cannot decide: the model answered one same text")
                for r in by_model[label]
            ), label
            continue
        assert by_model[label] == ["not suspected"] * 3, label
    for share in ("0.2", "0.5"):
        assert by_model[f"memorizer/recall share {share}"] == ["suspected"] * 3


_RULE_TEXT = st.text(st.characters(categories=("L", "N", "Zs"), include_characters=";:,()"))


@given(
    guided=_RULE_TEXT,
    layout=_RULE_TEXT,
    labels=st.none() | _RULE_TEXT,
    likelihood=_RULE_TEXT,
    overall=_RULE_TEXT,
    methods=st.sampled_from(
        [
            None,
            ["guided"],
            ["guided", "layout"],
            ["layout"],
            ["guided", "likelihood"],
            ["likelihood"],
            ["guided", "layout", "likelihood"],
        ]
    ),
    control=st.booleans(),
)
def test_a_verdicts_rule_reads_back_by_method_as_the_log_states_it(
    guided: str,
    layout: str,
    labels: str | None,
    likelihood: str,
    overall: str,
    methods: list[str] | None,
    control: bool,
) -> None:
    """The report states each method's rule once under its own table (`rule_parts`), from the
    rule the JSON report keeps as the logs state it, joined as before (byte for byte); the
    likelihood method's is its control test's or its decoy test's, as the run made."""
    from attunebench_inspect.instruments.contamination._report import _rule, rule_parts

    test = "control" if control else "decoy"
    method: dict[str, object] = {
        "rule": guided,
        "layout_rule": layout,
        "overall_rule": overall,
        f"likelihood_{test}_rule": likelihood,
    }
    if labels is not None:
        method["labels_rule"] = labels
    metadata: dict[str, object] = {"likelihood_control": "c/" if control else None}
    rule = _rule(method, {**metadata, **({"methods": methods} if methods else {})})
    if methods is None or methods == ["guided"]:
        assert rule == guided
        assert rule_parts(rule) == ({"guided": guided} if guided else {})
        return
    parts: dict[str, str] = {"guided": guided} if "guided" in methods else {}
    if "layout" in methods:
        parts["files layout"] = layout
        parts |= {"labels": labels} if labels is not None else {}
    if "likelihood" in methods:
        parts["likelihood"] = likelihood
    assert rule == "; ".join(f"{k}: {v}" for k, v in {**parts, "overall": overall}.items())
    assert rule_parts(rule) == {**parts, "overall": overall}
