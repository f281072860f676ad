"""A loopback endpoint that speaks OpenAI's chat completions and Anthropic's Messages API, for
benchmarks and tests of what we cannot reach from here.

It answers every AttuneBench call validly: from the request's response schema where one is sent (the
random baseline's filler), else from the answer shape the prompt states, else with a short reply (a
draft). With a cache model (`EndpointConfig.cache`: a provider's documented prompt-cache rules,
tools/estimate/_cache/rules.py) it counts what each request reads from and writes to the provider's
cache and reports it in the usage fields that provider uses. It waits a configurable latency, can
inject provider faults at given rates, listens on loopback only, records per-request timing and
concurrency, and stops by itself after `max_requests` or `max_seconds`. Batch APIs
(loopback/batches.py) answer through `complete`, as the provider's batch workers would.

    python -m loopback.endpoint --port 8765 --latency 0.2 --cache anthropic
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from inspect_ai.util import JSONSchema

from attunebench_inspect.providers._baselines import RandomFill
from attunebench_inspect.tools.estimate._cache.count import counter, default_tokenizer
from attunebench_inspect.tools.estimate._cache.prompt import (
    Dialect,
    Prompt,
    from_anthropic,
    from_openai,
)
from attunebench_inspect.tools.estimate._cache.rules import (
    ANTHROPIC,
    OPENAI,
    OPENAI_EXPLICIT,
    SHARED,
    CacheRules,
    CacheUse,
    Lookup,
    PromptCache,
    RejectedRequest,
    Tokens,
)

from .shape_fill import fill_shape, stated_shape

FAULTS = (
    "http_500",
    "http_429",
    "reset",
    "timeout",
    "truncated",
    "garbled",
    "empty",
    "wrong_schema",
    "refusal",
    "deep",
    "no_choices",
    "disconnect",
    "empty_body",
    "html",
    "error_200",
    "not_utf8",
    "trickle",
)
HTML_PAGE = b"<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>"
"""What a proxy in front of a provider answers when the provider is down (the `html` fault)."""
_DEEP_LEVELS = 5000
"""How deeply a `deep` fault wraps its answer: past Python's default recursion limit (1000)."""
CACHES: dict[str, CacheRules] = {r.name: r for r in (OPENAI, OPENAI_EXPLICIT, ANTHROPIC, SHARED)}
"""The cache models an endpoint can follow; `shared` reads every prefix shared with a finished
request, whole (what any cache could serve)."""
DRAFT = "That sounds hard. What would help most right now?"
DELIVERY = frozenset({"stream", "stream_options", "prompt_cache_key"})
"""Request fields that say how a request is delivered or routed, not what the model is asked:
answers do not depend on them, so a batch item (never streamed) is answered as sent directly."""


@dataclass(frozen=True)
class RequestRecord:
    start: float
    end: float
    in_flight: int
    """Requests in flight when this one arrived (itself included)."""
    prompt_tokens: int
    completion_tokens: int
    schema: str | None
    fault: str | None
    messages: list[dict[str, Any]]
    dialect: Dialect = "openai"
    cache_read: int = 0
    cache_written: int = 0
    batch: bool = False
    """Answered by a batch API."""


@dataclass
class EndpointConfig:
    latency: float = 0.0
    jitter: float = 0.0
    faults: Mapping[str, float] = field(default_factory=dict)
    """Fault name -> probability per request."""
    faults_at: Mapping[int, str] = field(default_factory=dict)
    """Request number (1 for the first answered) -> fault, whatever the rates draw."""
    seed: int = 0
    max_requests: int = 100_000
    max_seconds: float = 3600.0
    timeout_seconds: float = 30.0
    """How long a `timeout` fault holds the request before closing it."""
    trickle_seconds: float = 1.0
    """The pause between the bytes of a `trickle` fault's reply: a provider that stalls while
    its connection stays alive (no read timeout between bytes ever fires)."""
    keep_messages: bool = True
    cache: str | None = None
    """The prompt-cache rules to model (a key of CACHES); None: no cache."""
    cache_min_tokens: int | None = None
    """The rules' minimum cacheable length, for a model whose minimum differs."""
    tokenizer: str | None = None
    """How prompts are counted (tools/estimate/_tokens.py); default: o200k_base where installed."""


def _text_of(content: object) -> str:
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


