"""Outside check of issue 45: structured nulls, written by an outside tester, on conversations
written by bench/outside/gen.py. Runs every check over the seeds and prints a table.

    OPENBLAS_NUM_THREADS=1 nice .venv/bin/python bench/outside/nulls.py --seeds 20 [--only NAME]

Public face only: `inspect_ai.eval` on `attunebench_inspect/default` and `/contamination`, the
`attunebench report ... --format json` CLI with `--third-party`, and answer files in the
published format (docs/human-baseline.md, docs/third-party.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gen  # noqa: E402
import provider  # noqa: E402,F401  (registers the `outside` model provider)

from inspect_ai import eval as inspect_eval  # noqa: E402

import attunebench_inspect  # noqa: E402

REPO = HERE.parents[1]
BIN = Path(sys.executable).parent
ORACLES = ["oracle-0.9-0.1-0.5", "oracle-0.1-0.5-0.9", "oracle-0.5-0.9-0.1", "oracle-0.3-0.3-0.3"]


def run_eval(task, models, data, log_dir, **kw):
    os.environ["OUTSIDE_DATA"] = str(data)
    logs = inspect_eval(task, model=models, task_args={"data": str(data), **kw.pop("task_args", {})},
                        log_dir=str(log_dir), display="none", max_connections=50, **kw)
    for lg in logs:
        if lg.status != "success":
            raise RuntimeError(f"{task} {lg.eval.model}: {lg.status} {lg.error}")
    return logs


def report_json(log_dir, *extra):
    out = subprocess.run([str(BIN / "attunebench"), "report", str(log_dir), "--format", "json",
                          "--resamples", "2000", *map(str, extra)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"report failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout)


# ---------------------------------------------------------------- answer files (third parties)

def answer_file(path, name, data, label_maps, labels_of):
    """labels_of(conv) -> per-turn labels in source terms and the post answers; written in the
    page's neutral labels via the label maps the suite's own pairwise prompts showed."""
    convs, cb, _ = provider.load(str(data))
    out = {"format": "attunebench-answers/1", "annotator": name, "mode": "default",
           "shuffle_seed": 0, "task_version": attunebench_inspect.TASK_VERSION,
           "codebook_sha256": hashlib.sha256((Path(data) / "annotation_codebook.json")
                                             .read_bytes()).hexdigest(),
           "conversations": {}}
    for c in convs:
        lab = labels_of(c)
        turns = {}
        for t in c["turns"]:
            n = t["turnNumber"]
            tl = lab["turns"][n]
            pw = {}
            for cid, m in label_maps[(c["conversationId"], n)].items():
                w = tl["pairwise"][(m["q"], frozenset((m["sx"], m["sy"])))]
                pw[cid] = {"winner": m["x"] if w == m["sx"] else m["y"]}
            binary = {q: {"observed": o, "preferred": p} for q, (o, p) in tl["binary"].items()}
            turns[str(n)] = {"pairwise": pw,
                             "emotion": {"mood_shift": tl["mood"], "binary": binary},
                             "binary_hp": {"binary": binary}}
        out["conversations"][c["conversationId"]] = {"turns": turns, "post": lab["post"]}
    Path(path).write_text(json.dumps(out, indent=1))
    return path


def own_labels(c, cb):
    """The participant's own labels of conversation c, in answer-file terms."""
    cw = cb["conversationWide"]
    g = c["conversationWideQuestions"]
    turns = {}
    for t in c["turns"]:
        pw = {}
        for comp in t["annotations"]["pairwiseComparisons"]:
            w = comp["responseA"] if comp["winner"] == "A" else comp["responseB"]
            pw[(comp["questionId"], frozenset((comp["responseA"], comp["responseB"])))] = w
        binary = {j["questionId"]: (j["observedBehavior"], j["preferredBehavior"])
                  for j in t["annotations"]["binaryJudgements"]}
        mood = {m["emotion"].lower(): m["intensity"] for m in t["moodShiftTags"]}
        turns[t["turnNumber"]] = {"pairwise": pw, "binary": binary, "mood": mood}
    post = {"post_panas": dict(c["postPanas"]["responses"]),
            "q1_looking_for": {o: o in g["q1_lookingFor"] for o in cw["q1_lookingFor"]["options"]},
            "q2_emotion_clarity": g["q2_emotionClarity"], "q3_model_fit": g["q3_modelFit"],
            "q3_follow_up": {o: o in g.get("q3_followUp_whatFeltOff", [])
                             for o in cw["q3_followUp_whatFeltOff"]["options"]},
            "q3_follow_up_own_words": "",
            "four_branch": dict(g["fourBranchScores"])}
    return {"turns": turns, "post": post}


