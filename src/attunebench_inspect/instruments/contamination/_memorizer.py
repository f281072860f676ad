"""Test instruments for the contamination probe: offline models whose behaviour is planted.

Registered with Inspect as the `memorizer` provider. These are not baselines and their scores mean
nothing; they exist to prove that the probe (this folder) flags what it should and
spares what it should (ARCHITECTURE.md, "Validity instruments"):

- `memorizer/recall`, the **planted positive**: it has read the data set under test (`-M data=PATH`,
  default the bundled set; `-M codebook=PATH` to read it with another codebook). When a prompt
  names the data set ("AttuneBench", the probe's guided instruction) and shows the opening of a
  text it has read, it returns the true rest of that text for a share of the texts (`-M
  share=0.2`, chosen per text from `-M seed=N`); `-M fidelity=F` (default 1.0) replaces each
  recalled word with a filler word with probability 1 - F, for partial recall. Otherwise it
  behaves like a generic model: a plausible, unrelated continuation, drawn from the seed and the
  prompt.
- `memorizer/recall_other`, a **planted positive** of the kind a fine-tuned model turned out to
  be (docs/contamination.md, "A real model that has read the conversations"): shown the opening
  of a text it has read, under either instruction, it writes out *another* text of the same
  turn, the original assistant response (`llmResponse`), for a share of the texts (`-M share`,
  `-M seed`; `-M fidelity` as above). It never reproduces the rest of the text it was shown, so
  only the probe's heuristic 3 can see it.
- `memorizer/files`, a **planted positive** of the kind the files-layout probe is for: it has
  read the data set's files (their visible fields in the files' layout, layout.py) and, shown the
  start of one of them, writes its next `FILE_RECALL_CHARS` characters for a share of the
  conversations (`-M share`, `-M seed`); to anything else it answers as a generic model.
  At a label cut (`_labels.py`) it writes the file's own continuation from the turn's
  `"moodShiftTags": [`, labels included, as a model that has read the published files would.
- `memorizer/guess_labels`, a **planted negative** of the label cut: at a label cut it writes
  plausible labels drawn at random (seeded by the prompt) from the codebook (`-M codebook`): 0 to
  2 PANAS tags and three binary answers to questions of the codebook; to anything else it answers
  as a generic model.
- `memorizer/echo`, a **planted negative**: it repeats the segment it was shown.
- `memorizer/paraphrase`, a **planted negative**: it repeats the segment lightly reworded.

The other negatives are the suite's baselines, `attunebench/random` and `attunebench/majority`,
which answer a call without a response schema with one of a few fixed drafts.

Any call with a response schema (the main task's) is answered with the majority baseline's
answer, so the main task runs on these models too, for demonstrations of a report. Every output
carries `usage` (offline Inspect would otherwise download a tokenizer).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from ..._util.bundled import bundled_conversations_dir
from ...data._codebook import load_codebook
from ...data._load import read_conversations
from ...data._panas import PANAS_ITEMS
from ...data._problems import InputError
from ...data._split import split
from ...providers._baselines import OfflineAPI, majority_fill
from ._layout import LABEL_KEY, LAYOUT_INSTRUCTION, RESPONSE_KEY, document
from ._prompts import DATASET, shown_segment

MEMORIZER_PROVIDER = "memorizer"
"""The provider of the contamination probe's planted models (test instruments, not baselines)."""
MODELS = ("recall", "recall_other", "files", "guess_labels", "echo", "paraphrase")
FILE_RECALL_CHARS = 600
"""How much of a file `memorizer/files` writes on from where it was shown."""
_PARAMETERS = ("share", "fidelity", "seed", "data", "codebook")

