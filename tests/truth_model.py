"""A scripted model that answers from the ground truth, replacing a share of its answers with
random ones: noise 0 is an oracle, noise 1 is the random baseline. For end-to-end tests only.

It finds the conversation and turn from the prompt (the transcript's first message and its last
participant turn) and the neutral pairwise labels from the quoted replies, exactly as a model
would see them.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, Model
from inspect_ai.util import JSONSchema

from attunebench_inspect.data import Codebook, load_conversations, split
from attunebench_inspect.data._split import GroundTruth, VisibleConversation, comparison_key
from attunebench_inspect.providers._baselines import RandomFill
from attunebench_inspect.solve._prompts import quote
from attunebench_inspect.solve._schemas import JUDGE_CRITERIA, call_of
from tests.spy import Spy

_TURN = re.compile(r'<participant turn="(\d+)">')
_RESPONSE = re.compile(r'<response label="(\d)">\n(.*?)\n</response>', re.DOTALL)
_COMPARISON = re.compile(r"^- (c\d+): (.*) Reply (\d) or reply (\d)\?$", re.MULTILINE)


def _with_reasoning(value: Any, schema: JSONSchema) -> Any:
    """Add a "reasoning" string wherever the schema asks for one (verbose modes)."""
    if not isinstance(value, dict) or schema.properties is None:
        return value
    result = {
        k: _with_reasoning(v, schema.properties[k]) if k in schema.properties else v
        for k, v in value.items()
    }
    if "reasoning" in schema.properties and "reasoning" not in result:
        result = {"reasoning": "From what the participant wrote.", **result}
    return result


class TruthModel:
    def __init__(
        self,
        data: Path,
        codebook: Codebook,
        noise: float,
        seed: int = 0,
        *,
        readings: Mapping[str, GroundTruth] | None = None,
        judge_rating: int = 7,
    ) -> None:
        """`readings`: conversation ID -> the labels to answer with in place of the
        participant's (a model of planted behaviour); `judge_rating`: what it rates every
        criterion of a draft when it is the judge."""
        self.codebook = codebook
        self.noise = noise
        self.seed = seed
        self.judge_rating = judge_rating
        self.conversations: list[tuple[VisibleConversation, GroundTruth]] = [
            split(c.conversation) for c in load_conversations(data, codebook).conversations
        ]
        if readings is not None:
            self.conversations = [(v, readings[v.conversation_id]) for v, _ in self.conversations]
        self.question_ids = {q.text: q.id for q in codebook.spec.pairwiseQuestions}

    def _find(self, text: str) -> tuple[VisibleConversation, GroundTruth]:
        for visible, truth in self.conversations:
            if f'<participant turn="1">\n{quote(visible.turns[0].user_message)}\n' in text:
                return visible, truth
        raise LookupError("conversation not found in the prompt")

    def answer(self, messages: list[ChatMessage], config: GenerateConfig) -> str:
        schema = config.response_schema
        text = self._answer(messages, config)
        if schema is None or text.startswith("{") is False:
            return text
        return json.dumps(_with_reasoning(json.loads(text), schema.json_schema))

    def _answer(self, messages: list[ChatMessage], config: GenerateConfig) -> str:
        schema = config.response_schema
        text = "\n".join(m.text for m in messages)
        rng = random.Random(f"{self.seed}:{hashlib.sha256(text.encode()).hexdigest()}")
        if schema is None:
            return "I'm sorry this is so hard. What would help most right now?"
        if rng.random() < self.noise:
            return json.dumps(RandomFill(rng)(schema.json_schema))
        visible, truth = self._find(text)
        call = call_of(schema.name)
        if call == "post":
            return json.dumps(self._post(truth))
        n = max(int(x) for x in _TURN.findall(text))
        turn_truth = truth.turns[n - 1]
        binary = {
            q: {"observed": b.observed, "preferred": b.preferred}
            for q, b in turn_truth.binary.items()
        }
        if call == "emotion":
            return json.dumps({"mood_shift": turn_truth.mood_shift, "binary": binary})
        if call == "binary_hp":
            return json.dumps({"binary": binary})
        if call == "judge":
            return json.dumps(
                {
                    "reasoning": "close to the reference",
                    "ratings": dict.fromkeys(JUDGE_CRITERIA, self.judge_rating),
                    "binary": {q: b.preferred for q, b in turn_truth.binary.items()},
                }
            )
        return json.dumps(self._pairwise(text, visible, turn_truth.pairwise, n))

    def _pairwise(
        self, text: str, visible: VisibleConversation, winners: dict[str, str], n: int
    ) -> dict[str, Any]:
        turn = visible.turns[n - 1]
        by_text = {quote(turn.response(s)): s for s in ("original", "alternate", "human")}
        source_of = {label: by_text[body] for label, body in _RESPONSE.findall(text)}
        label_of = {s: label for label, s in source_of.items()}
        answer = {}
        for cid, question, first, second in _COMPARISON.findall(text):
            qid = self.question_ids[question]
            key = comparison_key(qid, source_of[first], source_of[second])  # type: ignore[arg-type]
            answer[cid] = {"winner": label_of[winners[key]]}
        return answer

    def _post(self, truth: GroundTruth) -> dict[str, Any]:
        cb = self.codebook
        return {
            "post_panas": truth.post_panas,
            "q1_looking_for": {o: o in truth.q1_looking_for for o in cb.q1_options},
            "q2_emotion_clarity": truth.q2_emotion_clarity,
            "q3_model_fit": truth.q3_model_fit,
            "q3_follow_up": {o: o in truth.q3_follow_up for o in cb.follow_up_options},
            "four_branch": truth.four_branch,
        }

    def model(self, name: str) -> Model:
        return Spy(answer=self.answer).model(name)
