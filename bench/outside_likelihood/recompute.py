"""Recompute the likelihood method's figures from the toy server's own scores (outside check).

Min-K% Prob k=20% over each text's token log-probabilities (the first token has none), texts
with >= 16 values, mean per conversation; one-sided exact permutation test of the difference of
means (published > control) over every arrangement. Uses only server.py and the data folders.

    python recompute.py PUB CTL [--read DIR ...] [--mode text|ngram]
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import server  # noqa: E402


def conv_scores(folder: Path) -> list[float]:
    out = []
    for f in sorted((folder / "conversations").glob("*.json")):
        vals = []
        for t in server.texts_of_file(f):
            lps = [x for x in server.score(t)[1] if x is not None]
            if len(lps) < 16:
                continue
            k = max(1, int(0.2 * len(lps)))
            vals.append(sum(sorted(lps)[:k]) / k)
        if vals:
            out.append(sum(vals) / len(vals))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("pub", type=Path)
    ap.add_argument("ctl", type=Path)
    ap.add_argument("--read", type=Path, action="append", default=[])
    ap.add_argument("--mode", default="text")
    a = ap.parse_args()
    server.MODE = a.mode
    for d in a.read:
        server.READ_TEXTS.extend(server.texts_of(d))
    for t in server.READ_TEXTS:
        s = [x.strip() for x in server.tokenize(t)]
        for i in range(len(s)):
            server.NGRAMS.add(tuple(s[max(0, i - server.N + 1): i + 1]))
    p, c = conv_scores(a.pub), conv_scores(a.ctl)
    allv = p + c
    obs = sum(p) / len(p) - sum(c) / len(c)
    n, hits, tot = len(p), 0, 0
    for idx in itertools.combinations(range(len(allv)), n):
        s = set(idx)
        a_ = [allv[i] for i in idx]
        b_ = [allv[i] for i in range(len(allv)) if i not in s]
        d = sum(a_) / len(a_) - sum(b_) / len(b_)
        hits += d >= obs - 1e-12
        tot += 1
    print(json.dumps({"published": round(sum(p) / len(p), 6), "control": round(sum(c) / len(c), 6),
                      "p_exact": hits / tot, "arrangements": tot,
                      "n_pub": len(p), "n_ctl": len(c)}))


if __name__ == "__main__":
    main()
