"""Conversations written for the outside null checks (issue 45): new topics, new text, new labels.

Nothing here comes from the project's data. Texts are assembled from sentence pools written for
this file; labels are drawn from base rates that differ by question and pair (so that a base-rate
copier has something to copy) plus a per-person effect (so that there is something of the person
to read). Seeded: the same seed writes the same files.
"""

from __future__ import annotations

import json
import random
import shutil
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CODEBOOK = REPO / "tests" / "fixtures" / "deposit" / "annotation_codebook.json"

PANAS = ["interested", "excited", "strong", "enthusiastic", "proud", "alert", "inspired",
         "determined", "attentive", "active", "distressed", "upset", "guilty", "scared",
         "hostile", "irritable", "ashamed", "nervous", "jittery", "afraid"]

TOPICS = [
    ("Work", "Night shifts", ["the night shifts at the bakery", "sleeping in the afternoon",
                               "missing my sister's dinners", "the flour smell in my hair"]),
    ("Health", "Knee surgery recovery", ["the physio exercises", "the stairs in my building",
                                         "not running for months", "the swelling at night"]),
    ("Family", "Aging parent", ["my dad forgetting his keys", "the drive to his town",
                                "the doctor's letter", "who pays for the carer"]),
    ("Hobbies", "Abandoned novel", ["the chapter I cannot finish", "my writing group",
                                    "the editor's silence", "the notebook on my desk"]),
    ("Money", "Surprise tax bill", ["the letter from the tax office", "my freelance invoices",
                                    "the payment plan", "my partner not knowing yet"]),
    ("Housing", "Noisy neighbours", ["the drumming upstairs", "the landlord's reply",
                                     "earplugs that do not work", "moving again so soon"]),
    ("Study", "Failed driving test", ["the roundabout I missed", "the examiner's face",
                                      "booking a retest", "my friends already driving"]),
    ("Identity", "Learning my grandmother's language", ["the verb tables",
                                                        "calls with my cousins",
                                                        "sounding like a child",
                                                        "the old letters in the attic"]),
    ("Pets", "Elderly cat", ["the vet's estimate", "her not eating", "the kidney diet",
                             "deciding when it is time"]),
    ("Community", "Allotment dispute", ["the shared shed", "the committee vote",
                                        "the tomatoes someone took", "my neighbour's fence"]),
    ("Travel", "Fear of flying", ["the flight to the wedding", "the turbulence last time",
                                  "taking the train instead", "my partner's patience"]),
    ("Sport", "Benched from the team", ["the coach's decision", "the away match",
                                        "my teammates' group chat", "training harder or quitting"]),
]

USER_SENT = [
    "I keep going over {x} and it will not leave me alone.",
    "Honestly {x} has been on my mind all week.",
    "I don't know what to do about {x}.",
    "Part of me thinks I'm overreacting about {x}.",
    "Today was worse because of {x}.",
    "Nobody around me seems to get how much {x} bothers me.",
    "I tried to talk about {x} but it came out wrong.",
    "Maybe {x} is not a big deal, I can't tell.",
]
REPLY_SENT = [
    "It sounds like {x} is weighing on you.",
    "That is a lot to carry, especially with {x} in the middle of it.",
    "One thing that can help is writing down what exactly about {x} worries you most.",
    "You might try setting a small, concrete step for {x} this week.",
    "Many people in your position find {x} hard at first.",
    "What would a good outcome with {x} look like for you?",
    "It makes sense that {x} leaves you unsettled.",
    "You could also ask someone you trust how they see {x}.",
    "There is no rule that says you have to solve {x} today.",
    "If {x} keeps affecting your sleep, a doctor or counsellor could help.",
    "I wonder whether {x} connects to something earlier you mentioned.",
    "Try to be as patient with yourself about {x} as you would be with a friend.",
]

SOURCES = ("original", "alternate", "human")
PAIRS = (("original", "alternate"), ("human", "original"), ("alternate", "human"))


def _sentences(rng: random.Random, pool: list[str], things: list[str], n: int) -> str:
    return " ".join(rng.choice(pool).format(x=rng.choice(things)) for _ in range(n))


def _winner(rng, strength, a, b):
    # Bradley-Terry on per-question strengths plus the person's own effect
    import math
    p = 1 / (1 + math.exp(-(strength[a] - strength[b])))
    return "A" if rng.random() < p else "B"