def copier(convs, cb, rng, *, keep_own=None, p_keep=0.0):
    """labels_of for an annotator who takes every label (or, with keep_own, the pairwise winners
    only) from ANOTHER conversation: the same pairwise question and pair, the same binary
    question, the same turn number's mood tags, another conversation's questionnaire."""
    own = {c["conversationId"]: own_labels(c, cb) for c in convs}
    ids = list(own)

    def others(cid):
        return [own[i] for i in ids if i != cid]

    def pick_pair(cid, key):
        pool = [o["turns"][n]["pairwise"][key] for o in others(cid) for n in o["turns"]
                if key in o["turns"][n]["pairwise"]]
        if not pool:  # the question was asked nowhere else: the same pair on any question
            pool = [w for o in others(cid) for n in o["turns"]
                    for (q, pr), w in o["turns"][n]["pairwise"].items() if pr == key[1]]
        return rng.choice(pool)

    def pick_binary(cid, q):
        pool = [o["turns"][n]["binary"][q] for o in others(cid) for n in o["turns"]
                if q in o["turns"][n]["binary"]]
        if not pool:
            pool = [v for o in others(cid) for n in o["turns"] for v in o["turns"][n]["binary"].values()]
        o_, p_ = rng.choice(pool)
        return (o_, p_)

    def pick_mood(cid, n):
        pool = [o["turns"][n]["mood"] for o in others(cid) if n in o["turns"]]
        if not pool:
            pool = [o["turns"][m]["mood"] for o in others(cid) for m in o["turns"]]
        return dict(rng.choice(pool))

    def noisy(v, choices):
        return v if rng.random() < p_keep else rng.choice(choices)

    def labels_of(c):
        cid = c["conversationId"]
        mine = own[cid]
        out = {"turns": {}, "post": None}
        for n, tl in mine["turns"].items():
            pw = {k: pick_pair(cid, k) for k in tl["pairwise"]}
            if keep_own:  # informative on every other field: the participant's label on p_keep
                binary = {q: (noisy(o, ["yes", "no", "na"]), noisy(p, ["yes", "no", "na"]))
                          for q, (o, p) in tl["binary"].items()}
                mood = tl["mood"] if rng.random() < p_keep else (
                    {rng.choice(provider.PANAS): rng.randint(1, 7)} if rng.random() < 0.5 else {})
            else:
                binary = {q: pick_binary(cid, q) for q in tl["binary"]}
                mood = pick_mood(cid, n)
            out["turns"][n] = {"pairwise": pw, "binary": binary, "mood": mood}
        if keep_own:
            post = json.loads(json.dumps(mine["post"]))
            cw = cb["conversationWide"]
            post["post_panas"] = {k: noisy(v, list(range(1, 8))) for k, v in post["post_panas"].items()}
            post["four_branch"] = {k: noisy(v, list(range(1, 8))) for k, v in post["four_branch"].items()}
            post["q2_emotion_clarity"] = noisy(post["q2_emotion_clarity"], cw["q2_emotionClarity"]["options"])
            post["q3_model_fit"] = noisy(post["q3_model_fit"], cw["q3_modelFit"]["options"])
            post["q1_looking_for"] = {k: noisy(v, [True, False]) for k, v in post["q1_looking_for"].items()}
            out["post"] = post
        else:
            out["post"] = json.loads(json.dumps(rng.choice(others(cid))["post"]))
        # the follow-up is asked only after a negative Q3: keep it consistent with the Q3 given
        neg = cb["conversationWide"]["q3_modelFit"]["options"][:2]
        if out["post"]["q3_model_fit"] not in neg:
            out["post"]["q3_follow_up"] = {k: False for k in out["post"]["q3_follow_up"]}
        return out
    return labels_of


def read_label_maps(path):
    maps = {}
    for line in Path(path).read_text().splitlines():
        r = json.loads(line)
        maps[(r["conv"], r["turn"])] = r["comps"]
    return maps


# ---------------------------------------------------------------- the checks

def third_party_seed(seed, work):
    data = gen.write(work / "data", seed)
    rec = work / "labelmap.jsonl"
    rec.unlink(missing_ok=True)
    os.environ["OUTSIDE_RECORD"] = str(rec)
    run_eval("attunebench_inspect/default", [f"outside/{m}" for m in ORACLES], data, work / "logs")
    os.environ.pop("OUTSIDE_RECORD")
    maps = read_label_maps(rec)
    convs, cb, _ = provider.load(str(data))
    rng = random.Random(1000 + seed)
    rows = []
    for null, files in [
        ("base-rate copier (every label from another conversation)",
         [answer_file(work / "copier.json", "copier", data, maps, copier(convs, cb, rng))]),
        ("3 annotators informative (80%) but pairwise winners from other conversations",
         [answer_file(work / f"perm{k}.json", f"perm{k}", data, maps,
                      copier(convs, cb, rng, keep_own=True, p_keep=0.8)) for k in range(3)]),
    ]:
        rep = report_json(work / "logs", "--codebook", data / "annotation_codebook.json",
                          "--third-party", *files)
        rows.append((null, rep["third_party"]))
    return rows


def stability_seed(seed, work):
    data = gen.write(work / "data", seed)
    run_eval("attunebench_inspect/default", ["outside/longer"], data, work / "slogs", epochs=2)
    return report_json(work / "slogs")


def contamination_seed(seed, work):
    data = gen.write(work / "rdata", seed, n=6, repetitive=True)
    run_eval("attunebench_inspect/contamination", ["outside/pattern", "outside/echo"], data,
             work / "clogs", task_args={"seed": seed})
    return report_json(work / "clogs")



