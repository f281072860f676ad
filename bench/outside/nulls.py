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

if "--table" not in sys.argv:  # the table alone reads saved readings and imports no suite code
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


def copier(convs, cb, rng, *, keep_own=None, p_keep=0.0, population=None):
    """labels_of for an annotator who takes every label (or, with keep_own, the pairwise winners
    only) from ANOTHER conversation: the same pairwise question and pair, the same binary
    question, the same turn number's mood tags, another conversation's questionnaire."""
    own = {c["conversationId"]: own_labels(c, cb) for c in convs}
    ids = list(own)
    pop = [own_labels(c, cb) for c in population] if population else None

    def others(cid):
        # population given: other people of the same population (another data set written by the
        # same generator): base rates drawn independently of this data set's participants
        return pop if pop else [own[i] for i in ids if i != cid]

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


def third_party_fresh_seed(seed, work):
    """The base-rate copier again, copying from ANOTHER data set of the same population (written
    by the same generator with another seed): exact base rates, independent of these people.
    Reuses the model runs of the third_party check where its work folder has them."""
    done = Path(str(work).replace("third_party_fresh", "third_party"))
    for cand in [done] + [Path(str(done).replace("/on-tp/", f"/on-tp{k}/")) for k in (2, 3, 4)]:
        if (cand / "labelmap.jsonl").exists() and (cand / "logs").exists():
            data, logs, maps = cand / "data", cand / "logs", read_label_maps(cand / "labelmap.jsonl")
            break
    else:
        data = gen.write(work / "data", seed)
        rec = work / "labelmap.jsonl"
        rec.unlink(missing_ok=True)
        os.environ["OUTSIDE_RECORD"] = str(rec)
        run_eval("attunebench_inspect/default", [f"outside/{m}" for m in ORACLES], data,
                 work / "logs")
        os.environ.pop("OUTSIDE_RECORD")
        logs, maps = work / "logs", read_label_maps(rec)
    convs, cb, _ = provider.load(str(data))
    popdir = gen.write(work / "population", 50_000 + seed)
    pop, _, _ = provider.load(str(popdir))
    rng = random.Random(2000 + seed)
    f = answer_file(work / "popcopier.json", "popcopier", data, maps,
                    copier(convs, cb, rng, population=pop))
    rep = report_json(logs, "--codebook", data / "annotation_codebook.json", "--third-party", f)
    return [("base-rate copier (every label from a conversation of another data set of the same "
             "population)", rep["third_party"])]


def stability_seed(seed, work, model="outside/longer"):
    data = gen.write(work / "data", seed)
    run_eval("attunebench_inspect/default", [model], data, work / "slogs", epochs=2)
    return report_json(work / "slogs")


def contamination_seed(seed, work, repetitive=True, models=("outside/pattern", "outside/echo")):
    data = gen.write(work / "rdata", seed, n=6, repetitive=repetitive)
    models = [m if "{data}" not in m else None for m in models]
    run_eval("attunebench_inspect/contamination", [m for m in models if m], data,
             work / "clogs", task_args={"seed": seed})
    return report_json(work / "clogs")


def memorizer_seed(seed, work):
    """Positive control: the suite's own memorizer, told our repetitive data set, must be caught."""
    data = gen.write(work / "rdata", seed, n=6, repetitive=True)
    os.environ["OUTSIDE_DATA"] = str(data)
    logs = inspect_eval("attunebench_inspect/contamination", model="memorizer/recall",
                        model_args={"data": str(data / "conversations"), "share": 0.2},  # the root is refused (README)
                        task_args={"data": str(data), "seed": seed},
                        log_dir=str(work / "mlogs"), display="none")
    assert logs[0].status == "success", logs[0].error
    return report_json(work / "mlogs")



# ---------------------------------------------------------------- the table

def _binom_tail(k, n, a):
    from math import comb
    return sum(comb(n, i) * a ** i * (1 - a) ** (n - i) for i in range(k, n + 1))


def readings(line):
    """(null, verdict read, false?, alpha) for one seed's raw result."""
    out = []
    res = line["result"]
    if line["check"].startswith("third"):
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
            if line.get("name") == "stability_earlier":  # positive control: a miss is false
                out.append((f"positive control: stability: {st['model']} (always the earlier-shown "
                            "reply): position bias", pb["verdict"],
                            pb["verdict"] != "position-biased", 0.0))
                continue
            out.append((f"stability: {st['model']} (content only, 12 dependent answers a call): "
                        "position bias", pb["verdict"], pb["verdict"] == "position-biased", 0.01))
            from scipy.stats import chi2
            naive = chi2.sf(pb["chi2"], 3) < 0.01 if pb.get("chi2") is not None else False
            out.append((f"(not a verdict) {st['model']}: the same chi-square read as if the answers "
                        "were independent (df 3), p < 0.01", "p < 0.01" if naive else "p >= 0.01",
                        naive, 0.01))
    else:
        for row in res["contamination"]:
            c = row.get("contamination") or {}
            if not c:
                continue
            v = c["verdict"].split(":")[0]
            if line.get("name") == "contamination_memorizer":  # positive control
                out.append((f"positive control: contamination: {row['model']} share 0.2 on "
                            "repeated-sentence conversations", v, v != "suspected", 0.0))
                continue
            out.append((f"contamination: {row['model']} on {line.get('texts', 'repeated-sentence')} conversations", v,
                        v == "suspected", 0.01))
    return out


def table(paths):
    rows = defaultdict(lambda: {"verdicts": defaultdict(int), "false": 0, "seeds": 0,
                                "alpha": 0, "k": 0, "n": 0, "seconds": 0.0})
    seen = set()
    for p in paths:
        for ln in Path(p).read_text().splitlines():
            line = json.loads(ln)
            key = (line.get("name", line["check"]), line["seed"])
            if key in seen:  # a seed run twice (split runs): counted once
                continue
            seen.add(key)
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


EXTRA = ("stability_earlier", "contamination_memorizer", "third_party_fresh", "stability_shorter",
         "contamination_varied")  # positive controls: run with --only


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--only", nargs="*", help="some of: third_party stability contamination "
                    "stability_shorter stability_earlier contamination_varied contamination_memorizer")
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
              "contamination": contamination_seed,
              "third_party_fresh": third_party_fresh_seed,
              "stability_shorter": lambda s, w: stability_seed(s, w, "outside/shorter"),
              "stability_earlier": lambda s, w: stability_seed(s, w, "attunebench/majority"),
              "contamination_varied": lambda s, w: contamination_seed(s, w, repetitive=False),
              "contamination_memorizer": memorizer_seed}
    for name, fn in checks.items():
        if (a.only and name not in a.only) or (not a.only and name in EXTRA):
            continue
        for seed in range(a.first, a.first + a.seeds):
            t0 = time.time()
            w = work / name / str(seed)
            w.mkdir(parents=True, exist_ok=True)
            res = fn(seed, w)
            line = {"check": "third_party" if name.startswith("third") else name.split("_")[0], "name": name, "seed": seed,
                    "texts": "varied" if name == "contamination_varied" else "repeated-sentence", "seconds": round(time.time() - t0, 1),
                    "result": res}
            if a.raw:
                with open(a.raw, "a") as f:
                    f.write(json.dumps(line, default=str) + "\n")
            print(name, seed, line["seconds"], file=sys.stderr, flush=True)
    table([a.raw])


if __name__ == "__main__":
    main()
