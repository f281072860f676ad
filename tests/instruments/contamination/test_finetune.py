"""bench/contamination/finetune.py: what the fine-tuned models read, the inflation statistic,
and (slow) a real model fine-tuned on two conversations, served by llama-server and probed.

The slow test is gated like tests/e2e/test_local_model.py (--runslow or RUN_SLOW_TESTS=1). It needs
the `finetune` extra (torch, transformers, accelerate, gguf, sentencepiece, protobuf) and builds
llama-server on first use (about 4 minutes on 2 cores).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.canaries import VISIBLE_KEYS, keys
from tests.conftest import REPO as ROOT

sys.path.insert(0, str(ROOT / "bench" / "contamination"))

from corpus import rank_key, split_halves, text_only
from results import inflation

from attunebench_inspect._util.bundled import bundled_conversations_dir

LABEL_FIELDS = (
    "participant_profile",
    "prePanas",
    "postPanas",
    "conversationWideQuestions",
    "moodShiftTags",
    "binaryJudgements",
    "pairwiseComparisons",
    "selectedPairwiseQuestions",
    "model",
)


def strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [value] if isinstance(value, str) else []


# --- the split ----------------------------------------------------------------------------------


def test_split_ranks_by_the_seeded_hash() -> None:
    ids = ["a", "b", "c", "d", "e"]
    split = split_halves(ids, seed=7)
    ranked = sorted(ids, key=lambda c: rank_key(7, c))
    # floor(5/2) = 2 trained, the other 3 held out, both in rank order.
    assert split.trained == tuple(ranked[:2])
    assert split.held_out == tuple(ranked[2:])
    assert split_halves(list(reversed(ids)), seed=7) == split
    assert split_halves(ids, seed=8) != split


def test_split_keeps_the_first_n_by_rank() -> None:
    ids = [f"c{i}" for i in range(10)]
    ranked = sorted(ids, key=lambda c: rank_key(0, c))
    split = split_halves(ids, seed=0, keep=4)
    assert split.trained == tuple(ranked[:2])
    assert split.held_out == tuple(ranked[2:4])
    assert split.evaluated("held_out", 1) == (ranked[2],)
    assert split.evaluated("trained", None) == split.trained


@pytest.mark.parametrize("ids, keep", [(["a"], 0), (["a", "b"], 3), (["a", "b", "c"], 1)])
def test_split_rejects_what_cannot_be_halved(ids: list[str], keep: int) -> None:
    with pytest.raises(ValueError, match=r"^conversations: \d+ asked of \d+; expected 2 to \d+"):
        split_halves(ids, seed=0, keep=keep)


# --- the documents ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(bundled_conversations_dir().glob("*.json"))[:5])
def test_text_variant_is_the_file_without_its_labels(path: Path) -> None:
    raw = path.read_text(encoding="utf-8")
    published = json.loads(raw)
    text = json.loads(text_only(raw))
    assert not keys(text) & set(LABEL_FIELDS)
    assert keys(text) == VISIBLE_KEYS
    # Every message and reply is there, as published and in the file's order.
    texts = [
        t
        for turn in published["turns"]
        for t in (
            turn["userMessage"],
            turn["llmResponse"],
            turn["annotations"]["alternateResponses"]["llmImproved"],
            turn["annotations"]["alternateResponses"]["humanEdited"],
        )
    ]
    kept = strings(text)
    assert [s for s in kept if s in texts] == texts
    # Laid out as the deposit lays it out: the same indentation, so each text's line is
    # byte-identical to the file's.
    for turn in published["turns"]:
        line = "    " + json.dumps({"userMessage": turn["userMessage"]}, ensure_ascii=False)[1:-1]
        assert line in text_only(raw) and line in raw


# --- the inflation ------------------------------------------------------------------------------


def test_inflation_by_hand() -> None:
    untuned = {"a": 10.0, "b": 10.0, "c": 10.0, "d": 10.0}
    variant = {"a": 12.0, "b": 14.0, "c": 11.0, "d": 9.0}
    # V - U: trained a, b = 2, 4 (mean 3); held out c, d = 1, -1 (mean 0): inflation 3 - 0 = 3.
    # Resampled means: trained 2, 3 or 4, held out -1, 0 or 1, so every replicate lies in [1, 5]
    # and both ends have probability 1/16 > 2.5%: the interval is [1, 5].
    result = inflation(variant, untuned, ["a", "b"], ["c", "d"], resamples=4000)
    assert (result.estimate, result.low, result.high, result.n) == (3.0, 1.0, 5.0, 4)


def test_inflation_is_the_difference_of_half_differences() -> None:
    untuned = {"a": 50.0, "b": 40.0, "c": 30.0}
    variant = {"a": 60.0, "b": 45.0, "c": 33.0}
    # (trained V - held V) - (trained U - held U) = (52.5 - 33) - (45 - 30) = 19.5 - 15 = 4.5
    result = inflation(variant, untuned, ["a", "b"], ["c"])
    assert result.estimate == 4.5
    # One conversation in a half: nothing to resample.
    assert math.isnan(result.low) and math.isnan(result.high)


def test_inflation_leaves_out_conversations_without_a_value() -> None:
    untuned = {"a": 1.0, "b": math.nan, "c": 0.0, "d": 0.0}
    variant = {"a": 2.0, "b": 5.0, "c": 0.0}
    # b (untuned NaN) and d (no variant value) are left out: (2 - 1) - (0 - 0) = 1 over 2.
    result = inflation(variant, untuned, ["a", "b"], ["c", "d"])
    assert (result.estimate, result.n) == (1.0, 2)


# --- a real model, fine-tuned and probed (slow) --------------------------------------------------

SHORT = ("syn04-breakup.json", "syn09-drifting-apart-from-a-close-friend.json")
HELD = ("syn18-starting-exercise.json", "syn24-meeting-partners-family.json")


@pytest.fixture(scope="module")
def finetuned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SmolLM2 fine-tuned (variant `text`, 5 epochs) on two short conversations, and the probe
    run on both halves for it and for the untuned model. 30 minutes on 2 shared cores (measured)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    root = tmp_path_factory.mktemp("finetune")
    data = root / "data"
    data.mkdir()
    for name in SHORT + HELD:
        shutil.copy(bundled_conversations_dir() / name, data / name)
    out = root / "out"
    command = [
        sys.executable,
        str(ROOT / "bench" / "contamination" / "finetune.py"),
        *("--out", str(out), "--data", str(data), "--conversations", "4"),
        *("--models", "untuned,text", "--tasks", "probe", "--epochs", "5", "--port", "8097"),
        *("--stages", "prepare,train,convert,evaluate"),
    ]
    result = subprocess.run(
        command, cwd=ROOT, env=os.environ, capture_output=True, text=True, timeout=2 * 3600
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out


def verdict(out: Path, model: str, half: str) -> str:
    from results import probe_result

    probe = probe_result(out / "logs" / model / half / "probe")
    assert probe is not None, f"no probe log for {model} on the {half} half"
    return probe.verdict


@pytest.mark.slow
def test_finetuned_model_memorises_the_trained_texts(finetuned: Path) -> None:
    untuned = json.loads((finetuned / "models" / "untuned" / "train.json").read_text())["nll"]
    tuned = json.loads((finetuned / "models" / "text" / "train.json").read_text())["nll"]
    # Memorised: the trained texts' loss fell to well under half the untuned model's, and far
    # below the held-out texts' loss under the same model (bench/contamination/RESULTS.md, 3
    # epochs on 2 other conversations: 3.68 -> 0.36 nats per token, held-out 3.33 -> 4.29).
    assert tuned["trained"] < 0.5 * untuned["trained"]
    assert tuned["trained"] < 0.5 * tuned["held_out"]
    # The untuned model is not flagged on either half.
    assert verdict(finetuned, "untuned", "trained") == "not suspected"
    assert verdict(finetuned, "untuned", "held_out") == "not suspected"


@pytest.mark.slow
def test_the_probe_flags_the_finetuned_model(finetuned: Path) -> None:
    from results import probe_result

    # Measured with --runslow (docs/contamination.md, 30 minutes on 2 shared cores): heuristic 3
    # flags the trained half, 12 of 24 completions writing out 13+ unshown words of another
    # published text (longest 46), where heuristics 1 and 2 alone would not (permutation
    # p = 0.79, no exact or near-exact match); the held-out half's longest run is 4 words.
    trained = probe_result(finetuned / "logs" / "text" / "trained" / "probe")
    assert trained is not None and trained.verdict == "suspected"
    assert trained.metrics["recalled"] >= 2
    assert verdict(finetuned, "text", "held_out") == "not suspected"