@dataclass(frozen=True)
class Completion:
    """One request's answer as the provider would send it, and what the endpoint records."""

    status: int
    body: dict[str, Any]
    content: str
    use: CacheUse
    completion_tokens: int
    fault: str | None = None


def error_body(dialect: Dialect, message: str, kind: str = "api_error") -> dict[str, Any]:
    """An error response as the provider of `dialect` sends it."""
    if dialect == "anthropic":
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind}}


class Endpoint:
    """The server, its records and its lifetime; use as a context manager."""

    def __init__(self, config: EndpointConfig | None = None, port: int = 0) -> None:
        self.config = config or EndpointConfig()
        self.records: list[RequestRecord] = []
        self.tokens = Tokens(counter(self.config.tokenizer or default_tokenizer()))
        rules = CACHES[self.config.cache] if self.config.cache else None
        if rules is not None and self.config.cache_min_tokens is not None:
            rules = CacheRules(**{**rules.__dict__, "min_tokens": self.config.cache_min_tokens})
        self.cache = PromptCache(rules, self.tokens) if rules else None
        self.routes: dict[tuple[str, str], Callable[[BaseHTTPRequestHandler, bytes], None]] = {}
        """(method, path prefix) -> handler, for the batch APIs (loopback/batches.py)."""
        self._lock = threading.Lock()
        self._in_flight = 0
        self._count = 0
        self._answered = 0
        self._attempts: dict[str, int] = {}
        self._started = time.monotonic()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self._stopping = threading.Event()
        self._serving = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )
        self._watchdog = threading.Thread(target=self._watch, daemon=True)

    @property
    def base_url(self) -> str:
        """OpenAI clients' base URL (with /v1); Anthropic's is `root_url`."""
        return f"{self.root_url}/v1"

    @property
    def root_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> Endpoint:
        self._serving.start()
        self._watchdog.start()
        return self

    def __enter__(self) -> Endpoint:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stopping.set()
        self.wait()

    def wait(self) -> None:
        """Until the endpoint has stopped (by `stop()` or its own limits)."""
        self._watchdog.join()
        self._serving.join()
        self._server.server_close()

    def _watch(self) -> None:
        # Bounded: past its request or time limit the endpoint closes itself.
        deadline = self._started + self.config.max_seconds
        while not self._stopping.wait(0.1):
            if time.monotonic() > deadline or self._count >= self.config.max_requests:
                break
        self._server.shutdown()

    def _fault(self, rng: random.Random) -> str | None:
        for name in FAULTS:
            if rng.random() < self.config.faults.get(name, 0.0):
                return name
        return None

    def lookup(self, dialect: Dialect, body: Mapping[str, Any]) -> tuple[Prompt, Lookup | None]:
        """The request as the provider's cache sees it, and its use of the cache (None: no
        cache modelled)."""
        prompt = from_anthropic(body) if dialect == "anthropic" else from_openai(body)
        return prompt, self.cache.lookup(prompt) if self.cache else None

    def answer(self, dialect: Dialect, body: Mapping[str, Any], rng: random.Random) -> str:
        """What a model that follows instructions would reply: the schema or stated shape
        filled in at random, else a short reply."""
        if dialect == "anthropic":
            schema = (body.get("output_format") or {}).get("schema")
        else:
            schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        if schema is not None:
            return json.dumps(RandomFill(rng)(JSONSchema.model_validate(schema)))
        texts = [
            _text_of(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user"
        ]
        shape = stated_shape(texts)
        return json.dumps(fill_shape(shape, rng)) if shape is not None else DRAFT

    def complete(
        self, dialect: Dialect, body: Mapping[str, Any], *, wait: bool = True
    ) -> Completion:
        """Answer one request: its cache use, the latency (`wait`), a fault if one is drawn,
        the answer. A batch worker calls this with wait=False."""
        config = self.config
        asked = {k: v for k, v in body.items() if k not in DELIVERY}
        digest = hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()
        rng = random.Random(f"{config.seed}:{digest}")
        try:
            prompt, lookup = self.lookup(dialect, body)
        except RejectedRequest as ex:
            return Completion(
                400,
                error_body(dialect, str(ex), "invalid_request_error"),
                "",
                CacheUse(0),
                0,
            )
        use = lookup.use if lookup else CacheUse(sum(self.tokens(b.text) for b in prompt))
        # Drawn whether or not it is waited, so that a batch item's answer is the direct one's.
        delay = max(0.0, config.latency + rng.uniform(-config.jitter, config.jitter))
        if wait:
            time.sleep(delay)
        # Answers depend on the request alone; faults are drawn per attempt, so a retried
        # request can succeed.
        with self._lock:
            attempt = self._attempts.get(digest, 0)
            self._attempts[digest] = attempt + 1
            self._answered += 1
            number = self._answered
        fault = config.faults_at.get(number) or self._fault(
            random.Random(f"{config.seed}:{digest}:{attempt}")
        )
        content = self.answer(dialect, body, rng)
        if fault == "empty":
            content = ""
        elif fault == "wrong_schema":
            content = json.dumps({"answer": "not the requested shape"})
        elif fault == "refusal":
            content = "I'm sorry, but I can't help with that request."
        elif fault == "garbled":
            content = content[: len(content) // 2] + "\x00\ufffd}{"
        elif fault == "deep":
            content = '{"answer": ' * _DEEP_LEVELS + content + "}" * _DEEP_LEVELS
        elif fault == "not_utf8":
            content += " caf\u00e9"
        if fault == "error_200":
            # A proxy or a provider that answers an error object with status 200.
            return Completion(200, error_body(dialect, "injected error_200"), "", use, 0, fault)
        if fault in ("http_500", "http_429"):
            return Completion(
                500 if fault == "http_500" else 429,
                error_body(dialect, f"injected {fault}"),
                "",
                use,
                0,
                fault,
            )
        if lookup is not None:
            lookup.commit()
        completion = self.tokens(content) if content else 0
        build = _anthropic_message if dialect == "anthropic" else _chat_completion
        message = build(digest, body, content, use, completion, fault == "no_choices")
        return Completion(200, message, content, use, completion, fault)

    def record(
        self,
        dialect: Dialect,
        body: Mapping[str, Any],
        done: Completion,
        start: float,
        in_flight: int,
        *,
        batch: bool = False,
    ) -> None:
        schema = (
            ("output_format" if body.get("output_format") else None)
            if dialect == "anthropic"
            else ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        )
        record = RequestRecord(
            start=start,
            end=time.monotonic(),
            in_flight=in_flight,
            prompt_tokens=done.use.prompt,
            completion_tokens=done.completion_tokens,
            schema=schema,
            fault=done.fault,
            messages=list(body.get("messages", [])) if self.config.keep_messages else [],
            dialect=dialect,
            cache_read=done.use.read,
            cache_written=done.use.written,
            batch=batch,
        )
        with self._lock:
            self.records.append(record)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                return

            def _route(self, method: str, body: bytes) -> bool:
                for (verb, prefix), handle in endpoint.routes.items():
                    if verb == method and self.path.startswith(prefix):
                        handle(self, body)
                        return True
                return False

            def do_GET(self) -> None:
                if self._route("GET", b""):
                    return
                body = json.dumps({"object": "list", "data": [{"id": "local", "object": "model"}]})
                self.send(200, body.encode())

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                if self._route("POST", raw):
                    return
                request = json.loads(raw or b"{}")
                dialect: Dialect = "anthropic" if self.path.endswith("/messages") else "openai"
                with endpoint._lock:
                    endpoint._count += 1
                    endpoint._in_flight += 1
                    in_flight = endpoint._in_flight
                start = time.monotonic()
                try:
                    self._answer(dialect, request, start, in_flight)
                finally:
                    with endpoint._lock:
                        endpoint._in_flight -= 1

            def send(
                self,
                status: int,
                body: bytes,
                headers: Mapping[str, str] = {},
                *,
                trickle: bool = False,
            ) -> None:
                self.send_response(status)
                self.send_header("Content-Type", headers.get("Content-Type", "application/json"))
                self.send_header("Content-Length", str(len(body)))
                for key, value in headers.items():
                    if key != "Content-Type":
                        self.send_header(key, value)
                self.end_headers()
                if not trickle:
                    self.wfile.write(body)
                    return
                # One byte at a time until the client gives up (the write fails) or the
                # endpoint stops.
                for index in range(len(body)):
                    try:
                        self.wfile.write(body[index : index + 1])
                        self.wfile.flush()
                    except OSError:
                        return
                    if endpoint._stopping.wait(endpoint.config.trickle_seconds):
                        return

            def _answer(
                self, dialect: Dialect, request: dict[str, Any], start: float, in_flight: int
            ) -> None:
                done = endpoint.complete(dialect, request)
                endpoint.record(dialect, request, done, start, in_flight)
                if done.fault == "http_429":
                    return self.send(429, json.dumps(done.body).encode(), {"Retry-After": "1"})
                if done.fault == "reset":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return None
                if done.fault == "timeout":
                    time.sleep(endpoint.config.timeout_seconds)
                    self.close_connection = True
                    return None
                if request.get("stream") and done.fault == "error_200":
                    # Anthropic's way: an `error` event in a stream that opened with a 200.
                    error = f"event: error\ndata: {json.dumps(done.body)}\n\n".encode()
                    return self.send(200, error, {"Content-Type": "text/event-stream"})
                if request.get("stream") and done.status == 200:
                    return self._stream(done)
                body = json.dumps(done.body).encode()
                if done.fault == "trickle":
                    return self.send(done.status, body, trickle=True)
                if done.fault == "truncated":
                    body = body[: len(body) // 2]
                elif done.fault == "empty_body":
                    body = b""
                elif done.fault == "not_utf8":
                    # A reply in Latin-1 where JSON must be UTF-8 (a proxy that re-encodes).
                    body = json.dumps(done.body, ensure_ascii=False).encode("latin-1", "replace")
                elif done.fault == "html":
                    return self.send(200, HTML_PAGE, {"Content-Type": "text/html"})
                elif done.fault == "disconnect":
                    # The whole body announced, half of it sent, then the connection closed.
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return None
                return self.send(done.status, body)

            def _stream(self, done: Completion) -> None:
                # Anthropic's event stream (Inspect streams Claude calls with a large max_tokens).
                events = _anthropic_events(done.body)
                payload = "".join(
                    f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events
                ).encode()
                stream = {"Content-Type": "text/event-stream"}
                self.send(200, payload, stream, trickle=done.fault == "trickle")

        return Handler


def _chat_completion(
    digest: str,
    body: Mapping[str, Any],
    content: str,
    use: CacheUse,
    completion: int,
    no_choices: bool,
) -> dict[str, Any]:
    choice = {
        "index": 0,
        "finish_reason": "stop",
        "message": {"role": "assistant", "content": content},
    }
    return {
        "id": f"local-{digest[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "local"),
        "choices": [] if no_choices else [choice],
        "usage": {
            "prompt_tokens": use.prompt,
            "completion_tokens": completion,
            "total_tokens": use.prompt + completion,
            "prompt_tokens_details": {"cached_tokens": use.read},
        },
    }


def _anthropic_message(
    digest: str,
    body: Mapping[str, Any],
    content: str,
    use: CacheUse,
    completion: int,
    no_choices: bool,
) -> dict[str, Any]:
    return {
        "id": f"msg_{digest[:24]}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "local"),
        "content": [] if no_choices else [{"type": "text", "text": content}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": use.uncached,
            "cache_creation_input_tokens": use.written,
            "cache_read_input_tokens": use.read,
            "output_tokens": completion,
        },
    }


def _anthropic_events(message: dict[str, Any]) -> list[dict[str, Any]]:
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message["content"]):
        events += [
            {"type": "content_block_start", "index": index, "content_block": {**block, "text": ""}},
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": block["text"]},
            },
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
        {"type": "message_stop"},
    ]
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--jitter", type=float, default=0.0)
    parser.add_argument("--max-requests", type=int, default=100_000)
    parser.add_argument("--max-seconds", type=float, default=3600.0)
    parser.add_argument("--cache", choices=sorted(CACHES), help="prompt-cache rules to model")
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="NAME=RATE",
        help=f"inject a fault at a rate; names: {', '.join(FAULTS)}",
    )
    args = parser.parse_args()
    faults = {name: float(rate) for name, rate in (f.split("=", 1) for f in args.fault)}
    unknown = set(faults) - set(FAULTS)
    if unknown:
        parser.error(f"unknown fault(s): {', '.join(sorted(unknown))}")
    config = EndpointConfig(
        latency=args.latency,
        jitter=args.jitter,
        faults=faults,
        max_requests=args.max_requests,
        max_seconds=args.max_seconds,
        keep_messages=False,
        cache=args.cache,
    )
    endpoint = Endpoint(config, port=args.port).start()
    print(
        f"serving {endpoint.base_url} (stops after {args.max_requests} requests or "
        f"{args.max_seconds:.0f} s)",
        flush=True,
    )
    try:
        endpoint.wait()
    except KeyboardInterrupt:
        endpoint.stop()


if __name__ == "__main__":
    main()
