"""A toy completions endpoint with known training data, written by an outside tester.

Implements the OpenAI legacy completions API `POST /v1/completions` (as vLLM and
llama-cpp-python serve it) with `echo` and `logprobs`. Nothing here is the suite's code.

Tokens: whitespace-attached words (regex `\\s*\\S+`), so the tokens concatenate to the text.

The "model" read a set of texts (`--read DIR`: every text field of every conversation in
DIR/conversations/*.json: each turn's userMessage, llmResponse, llmImproved, humanEdited and
metadata.text). Scoring of a prompt:
  * if the prompt is (contained in) a text it read: every token -0.1 (text mode, default);
  * else each token gets a value in [-9, -2] from a hash of the token's stripped string alone;
  * a counting-sequence rule: a token made only of digits and commas at index >= 10 gets -0.05
    (any language model continues "1, 2, 3, ..." with near certainty);
  * --mode ngram instead: a token gets -0.1 where the 6-gram of tokens ending at it (or the
    whole prefix, if shorter) occurs in a read text, else the hash value.
The first prompt token's entry is null (nothing precedes it). One generated token " ." (-1.0)
follows the prompt when max_tokens >= 1.

    python server.py --port 8765 [--read DIR] [--mode text|ngram] [--ignore-echo]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

TOK = re.compile(r"\s*\S+")
READ_TEXTS: list[str] = []
NGRAMS: set[tuple[str, ...]] = set()
MODE = "text"
N = 6
LOG = None
IGNORE_ECHO = False


def tokenize(text: str) -> list[str]:
    toks = TOK.findall(text)
    tail = text[sum(len(t) for t in toks):]
    if tail:  # trailing whitespace
        toks.append(tail)
    return toks


def hash_lp(tok: str) -> float:
    h = int.from_bytes(hashlib.sha256(tok.strip().encode()).digest()[:8], "big")
    return -2.0 - 7.0 * (h / 2**64)


def texts_of_file(f: Path) -> list[str]:
    c = json.loads(f.read_text())
    out = []
    if c.get("metadata", {}).get("text"):
        out.append(c["metadata"]["text"])
    for t in c.get("turns", []):
        for k in ("userMessage", "llmResponse"):
            if t.get(k):
                out.append(t[k])
        alt = t.get("annotations", {}).get("alternateResponses", {})
        for k in ("llmImproved", "humanEdited"):
            if alt.get(k):
                out.append(alt[k])
    return out


def texts_of(folder: Path) -> list[str]:
    out = []
    for f in sorted((folder / "conversations").glob("*.json")):
        out.extend(texts_of_file(f))
    return out


def score(prompt: str) -> tuple[list[str], list[float | None]]:
    toks = tokenize(prompt)
    read_whole = MODE == "text" and any(prompt in t for t in READ_TEXTS) and prompt.strip() != ""
    lps: list[float | None] = []
    stripped = [t.strip() for t in toks]
    for i, tok in enumerate(toks):
        if i == 0:
            lps.append(None)
            continue
        if i >= 10 and re.fullmatch(r"[\d,]+", tok.strip() or "x"):
            lps.append(-0.05)
        elif read_whole:
            lps.append(-0.1)
        elif MODE == "ngram" and tuple(stripped[max(0, i - N + 1): i + 1]) in NGRAMS:
            lps.append(-0.1)
        else:
            lps.append(hash_lp(tok))
    return toks, lps


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def _send(self, code: int, obj: dict) -> None:
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": "toy", "object": "model"}]})
        else:
            self._send(404, {"error": {"message": "not found"}})

    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        req = json.loads(self.rfile.read(n) or b"{}")
        if LOG:
            with open(LOG, "a") as f:
                f.write(json.dumps({"path": self.path, "req": req}) + "\n")
        if not self.path.rstrip("/").endswith("/completions") or "chat" in self.path:
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        prompt = req.get("prompt", "")
        if isinstance(prompt, list):
            prompt = prompt[0]
        echo = bool(req.get("echo", False)) and not IGNORE_ECHO
        nlog = req.get("logprobs")
        max_tokens = req.get("max_tokens", 16)
        gen_toks, gen_lps = ([" ."], [-1.0]) if (max_tokens is None or max_tokens >= 1) else ([], [])
        ptoks, plps = score(prompt)
        toks = (ptoks if echo else []) + gen_toks
        lps = (plps if echo else []) + gen_lps
        text = (prompt if echo else "") + "".join(gen_toks)
        choice = {"index": 0, "text": text, "finish_reason": "length", "logprobs": None}
        if nlog is not None:
            offs, o = [], 0
            for t in toks:
                offs.append(o)
                o += len(t)
            top = []
            for t, lp in zip(toks, lps):
                top.append(None if lp is None else {t: lp})
            choice["logprobs"] = {"tokens": toks, "token_logprobs": lps, "top_logprobs": top,
                                  "text_offset": offs}
        self._send(200, {"id": f"cmpl-{time.time_ns()}", "object": "text_completion",
                         "created": int(time.time()), "model": req.get("model", "toy"),
                         "choices": [choice],
                         "usage": {"prompt_tokens": len(ptoks), "completion_tokens": len(gen_toks),
                                   "total_tokens": len(ptoks) + len(gen_toks)}})


def main() -> None:
    global MODE, LOG, IGNORE_ECHO
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--read", type=Path, action="append", default=[])
    ap.add_argument("--mode", choices=["text", "ngram"], default="text")
    ap.add_argument("--log", default=None)
    ap.add_argument("--ignore-echo", action="store_true", help="a server that ignores echo")
    a = ap.parse_args()
    MODE, LOG, IGNORE_ECHO = a.mode, a.log, a.ignore_echo
    for d in a.read:
        READ_TEXTS.extend(texts_of(d))
    for t in READ_TEXTS:
        s = [x.strip() for x in tokenize(t)]
        for i in range(len(s)):
            NGRAMS.add(tuple(s[max(0, i - N + 1): i + 1]))
    print(f"read {len(READ_TEXTS)} texts, mode {MODE}, port {a.port}", file=sys.stderr, flush=True)
    ThreadingHTTPServer(("127.0.0.1", a.port), H).serve_forever()


if __name__ == "__main__":
    main()
