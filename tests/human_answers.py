"""Answer files a person could have written, in the human page's published format: `oracle`
answers every call of a conversation as its labels say."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, read_eval_log

from attunebench_inspect._parameters import TASK_VERSION
from attunebench_inspect._suite.cli import main
from attunebench_inspect.data import Codebook, load_conversations, split
from attunebench_inspect.data._split import GroundTruth, VisibleConversation
from attunebench_inspect.instruments.human._export import page_data
from attunebench_inspect.solve._solver import pairwise_labels
from tests.conftest import BUNDLED


def with_reason(answer: dict[str, str]) -> dict[str, str]:
    return {"reasoning": "From what they wrote.", **answer}


def oracle(
    visible: VisibleConversation,
    truth: GroundTruth,
    codebook: Codebook,
    *,
    reasoning: bool = False,
) -> dict[str, Any]:
    """The answers of one conversation that match every label (through the solver's labels)."""
    reason = with_reason if reasoning else (lambda a: a)
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
            "emotion": with_reason(emotion) if reasoning else emotion,
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
    return {"turns": turns, "post": with_reason(post) if reasoning else post}


def answer_file(annotator: str, conversations: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """As the page saves it, less the page (`page_of`), at this suite's task version."""
    return {
        "format": "attunebench-answers/1",
        "annotator": annotator,
        "task_version": TASK_VERSION,
        "conversations": conversations,
        **extra,
    }


def page_of(
    conversations: list[VisibleConversation], codebook: Codebook, shuffle_seed: int = 0
) -> dict[str, Any]:
    """The `page` an exported page of these conversations writes into its answer files."""
    return {
        "id": page_data(conversations, codebook, shuffle_seed)["page"],
        "conversations": [c.conversation_id for c in conversations],
    }


def turns_of(file: Path) -> int:
    return len(json.loads(file.read_text(encoding="utf-8"))["turns"])


# The shortest bundled conversations keep the browser and replay tests fast.
SHORTEST = sorted(BUNDLED.glob("*.json"), key=lambda f: (turns_of(f), f.name))


def data_folder(folder: Path, files: list[Path]) -> Path:
    folder.mkdir()
    for file in files:
        shutil.copy(file, folder / file.name)
    return folder


def split_all(data: Path, codebook: Codebook) -> dict[str, tuple[VisibleConversation, GroundTruth]]:
    return {
        c.conversation.conversationId: split(c.conversation)
        for c in load_conversations(data, codebook).conversations
    }


def sample_scores(log: EvalLog) -> dict[str, dict[str, Any]]:
    assert log.samples is not None
    return {str(s.id): {k: v.value for k, v in s.scores.items()} for s in log.samples}


def composite_of(log: EvalLog, sample_id: str) -> dict[str, float]:
    value = sample_scores(log)[sample_id]["composite_scorer"]
    assert isinstance(value, dict)
    return value


def human_import(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["human", "import", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def only_log(folder: Path) -> EvalLog:
    (file,) = folder.glob("*.eval")
    return read_eval_log(str(file))


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, indent=1), encoding="utf-8")
    return path


def one_answered(tmp_path: Path, codebook: Codebook, name: str = "a.json", **extra: Any) -> Path:
    """An answer file of the shortest conversation, answered perfectly."""
    data = tmp_path / "data"
    if not data.exists():
        data_folder(data, SHORTEST[:2])
    convs = split_all(data, codebook)
    first = sorted(convs)[0]
    page = page_of([convs[first][0]], codebook)
    answers = answer_file("ann", {first: oracle(*convs[first], codebook)}, page=page, **extra)
    return write_json(tmp_path / name, answers)
