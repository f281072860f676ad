"""The protocol end to end: modes, baselines, parse failures, repair, leakage, call counts."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig
from inspect_ai.util import Store, collect

from attunebench_inspect import attunebench
from attunebench_inspect.data._samples import visible_of
from attunebench_inspect.solve import MODES, read_walk
from attunebench_inspect.solve._prompts import JUDGE_SYSTEM
from attunebench_inspect.solve._solver import concurrently
from tests.canaries import (
    CANARIES,
    every_label_changed,
    with_canaries,
)
from tests.conftest import BUNDLED
from tests.spy import Spy, is_repair, valid_answer

STRUCTURED = ("emotion", "binary_hp", "pairwise")


def run(task_args: dict[str, Any], model: Any, **kwargs: Any) -> EvalLog:
    log = eval(
        attunebench(**task_args),
        model=model,
        display="none",
        log_dir=kwargs.pop("log_dir", None)
        or str(Path(task_args.get("data", ".")).parent / "logs"),
        **kwargs,
    )[0]
    assert log.status == "success", log.error
    return log


def records(log: EvalLog) -> list[dict[str, dict[str, Any]]]:
    """Per sample, its call records as dicts keyed "draft:t1", ..., "post"."""
    assert log.samples is not None
    return [
        {
            f"{call}:t{turn}" if turn is not None else call: dict(r)
            for (call, turn), r in read_walk(Store(s.store)).records.items()
        }
        for s in log.samples
    ]


def turn_counts(log: EvalLog) -> list[int]:
    assert log.samples is not None
    return [len(visible_of(s.metadata).turns) for s in log.samples]


@pytest.fixture(scope="module")
def mode_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], EvalLog]:
    """Both offline baselines in every mode on three conversations: a log per model and mode,
    by (mode, baseline)."""
    data = tmp_path_factory.mktemp("mode_runs") / "data"
    data.mkdir()
    for file in sorted(BUNDLED.glob("*.json"))[:3]:
        shutil.copy(file, data / file.name)
    logs = eval(
        [attunebench(mode=mode, data=str(data)) for mode in MODES],
        model=["attunebench/random", "attunebench/majority"],
        display="none",
        log_dir=str(data.parent / "logs"),
    )
    assert [log.status for log in logs] == ["success"] * 2 * len(MODES)
    return {(str(log.eval.task_args["mode"]), log.eval.model.split("/")[1]): log for log in logs}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("baseline", ["random", "majority"])
def test_every_mode_runs_with_both_baselines(
    mode: str, baseline: str, mode_runs: dict[tuple[str, str], EvalLog]
) -> None:
    log = mode_runs[(mode, baseline)]
    assert log.eval.task_version == "5-A"
    assert log.eval.metadata is not None and log.eval.metadata["mode"] == mode
    for stored, turns in zip(records(log), turn_counts(log), strict=True):
        expected = {f"{c}:t{n}" for n in range(1, turns + 1) for c in ("draft", *STRUCTURED)}
        assert set(stored) == expected | {"post"}
        assert all(r["status"] == "ok" for r in stored.values())
        if mode.startswith("verbose"):
            assert all(
                "reasoning" in answer
                for r in stored.values()
                if r["call"] == "pairwise"
                for answer in r["prediction"].values()
            )


def test_garbage_output_is_counted_not_crashed(small_dataset: Callable[[int], Path]) -> None:
    spy = Spy(answer=lambda messages, config: "I'd rather not answer in JSON, sorry!")
    log = run({"data": str(small_dataset(2))}, spy.model())
    for stored, turns in zip(records(log), turn_counts(log), strict=True):
        structured = [r for r in stored.values() if r["call"] != "draft"]
        assert len(structured) == 3 * turns + 1
        assert all(r["status"] == "failed" and r["prediction"] is None for r in structured)
        assert all(r["error"] == "no JSON object found in the reply" for r in structured)
        assert all(r["repair_raw"] is not None for r in structured)
    assert log.samples is not None
    for sample in log.samples:
        composite = sample.scores["composite_scorer"].value
        assert isinstance(composite, dict)
        drafts = [k for k in read_walk(Store(sample.store)).records if k[0] == "draft"]
        assert composite["parse_failures"] == composite["calls"] - len(drafts)
    # Every structured call was asked twice: the answer and one repair round.
    assert len(spy.calls) == sum(4 * t + 1 + 3 * t + 1 for t in turn_counts(log))


def test_repair_round_rescues_a_near_valid_answer(small_dataset: Callable[[int], Path]) -> None:
    def answer(messages: list[ChatMessage], config: GenerateConfig) -> str:
        text = valid_answer(messages, config)
        if config.response_schema is None or is_repair(messages):
            return text
        # First answers arrive in a code fence with one key missing.
        broken = json.loads(text)
        broken.pop(next(iter(broken)))
        return f"Sure! ```json\n{json.dumps(broken)}\n```"

    spy = Spy(answer=answer)
    log = run({"data": str(small_dataset(2))}, spy.model())
    for stored in records(log):
        statuses = Counter(r["status"] for r in stored.values() if r["call"] != "draft")
        assert statuses == Counter({"repaired": sum(statuses.values())})
    assert log.results is not None
    composite = next(s for s in log.results.scores if s.name == "parse_failure_rate")
    assert composite.metrics["mean"].value == 0.0


def _prompts_of(raw: dict[str, Any], folder: Path, mode: str) -> list[str]:
    folder.mkdir()
    (folder / "c.json").write_text(json.dumps(raw))
    em, judge = Spy(), Spy()
    eval(
        attunebench(mode=mode, data=str(folder)),
        model=em.model("em"),
        model_roles={"judge": judge.model("judge")},
        display="none",
        log_dir=str(folder / "logs"),
    )
    return sorted(em.texts() + judge.texts())


@pytest.mark.parametrize("mode", MODES)
def test_no_label_reaches_the_model(
    mode: str, tmp_path: Path, conversation_raw: dict[str, Any]
) -> None:
    planted = _prompts_of(with_canaries(conversation_raw), tmp_path / "planted", mode)
    assert planted, "no model call was made"
    for canary in CANARIES:
        assert not any(canary in prompt for prompt in planted), canary
    # Stronger: replacing every label leaves every prompt byte-identical.
    changed = _prompts_of(every_label_changed(conversation_raw), tmp_path / "changed", mode)
    original = _prompts_of(conversation_raw, tmp_path / "original", mode)
    assert changed == original


def test_background_only_in_omniscient_modes(
    tmp_path: Path, conversation_raw: dict[str, Any]
) -> None:
    attitude = conversation_raw["participant_profile"]["conversation_topic_attitude"]
    marker = "Pre-conversation PANAS"
    default_prompts = _prompts_of(conversation_raw, tmp_path / "d", "default")
    omniscient_prompts = _prompts_of(conversation_raw, tmp_path / "o", "omniscient")
    assert not any(marker in p for p in default_prompts)
    assert all(marker in p and attitude in p for p in omniscient_prompts if JUDGE_SYSTEM not in p)


@pytest.mark.parametrize("judged", [False, True])
def test_call_accounting(judged: bool, small_dataset: Callable[[int], Path]) -> None:
    em, judge = Spy(), Spy()
    roles = {"model_roles": {"judge": judge.model("judge")}} if judged else {}
    log = run({"data": str(small_dataset(3))}, em.model("em"), **roles)
    turns = turn_counts(log)
    assert len(em.calls) == sum(4 * t + 1 for t in turns)
    assert len(judge.calls) == (sum(turns) if judged else 0)
    assert all(JUDGE_SYSTEM in text for text in judge.texts())
    assert not any(JUDGE_SYSTEM in text for text in em.texts())
    schemas = Counter(c.response_schema.name if c.response_schema else "draft" for c in em.configs)
    assert schemas == Counter(
        {
            "draft": sum(turns),
            "attunebench_emotion": sum(turns),
            "attunebench_binary_hp": sum(turns),
            "attunebench_pairwise": sum(turns),
            "attunebench_post": len(turns),
        }
    )


def test_transcript_has_a_span_per_turn_and_a_call_error_is_the_samples_own(
    small_dataset: Callable[[int], Path],
) -> None:
    data = small_dataset(1)
    log = run({"data": str(data)}, Spy().model())
    assert log.samples is not None
    sample = log.samples[0]
    turns = turn_counts(log)[0]
    spans = Counter(e.type for e in sample.events if e.event == "span_begin")
    # One span per turn and one for the post-conversation call; no span per call.
    assert spans["turn"] == turns + 1
    assert spans["task"] == 0

    def refuse(messages: list[ChatMessage], config: GenerateConfig) -> str:
        if config.response_schema and config.response_schema.name == "attunebench_pairwise":
            raise RuntimeError("provider refused the pairwise call")
        return valid_answer(messages, config)

    failed = eval(
        attunebench(data=str(data)),
        model=Spy(answer=refuse).model(),
        display="none",
        log_dir=str(data.parent / "logs"),
    )[0]
    assert failed.status == "error"
    assert failed.samples is not None and failed.samples[0].error is not None
    # Raised as itself, not inside an exception group.
    assert failed.samples[0].error.message == "RuntimeError('provider refused the pairwise call')"


def test_pairwise_order_is_seeded(small_dataset: Callable[[int], Path]) -> None:
    data = str(small_dataset(1))
    first = records(run({"data": data, "shuffle_seed": 1}, "attunebench/majority"))[0]
    again = records(run({"data": data, "shuffle_seed": 1}, "attunebench/majority"))[0]
    other = records(run({"data": data, "shuffle_seed": 2}, "attunebench/majority"))[0]
    labels = [first[k]["context"]["labels"] for k in sorted(first) if k.startswith("pairwise")]
    assert labels == [
        again[k]["context"]["labels"] for k in sorted(again) if k.startswith("pairwise")
    ]
    assert labels != [
        other[k]["context"]["labels"] for k in sorted(other) if k.startswith("pairwise")
    ]


def test_calls_failing_at_once_raise_one_error_not_a_group() -> None:
    """Inspect's `collect` wraps two failures of the same moment in an exception group, which
    slips past an `except ProviderReplyError` (score/_scorers.py's re-judge met it under load);
    `concurrently` raises the first failure as itself."""

    async def fails(turn: int) -> None:
        raise ValueError(f"turn {turn}")

    async def both(gather: Callable[..., Awaitable[object]]) -> None:
        await gather(fails(1), fails(2))

    with pytest.raises(BaseExceptionGroup):
        anyio.run(both, collect)
    with pytest.raises(ValueError, match=r"^turn [12]$"):
        anyio.run(both, concurrently)