def conversation(rng: random.Random, k: int, codebook: dict, *, repetitive: bool = False) -> dict:
    cat, sub, things = TOPICS[k % len(TOPICS)]
    binary_ids = [q["id"] for q in codebook["binaryQuestions"]]
    pw_ids = [q["id"] for q in codebook["pairwiseQuestions"]]
    cw = codebook["conversationWide"]
    n_turns = rng.randint(3, 8)
    person = {s: rng.gauss(0, 0.8) for s in SOURCES}           # this person's taste
    pid = f"OUT{k:03d}"
    turns = []
    for t in range(1, n_turns + 1):
        if repetitive:
            s1 = rng.choice(USER_SENT).format(x=rng.choice(things))
            s2 = rng.choice(USER_SENT).format(x=rng.choice(things))
            user = " ".join([s1, s2] * rng.randint(3, 5))
            r1 = rng.choice(REPLY_SENT).format(x=rng.choice(things))
            r2 = rng.choice(REPLY_SENT).format(x=rng.choice(things))
            reply = " ".join([r1, r2] * rng.randint(3, 6))
            alt = " ".join([rng.choice(REPLY_SENT).format(x=rng.choice(things))] * rng.randint(2, 5))
            hum = " ".join([rng.choice(REPLY_SENT).format(x=rng.choice(things))] * rng.randint(1, 4))
        else:
            user = _sentences(rng, USER_SENT, things, rng.randint(1, 4))
            reply = _sentences(rng, REPLY_SENT, things, rng.randint(2, 7))
            alt = _sentences(rng, REPLY_SENT, things, rng.randint(1, 6))
            hum = _sentences(rng, REPLY_SENT, things, rng.randint(1, 4))
        if len({reply, alt, hum}) < 3:
            hum = hum + f" (turn {t})"
        qs = rng.sample(binary_ids, rng.randint(3, 7))
        binary = []
        for q in qs:
            qi = binary_ids.index(q)
            p_obs = 0.15 + 0.7 * ((qi * 7) % 10) / 10          # per-question base rate
            p_pref = 0.85 - 0.7 * ((qi * 3) % 10) / 10
            binary.append({"questionId": q,
                           "observedBehavior": rng.choices(["yes", "no", "na"],
                                                           [p_obs, 1 - p_obs, 0.05])[0],
                           "preferredBehavior": rng.choices(["yes", "no", "na"],
                                                            [p_pref, 1 - p_pref, 0.05])[0]})
        sel = rng.sample(pw_ids, 3)
        comps = []
        for q in ["general"] + sel:
            qi = 0 if q == "general" else pw_ids.index(q) + 1
            base = {"original": -0.8 + 0.1 * (qi % 5), "alternate": 0.9 - 0.15 * (qi % 7),
                    "human": 0.6 * ((qi % 3) - 1)}
            strength = {s: base[s] + person[s] for s in SOURCES}
            for a, b in PAIRS:
                comps.append({"questionId": q, "responseA": a, "responseB": b,
                              "winner": _winner(rng, strength, a, b)})
        mood = [{"emotion": e.capitalize(), "intensity": rng.randint(1, 7)}
                for e in rng.sample(PANAS, rng.choice([0, 1, 1, 2]))]
        turns.append({"turnNumber": t, "userMessage": user, "llmResponse": reply,
                      "moodShiftTags": mood,
                      "annotations": {"binaryJudgements": binary,
                                      "alternateResponses": {"llmImproved": alt, "humanEdited": hum},
                                      "pairwiseComparisons": comps,
                                      "selectedPairwiseQuestions": sel}})

    def panas():
        r = {e: rng.randint(1, 5) for e in PANAS}
        return {"totalPositiveAffect": sum(r[e] for e in PANAS[:10]),
                "totalNegativeAffect": sum(r[e] for e in PANAS[10:]), "responses": r}

    q3 = rng.choice(cw["q3_modelFit"]["options"])
    neg = cw["q3_modelFit"]["options"][: len(cw["q3_modelFit"]["options"]) // 2]
    return {
        "conversationId": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "_outside": "written by bench/outside/gen.py for the outside null checks; not AttuneBench data",
        "metadata": {"model": rng.choice(["gpt-4o-mini", "llama-3-8b", "mistral-small"]),
                     "category": cat, "subtopic": sub, "text": f"{cat}: {sub}"},
        "participant_profile": {
            "participant_id": pid,
            "demographics": {"country": rng.choice(["Canada", "Ireland", "India", "Kenya"]),
                             "education": "Bachelor's degree", "work_edu_background": ["Other"],
                             "gender": rng.choice(["Female", "Male"]), "age_range": "25-34",
                             "english_proficiency": "Native", "diagnoses": ["None of the above"]},
            "computed_scores": {"who_5": rng.randint(5, 20)},
            "conversation_topic_attitude": rng.choice(["Neutral", "Sad/Down"]),
        },
        "prePanas": panas(),
        "postPanas": panas(),
        "conversationWideQuestions": {
            "fourBranchScores": {b: rng.randint(1, 7) for b in
                                 ["perceiving", "facilitating", "understanding", "managing"]},
            "q1_lookingFor": rng.sample(cw["q1_lookingFor"]["options"], rng.randint(1, 3)),
            "q2_emotionClarity": rng.choice(cw["q2_emotionClarity"]["options"]),
            "q3_modelFit": q3,
            "q3_followUp_whatFeltOff": (rng.sample(cw["q3_followUp_whatFeltOff"]["options"], 2)
                                        if q3 in neg else []),
        },
        "turns": turns,
    }


def write(folder: Path, seed: int, n: int = 14, *, repetitive: bool = False) -> Path:
    """Write n conversations (one JSON file each) and the codebook into folder; return folder."""
    codebook = json.loads(CODEBOOK.read_text())
    rng = random.Random(seed)
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "conversations").mkdir(parents=True)
    shutil.copy(CODEBOOK, folder / "annotation_codebook.json")
    start = rng.randrange(len(TOPICS))
    firsts: list[str] = []
    for k in range(n):
        c = conversation(rng, start + k, codebook, repetitive=repetitive)
        first = c["turns"][0]["userMessage"]
        if any(first in f or f in first for f in firsts):
            # two conversations must not open alike (a reader, and the human replay, tell them
            # apart by their opening): a sentence of its own, without touching the random stream
            c["turns"][0]["userMessage"] = first + f" This is the {k + 1}th time I have tried to write this."
        firsts.append(c["turns"][0]["userMessage"])
        (folder / "conversations" / f"{c['conversationId']}.json").write_text(json.dumps(c, indent=1))
    return folder


if __name__ == "__main__":
    import sys
    write(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0,
          repetitive=len(sys.argv) > 3)