_GENERIC = (
    "I keep going back and forth on it and I am not sure what to do next.",
    "It has been a long week and I think I just need some time to sort through it.",
    "Maybe talking it through with someone would help me see it more clearly.",
    "I know it will probably work out, but right now it feels like a lot.",
    "Thanks for listening, it helps to put it into words.",
    "I should probably take a step back before I decide anything.",
    "Part of me wants to move on and part of me wants to stay where I am.",
    "Any ideas on how to start would be really welcome.",
    "It is hard to explain, but it has been on my mind every day.",
    "That makes sense, and I will try to keep it in mind.",
)
_FILLERS = ("thing", "really", "maybe", "something", "kind", "okay", "stuff", "well")
_REWORDED = {
    "i": "I",
    "i'm": "I am",
    "im": "I am",
    "don't": "do not",
    "can't": "cannot",
    "it's": "it is",
    "really": "truly",
    "feel": "sense",
    "feels": "seems",
    "think": "believe",
    "want": "would like",
    "wants": "would like",
    "just": "simply",
    "so": "therefore",
    "but": "yet",
    "lot": "great deal",
    "know": "realise",
    "get": "obtain",
    "like": "such as",
    "very": "quite",
}
_TOKEN = re.compile(r"\S+")


def _unit(*parts: object) -> float:
    """A number in [0, 1) fixed by `parts`."""
    digest = hashlib.sha256("/".join(str(p) for p in parts).encode()).hexdigest()
    return int(digest[:15], 16) / 16**15


def _rng(*parts: object) -> random.Random:
    return random.Random(hashlib.sha256("/".join(str(p) for p in parts).encode()).hexdigest())


def paraphrase(text: str) -> str:
    """The text with common words swapped for near-synonyms: a light rewording."""

    def swap(word: str) -> str:
        core = word.strip(".,!?;:\"'()").casefold()
        return word.casefold().replace(core, _REWORDED[core]) if core in _REWORDED else word

    return " ".join(swap(w) for w in _TOKEN.findall(text))


def read_texts(data: str | None, codebook: str | None) -> list[tuple[str, str]]:
    """The probe's texts of a data set as the model reads them, each with the original assistant
    response of its turn: each turn's participant message and edited reply, from the visible part
    of every valid conversation."""
    path = Path(data) if data is not None else bundled_conversations_dir()
    result = read_conversations(path, load_codebook(codebook))
    if not result.conversations:
        raise InputError(
            f"-M data={path}: no valid conversation to read ({len(result.problems)} problem(s); "
            f"`attunebench validate {path}` lists them)"
        )
    texts: list[tuple[str, str]] = []
    for loaded in result.conversations:
        for turn in split(loaded.conversation)[0].turns:
            texts.extend(
                ((turn.user_message, turn.om_response), (turn.human_response, turn.om_response))
            )
    return texts


def read_documents(data: str | None, codebook: str | None) -> list[tuple[str, str, str]]:
    """Each valid conversation's ID, its document in the files' layout (layout.py), and its
    whole file, labels included, in the same layout."""
    path = Path(data) if data is not None else bundled_conversations_dir()
    result = read_conversations(path, load_codebook(codebook))
    return [
        (
            c.conversation.conversationId,
            document(split(c.conversation)[0]),
            json.dumps(c.conversation.model_dump(mode="json"), indent=2, ensure_ascii=False),
        )
        for c in result.conversations
    ]


def guessed_labels(rng: random.Random, questions: list[str]) -> str:
    """A label cut's continuation with labels drawn at random: what follows `"moodShiftTags": [`
    in a file whose turn holds them."""
    turn = {
        "moodShiftTags": [
            {"emotion": name.capitalize(), "intensity": rng.randint(1, 7)}
            for name in rng.sample(PANAS_ITEMS, rng.randint(0, 2))
        ],
        "annotations": {
            "binaryJudgements": [
                {
                    "questionId": question,
                    "observedBehavior": rng.choice(("yes", "no", "na")),
                    "preferredBehavior": rng.choice(("yes", "no", "na")),
                }
                for question in rng.sample(questions, min(3, len(questions)))
            ]
        },
    }
    return json.dumps(turn, indent=2).partition(LABEL_KEY)[2]


