"""`/v1/completions` on the loopback endpoint: a scripted model of known training data that
scores a given text, for the likelihood method's tests (CI cannot build llama.cpp in time).

The model has "read" some texts: every token of a prompt that lies inside one of them gets
`read_logprob`; every other token a baseline drawn from the token's own hash, so a text's score
depends on its words alone, never on whether it was published. The answer follows
llama-cpp-python's server: `echo` returns the prompt before the generated text, and `logprobs` =
k the completions format's parallel arrays over the prompt's tokens (the first one's entries
null), then the generated one (as it does for a model whose tokenizer adds a BOS token, and
vLLM does). It also answers
vLLM's `prompt_logprobs` extension: a list per choice, null first, then one
`{token_id: {"logprob", "rank", "decoded_token"}}` per prompt token. `shifted` scores each prompt
token by the next position's prediction, as llama-cpp-python's echo does for a model whose
tokenizer adds no BOS token (bench/contamination/RESULTS.md): a read text's tokens then get the
baseline. `echo=False` ignores `echo`, as llama-server does (llama.cpp issue 27174): only the
generated token comes back. Every prompt is kept in `heard`, in order. Tokens are runs of
non-space characters with the spaces before them, so they join back into the prompt.

    serve_completions(endpoint, ScriptedModel(read=[text, CANARY]))
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from .endpoint import Endpoint

GENERATED = " ok"
"""The token a call generates when asked for one."""
GENERATED_LOGPROB = -1.0
_TOKEN = re.compile(r"\s*\S+|\s+")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _hash(token: str) -> int:
    return int.from_bytes(hashlib.sha256(token.encode()).digest()[:4], "big")


@dataclass(frozen=True)
class ScriptedModel:
    read: Sequence[str] = ()
    """The texts it was trained on."""
    read_logprob: float = -0.05
    baseline: tuple[float, float] = (-9.0, -2.0)
    """The range of an unread token's log-probability (by its hash)."""
    shifted: bool = False
    echo: bool = True
    """Whether it honours `echo`."""
    heard: list[str] = field(default_factory=list)
    """Every prompt it was sent."""

    def logprobs(self, prompt: str) -> list[tuple[str, float]]:
        """Each token of the prompt with its log-probability."""
        covered = [False] * len(prompt)
        for text in self.read:
            at = prompt.find(text)
            while text and at >= 0:
                covered[at : at + len(text)] = [True] * len(text)
                at = prompt.find(text, at + 1)
        low, high = self.baseline
        scored, start = [], 0
        for token in tokens(prompt):
            # Shifted, a read token is scored by the next position's prediction, which expects
            # the next token, not this one: the baseline.
            inside = all(covered[start : start + len(token)]) and not self.shifted
            value = self.read_logprob if inside else low + (high - low) * _hash(token) / 2**32
            scored.append((token, value))
            start += len(token)
        return scored

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        prompt = request.get("prompt", "")
        if not isinstance(prompt, str):
            raise TypeError("the scripted model reads a text prompt")
        self.heard.append(prompt)
        generate = min(1, int(request.get("max_tokens") or 0))
        generated = [(GENERATED, GENERATED_LOGPROB)] * generate
        echo = bool(request.get("echo")) and self.echo
        echoed = self.logprobs(prompt) if echo else []
        choice: dict[str, Any] = {
            "text": (prompt if echo else "") + GENERATED * generate,
            "index": 0,
            "logprobs": None,
            "finish_reason": "length",
        }
        if request.get("logprobs") is not None:
            entries = echoed + generated
            choice["logprobs"] = {
                "tokens": [t for t, _ in entries],
                "text_offset": [sum(len(t) for t, _ in entries[:i]) for i in range(len(entries))],
                "token_logprobs": [
                    None if i == 0 and echoed else v for i, (_, v) in enumerate(entries)
                ],
                "top_logprobs": [
                    None if i == 0 and echoed else {t: v} for i, (t, v) in enumerate(entries)
                ],
            }
        if request.get("prompt_logprobs") is not None:
            choice["prompt_logprobs"] = [None] + [
                {str(_hash(t)): {"logprob": v, "rank": 1, "decoded_token": t}}
                for t, v in self.logprobs(prompt)[1:]
            ]
        prompt_tokens = len(tokens(prompt))
        return {
            "id": "cmpl-local",
            "object": "text_completion",
            "created": int(time.time()),
            "model": request.get("model", "local"),
            "choices": [choice],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": generate,
                "total_tokens": prompt_tokens + generate,
            },
        }


def serve_completions(endpoint: Endpoint, model: ScriptedModel) -> None:
    """Answer `/v1/completions` on `endpoint` with `model` (before it starts or while it runs)."""

    def handle(handler: BaseHTTPRequestHandler, raw: bytes) -> None:
        body = json.dumps(model.answer(json.loads(raw or b"{}"))).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    endpoint.routes[("POST", "/v1/completions")] = handle