# ---------------------------------------------------------------- the table

def _binom_tail(k, n, a):
    from math import comb
    return sum(comb(n, i) * a ** i * (1 - a) ** (n - i) for i in range(k, n + 1))


def readings(line):
    """(null, verdict read, false?, alpha) for one seed's raw result."""
    out = []
    res = line["result"]
    if line["check"] == "third_party":
        for null, tp in res:
            test = tp["modes"][0]["test"]
            verdict = test["verdict"].split(":")[0]
            if null.startswith("base-rate"):
                fields = {a["field"]: a["corrected"] for a in tp["agreement"]
                          if a["rater"] == "consensus" and a.get("corrected")
                          and a["corrected"].get("low") is not None}
                above = sorted(f for f, k in fields.items() if k["low"] > 0)
                out.append((f"{null}: kappa interval above 0 on some field ({len(fields)} fields)",
                            "above 0 on " + ",".join(above) if above else "no field above 0",
                            bool(above), 0.025 * len(fields)))
                out.append((f"{null}: field readings above 0 (of all fields x seeds)",
                            f"{len(above)} of {len(fields)}", (len(above), len(fields)), 0.025))
                out.append((f"{null}: the reviewer's test", verdict,
                            verdict != "cannot decide", 0.0))
            else:
                info = test["information"]["preference_prediction"]
                k = info["kappas"]["pairwise"]
                out.append((f"{null}: information condition on preference prediction",
                            "above chance" if info["informative"] else "at chance",
                            bool(info["informative"]), 0.025))
                out.append((f"{null}: the reviewer's test", verdict,
                            verdict == "separability holds", 0.0))
    elif line["check"] == "stability":
        for st in res["stability"]:
            pb = st["position_bias"]
            out.append((f"stability: {st['model']} (content only, 12 dependent answers a call): "
                        "position bias", pb["verdict"], pb["verdict"] == "position-biased", 0.01))
    else:
        for row in res["contamination"]:
            c = row.get("contamination") or {}
            if not c:
                continue
            v = c["verdict"].split(":")[0]
            out.append((f"contamination: {row['model']} on {line.get('texts', 'repeated-sentence')} conversations", v,
                        v == "suspected", 0.01))
    return out


def table(paths):
    rows = defaultdict(lambda: {"verdicts": defaultdict(int), "false": 0, "seeds": 0,
                                "alpha": 0, "k": 0, "n": 0, "seconds": 0.0})
    for p in paths:
        for ln in Path(p).read_text().splitlines():
            line = json.loads(ln)
            for null, verdict, false, alpha in readings(line):
                r = rows[null]
                r["alpha"] = alpha
                if isinstance(false, tuple):
                    r["k"] += false[0]
                    r["n"] += false[1]
                    r["seeds"] += 1
                    continue
                r["seeds"] += 1
                r["verdicts"][verdict] += 1
                r["false"] += int(false)
                r["seconds"] += line["seconds"]
    print("| null | verdicts | seeds | false | alpha | P(>= false at alpha) |")
    print("|---|---|---|---|---|---|")
    for null, r in rows.items():
        if r["n"]:
            tail = _binom_tail(r["k"], r["n"], r["alpha"])
            print(f"| {null} | - | {r['seeds']} | {r['k']} of {r['n']} | {r['alpha']} | {tail:.3f} |")
            continue
        vs = ", ".join(f"{v} {n}" for v, n in sorted(r["verdicts"].items()))
        a = min(r["alpha"], 1.0)
        tail = _binom_tail(r["false"], r["seeds"], a) if r["false"] else 1.0
        print(f"| {null} | {vs} | {r['seeds']} | {r['false']} of {r['seeds']} | {a:g} | {tail:.3f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--only", choices=["third_party", "stability", "contamination"])
    ap.add_argument("--work", default="/tmp/outside-nulls")
    ap.add_argument("--raw", default=None, help="append each seed's raw readings to this JSONL")
    ap.add_argument("--table", nargs="*", help="only print the table of these raw JSONL files")
    a = ap.parse_args()
    if a.table:
        table(a.table)
        return
    if a.raw is None:
        a.raw = str(Path(a.work) / "raw.jsonl")
    work = Path(a.work)
    checks = {"third_party": third_party_seed, "stability": stability_seed,
              "contamination": contamination_seed}
    for name, fn in checks.items():
        if a.only and name != a.only:
            continue
        for seed in range(a.first, a.first + a.seeds):
            t0 = time.time()
            w = work / name / str(seed)
            w.mkdir(parents=True, exist_ok=True)
            res = fn(seed, w)
            line = {"check": name, "seed": seed, "seconds": round(time.time() - t0, 1),
                    "result": res}
            if a.raw:
                with open(a.raw, "a") as f:
                    f.write(json.dumps(line, default=str) + "\n")
            print(name, seed, line["seconds"], file=sys.stderr, flush=True)
    table([a.raw])


if __name__ == "__main__":
    main()