def _fraction(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InputError(f"-M {name} must be a number from 0 to 1; got {value!r}")
    return float(value)


class MemorizerAPI(OfflineAPI):
    provider = MEMORIZER_PROVIDER

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 (ModelAPI's own signature)
        share: float = 0.2,
        fidelity: float = 1.0,
        seed: int = 0,
        data: str | None = None,
        codebook: str | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_name not in MODELS:
            raise InputError(
                f"unknown test model '{MEMORIZER_PROVIDER}/{model_name}'; "
                f"use one of: {', '.join(f'{MEMORIZER_PROVIDER}/{m}' for m in MODELS)}"
            )
        if model_args:
            raise InputError(
                f"unknown -M argument(s) for {MEMORIZER_PROVIDER}/{model_name}: "
                f"{', '.join(sorted(model_args))}; the arguments are {', '.join(_PARAMETERS)}"
            )
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InputError(f"-M seed must be an integer; got {seed!r}")
        for name, value in (("data", data), ("codebook", codebook)):
            if value is not None and not isinstance(value, str):
                raise InputError(f"-M {name} must be a path; got {value!r}")
        self.share = _fraction("share", share)
        self.fidelity = _fraction("fidelity", fidelity)
        self.seed = seed
        self.texts = read_texts(data, codebook) if model_name.startswith("recall") else []
        self.documents = read_documents(data, codebook) if model_name == "files" else []
        self.questions = (
            sorted(load_codebook(codebook).binary) if model_name == "guess_labels" else []
        )

    def _recalled(self, segment: str) -> str | None:
        """What this model recalls of a text read that opens with `segment`, if it is one it
        recalls: the text's rest (`recall`) or its turn's assistant response (`recall_other`)."""
        for text, response in self.texts:
            if text.startswith(segment) and _unit(self.seed, "recall", text) < self.share:
                said = response if self.model_name == "recall_other" else text[len(segment) :]
                rest = _TOKEN.findall(said)
                rng = _rng(self.seed, "fidelity", text)
                return " ".join(
                    w if rng.random() < self.fidelity else rng.choice(_FILLERS) for w in rest
                )
        return None

    def _file_rest(self, shown: str) -> str | None:
        """The rest of a file read that starts with `shown`, where this model recalls it; at a
        label cut, the whole file's rest from the turn's labels."""
        head = shown.removesuffix(LABEL_KEY).rstrip(" ").removesuffix("\n")
        labels = head != shown
        for conversation_id, text, whole in self.documents:
            if _unit(self.seed, "files", conversation_id) >= self.share:
                continue
            if not labels and text.startswith(shown):
                return text[len(shown) : len(shown) + FILE_RECALL_CHARS]
            if labels and text.startswith(head):
                at = -1
                for _ in range(head.count(RESPONSE_KEY)):
                    at = whole.find(LABEL_KEY, at + 1)
                return whole[at + len(LABEL_KEY) :][:FILE_RECALL_CHARS]
        return None

    def complete(self, prompt: str) -> str:
        """The text this model answers `prompt` with (a call without a response schema)."""
        if self.model_name == "files":
            rest = self._file_rest(prompt.rpartition(LAYOUT_INSTRUCTION + "\n")[2])
            if rest is not None:
                return rest
        if self.model_name == "guess_labels" and prompt.endswith(LABEL_KEY):
            return guessed_labels(_rng(self.seed, "labels", prompt), self.questions)
        segment = shown_segment(prompt)
        if self.model_name in ("echo", "paraphrase"):
            shown = segment if segment is not None else prompt
            return shown if self.model_name == "echo" else paraphrase(shown)
        named = DATASET in prompt or self.model_name == "recall_other"
        if segment is not None and named:
            recalled = self._recalled(segment)
            if recalled is not None:
                return recalled
        rng = _rng(self.seed, "generic", prompt)
        return " ".join(rng.sample(_GENERIC, 2))

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        schema = config.response_schema
        content = (
            json.dumps(majority_fill(schema.json_schema))
            if schema
            else self.complete("\n".join(m.text for m in input))
        )
        return self.output(input, content)


@modelapi(name=MEMORIZER_PROVIDER)
def memorizer() -> type[ModelAPI]:
    return MemorizerAPI
