"""An Inspect model provider of the outside tester's own: `outside/<policy>`.

It reads only the prompt the suite sends (and, for the oracle policies that make models of known
skill, the tester's own conversation files named by OUTSIDE_DATA). Policies:

- `outside/longer`, `outside/shorter`: every comparison of a call from one reading: the longer
  (shorter) reply wins, blind to the labels' order; every other call a fixed answer.
- `outside/oracle-E-B-P-SEED`: the participant's label with probability E on the mood shift, B on
  observed behaviour, P on preferred behaviour and pairwise winners, else a random answer.
- `outside/pattern`, `outside/echo`: contamination nulls (see contam_answer).

With OUTSIDE_RECORD set, every pairwise call's label map (comparison id -> question, the sources
of its two labels) is appended to that JSONL file, so that answer files can be written in the
page's neutral labels.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from pathlib import Path

from inspect_ai.model import ModelAPI, ModelOutput, modelapi

PANAS = ["interested", "excited", "strong", "enthusiastic", "proud", "alert", "inspired",
         "determined", "attentive", "active", "distressed", "upset", "guilty", "scared",
         "hostile", "irritable", "ashamed", "nervous", "jittery", "afraid"]
_CACHE: dict = {}


def load(folder: str):
    if folder in _CACHE:
        return _CACHE[folder]
    root = Path(folder)
    convs = [json.loads(p.read_text()) for p in sorted((root / "conversations").glob("*.json"))]
    cb = json.loads((root / "annotation_codebook.json").read_text())
    qtext = {q["text"]: q["id"] for q in cb["pairwiseQuestions"]}
    qtext.setdefault("Overall, which response would you rather have received?", "general")
    _CACHE[folder] = (convs, cb, qtext)
    return _CACHE[folder]


def find(convs, transcript: str, turn: int):
    hits = [c for c in convs
            if len(c["turns"]) >= turn
            and all(t["userMessage"] in transcript for t in c["turns"][:turn])]
    if len(hits) > 1:
        # one conversation's opening can stand inside another's later message: the true one's
        # opening is the transcript's first message, so it stands earliest (then the longest)
        hits = [min(hits, key=lambda c: (transcript.index(c["turns"][0]["userMessage"]),
                                         -len(c["turns"][0]["userMessage"])))]
    if len(hits) != 1:
        raise RuntimeError(f"outside provider: {len(hits)} conversations match the prompt")
    return hits[0]


def sources_of(turn: dict) -> dict:
    a = turn["annotations"]["alternateResponses"]
    return {turn["llmResponse"].strip(): "original", a["llmImproved"].strip(): "alternate",
            a["humanEdited"].strip(): "human"}


RESP = re.compile(r'<response label="(\d)">\n?(.*?)\n?</response>', re.S)
COMP = re.compile(r"^- (c\d+): (.*?) Reply (\d) or reply (\d)\?$", re.M)
BIN = re.compile(r"^- (B\d+): ", re.M)


def pairwise_map(text: str, turn: dict, qtext: dict) -> tuple[dict, dict]:
    labels = {lab: body.strip() for lab, body in RESP.findall(text)}
    src = sources_of(turn)
    lab_src = {lab: src[body] for lab, body in labels.items()}
    comps = {}
    for cid, q, x, y in COMP.findall(text):
        comps[cid] = {"q": qtext[q.strip()], "x": x, "y": y, "sx": lab_src[x], "sy": lab_src[y]}
    return labels, comps


def truth_winner(turn, q, sx, sy):
    for c in turn["annotations"]["pairwiseComparisons"]:
        if c["questionId"] == q and {c["responseA"], c["responseB"]} == {sx, sy}:
            return c["responseA"] if c["winner"] == "A" else c["responseB"]
    return None


class Outside(ModelAPI):
    def __init__(self, model_name, base_url=None, api_key=None, config=None, **kw):
        super().__init__(model_name, base_url, api_key, [], config) if config else \
            super().__init__(model_name, base_url, api_key, [])
        self.policy = model_name

    async def generate(self, input, tools, tool_choice, config):
        schema = config.response_schema.name if config.response_schema else None
        msgs = [m.text for m in input]
        last = msgs[-1]
        if self.policy in ("pattern", "echo"):
            return ModelOutput.from_content(self.model_name, contam_answer(self.policy, msgs))
        data = os.environ["OUTSIDE_DATA"]
        convs, cb, qtext = load(data)
        if schema is None:  # the draft call
            return ModelOutput.from_content(self.model_name, "That sounds hard. What would help?")
        if schema == "attunebench_post":
            tn = 1
        else:
            m = re.search(r"in turn (\d+)", last)
            tn = int(m.group(1))
        conv = find(convs, "\n".join(msgs), tn)
        turn = conv["turns"][tn - 1]
        key = f"{self.policy}|{conv['conversationId']}|{tn}|{schema}"
        rng = random.Random(int(hashlib.sha256(key.encode()).hexdigest()[:12], 16))
        pol = self.policy.split("-")
        e = b = p = 0.0
        if pol[0] == "oracle":
            e, b, p = (float(v) for v in pol[1:4])
        if schema == "attunebench_pairwise":
            labels, comps = pairwise_map(last, turn, qtext)
            rec = os.environ.get("OUTSIDE_RECORD")
            if rec:
                with open(rec, "a") as f:
                    f.write(json.dumps({"conv": conv["conversationId"], "turn": tn,
                                        "comps": comps}) + "\n")
            out = {}
            for cid, c in comps.items():
                if pol[0] == "longer":
                    w = c["x"] if len(labels[c["x"]]) >= len(labels[c["y"]]) else c["y"]
                elif pol[0] == "shorter":
                    w = c["x"] if len(labels[c["x"]]) <= len(labels[c["y"]]) else c["y"]
                else:
                    t = truth_winner(turn, c["q"], c["sx"], c["sy"])
                    if t is not None and rng.random() < p:
                        w = c["x"] if t == c["sx"] else c["y"]
                    else:
                        w = rng.choice([c["x"], c["y"]])
                out[cid] = {"winner": w}
            return ModelOutput.from_content(self.model_name, json.dumps(out))
        if schema in ("attunebench_emotion", "attunebench_binary_hp"):
            ids = BIN.findall(last)
            gold = {j["questionId"]: j for j in turn["annotations"]["binaryJudgements"]}
            binary = {}
            for q in ids:
                g = gold.get(q, {})
                o = g.get("observedBehavior") if rng.random() < b else rng.choice(["yes", "no"])
                r = g.get("preferredBehavior") if rng.random() < p else rng.choice(["yes", "no"])
                binary[q] = {"observed": o or "no", "preferred": r or "no"}
            out = {"binary": binary}
            if schema == "attunebench_emotion":
                if rng.random() < e:
                    out["mood_shift"] = {t["emotion"].lower(): t["intensity"]
                                         for t in turn["moodShiftTags"]}
                else:
                    out["mood_shift"] = {x: rng.randint(1, 7)
                                         for x in rng.sample(PANAS, rng.choice([0, 1, 2]))}
            return ModelOutput.from_content(self.model_name, json.dumps(out))
        if schema == "attunebench_post":
            cw = cb["conversationWide"]
            gold = conv["conversationWideQuestions"]
            good = rng.random() < 0.5
            out = {
                "post_panas": dict(conv["postPanas"]["responses"]) if good
                else {x: rng.randint(1, 7) for x in PANAS},
                "q1_looking_for": {o: (o in gold["q1_lookingFor"]) if good else rng.random() < 0.3
                                   for o in cw["q1_lookingFor"]["options"]},
                "q2_emotion_clarity": gold["q2_emotionClarity"] if good
                else rng.choice(cw["q2_emotionClarity"]["options"]),
                "q3_model_fit": gold["q3_modelFit"] if good
                else rng.choice(cw["q3_modelFit"]["options"]),
                "q3_follow_up": {o: False for o in cw["q3_followUp_whatFeltOff"]["options"]},
                "q3_follow_up_own_words": "",
                "four_branch": dict(gold["fourBranchScores"]) if good
                else {k: rng.randint(1, 7) for k in ["perceiving", "facilitating",
                                                     "understanding", "managing"]},
            }
            return ModelOutput.from_content(self.model_name, json.dumps(out))
        raise RuntimeError(f"outside provider: unknown call {schema}")


def contam_answer(policy: str, msgs: list[str]) -> str:
    """Filled in by the contamination check (see nulls.py); default: echo the prompt."""
    return msgs[-1]


@modelapi(name="outside")
def outside():
    return Outside


_SEG = re.compile(r"FIRST PIECE:\s*\n(.*?)\n\s*SECOND PIECE:", re.S)


def continue_pattern(segment: str, n_words: int) -> str:
    """The shortest period p (in words) with segment = a prefix of (its first p words) repeated;
    continue that cycle for n_words. Knows nothing of any data set."""
    w = segment.split()
    for p in range(1, len(w) + 1):
        if all(w[i] == w[i % p] for i in range(len(w))):
            break
    return " ".join(w[(len(w) + i) % p] for i in range(n_words))


def contam_answer(policy: str, msgs: list[str]) -> str:  # noqa: F811 (replaces the stub above)
    text = msgs[-1]
    if policy == "echo":
        return text
    segs = _SEG.findall(text)
    seg = segs[-1].strip() if segs else text
    return continue_pattern(seg, 2 * len(seg.split()) + 10)
