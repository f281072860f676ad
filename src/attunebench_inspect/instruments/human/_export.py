"""`attunebench human export`: the protocol's questions for a person, as one offline HTML page,
built from `VisibleConversation` alone and the codebook (docs/human-baseline.md, 'The page')."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..._parameters import TASK_VERSION
from ..._util.files import write_atomic
from ...data._codebook import Codebook
from ...data._load import load_conversations
from ...data._panas import NEGATIVE_AFFECT, POSITIVE_AFFECT
from ...data._problems import InputError
from ...data._source import DataSource
from ...data._split import VisibleConversation, VisibleTurn, split
from ...solve._modes import PRIMARY, mode_spec
from ...solve._prompts import analyst_system
from ...solve._solver import pairwise_view
from ._answers import FORMAT

TEMPLATE = Path(__file__).with_name("page.html")
DATA_MARK = "/*ATTUNEBENCH_PAGE_DATA*/"
DEFAULT = mode_spec(PRIMARY)


def choose(
    ids: Sequence[str], wanted: Sequence[str] | None, sample: int | None, seed: int
) -> list[str]:
    """A page's conversations: `wanted` in that order, or `sample` of them drawn with `seed`."""
    if wanted:
        unknown = [i for i in wanted if i not in ids]
        if unknown:
            raise InputError(f"no conversation with the ID(s) {', '.join(unknown)} in the data")
        return list(dict.fromkeys(wanted))
    if sample is None or not 1 <= sample <= len(ids):
        raise InputError(f"--sample must be 1 to {len(ids)} (the data's conversations)")
    drawn = set(random.Random(seed).sample(sorted(ids), sample))
    return [i for i in ids if i in drawn]


def _turn(conv: VisibleConversation, turn: VisibleTurn, codebook: Codebook, seed: int) -> Any:
    view = pairwise_view(seed, conv.conversation_id, turn)
    return {
        "number": turn.turn_number,
        "user": turn.user_message,
        "reply": turn.om_response,
        "binary": [
            {
                "id": qid,
                "observer": codebook.binary[qid].observer_text,
                "participant": codebook.binary[qid].text,
            }
            for qid in turn.binary_question_ids
        ],
        "replies": [{"label": label, "text": text} for label, text in view.replies],
        "comparisons": [
            {
                "id": c.id,
                "question": codebook.pairwise[c.question_id].text,
                "options": [c.first, c.second],
            }
            for c in view.comparisons
        ],
    }


def page_data(
    conversations: Sequence[VisibleConversation], codebook: Codebook, shuffle_seed: int
) -> dict[str, Any]:
    """Everything the page shows and asks, from the visible conversations and the codebook."""
    cw = codebook.spec.conversationWide
    data: dict[str, Any] = {
        "format": FORMAT,
        "shuffle_seed": shuffle_seed,
        "task_version": TASK_VERSION,
        "codebook_sha256": codebook.sha256,
        # The model's own briefing (its first paragraph) is the person's too.
        "intro": analyst_system(conversations[0], DEFAULT).split("\n\n")[0],
        "panas": {"positive": list(POSITIVE_AFFECT), "negative": list(NEGATIVE_AFFECT)},
        "q1": {"text": cw.q1_lookingFor.text, "options": codebook.q1_options},
        "q2": {"text": cw.q2_emotionClarity.text, "options": codebook.q2_options},
        "q3": {
            "text": cw.q3_modelFit.text,
            "options": codebook.q3_options,
            "follow_up_when": codebook.q3_follow_up_when,
        },
        "follow_up": {
            "text": cw.q3_followUp_whatFeltOff.text,
            "options": codebook.follow_up_options,
        },
        "branches": [{"id": b.id, "text": b.text} for b in codebook.spec.fourBranch],
        "conversations": [
            {
                "id": conv.conversation_id,
                "topic": conv.topic.text,
                "turns": [_turn(conv, t, codebook, shuffle_seed) for t in conv.turns],
            }
            for conv in conversations
        ],
    }
    text = json.dumps(data, sort_keys=True, ensure_ascii=False)
    # Names the page's progress in the browser's storage and its answer files.
    data["page"] = hashlib.sha256(text.encode()).hexdigest()[:16]
    return data


def _script_json(value: Any) -> str:
    # Inside <script>, "</script>" or "<!--" in a message would end or change the element; the
    # page reads it with JSON.parse, which takes no NaN or Infinity.
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    for char in ("<", ">", "&", "\u2028", "\u2029"):
        text = text.replace(char, f"\\u{ord(char):04x}")
    return text


@dataclass(frozen=True)
class Exported:
    ids: list[str]
    """The conversations on the page, in its order."""
    available: int
    """The conversations of the data set they were chosen from."""


def export_page(
    source: DataSource,
    codebook: Codebook,
    out: str | Path,
    *,
    ids: Sequence[str] | None = None,
    sample: int | None = None,
    seed: int = 0,
    shuffle_seed: int = 0,
) -> Exported:
    """Write the page for the chosen conversations of a data set to `out`."""
    hint = f"check it with `{source.validate_command()}`"
    loaded = load_conversations(source.conversations, codebook, hint=hint).conversations
    visible = {v.conversation_id: v for v in (split(c.conversation)[0] for c in loaded)}
    chosen = choose(list(visible), ids, sample, seed)
    data = page_data([visible[i] for i in chosen], codebook, shuffle_seed)
    # Said on the page, outside its digest (`page`): a page of the bundled set says that its
    # conversations are not real ones, and pages exported before still import.
    data["synthetic"] = source.bundled
    write_atomic(out, TEMPLATE.read_text(encoding="utf-8").replace(DATA_MARK, _script_json(data)))
    return Exported(chosen, len(visible))
