"""OpenAI's Batch API and Anthropic's Message Batches API on the loopback endpoint
(loopback/endpoint.py), for running Inspect's `--batch` offline.

Each follows its provider's API reference, as far as Inspect's batchers use it
(inspect_ai/model/_providers/_openai_batch.py and inspect_ai/model/_providers/_anthropic_batch.py,
through the SDK clients):

- OpenAI: `POST /v1/files` (multipart, purpose `batch`: JSONL lines of {custom_id, method, url,
  body}), `POST /v1/batches` {input_file_id, endpoint, completion_window}, `GET /v1/batches/{id}`
  (status validating, in_progress, finalizing, completed; request_counts, output_file_id,
  error_file_id), `GET /v1/files/{id}/content` (JSONL lines of {id, custom_id, response:
  {status_code, request_id, body}, error}). A request the API answered with an HTTP error is a
  line of the error file with that status code and the error as its body; the line's `error` is
  documented for failures that are not HTTP errors (expiry, cancellation), not modelled here.
- Anthropic: `POST /v1/messages/batches` {requests: [{custom_id, params}]},
  `GET /v1/messages/batches/{id}` (processing_status in_progress, ended; request_counts,
  results_url once ended), `GET` results_url (JSONL lines of {custom_id, result: {type:
  succeeded, message} or {type: errored, error}}).

Listing, cancelling and deleting are not served: Inspect does not call them.

A batch moves one state per poll, so Inspect sees each state at least once. Its items are
answered when it ends, one after another, through `Endpoint.complete` without latency: the
prompt-cache model and the endpoint's records (`batch=True`) count them as they count direct
requests, and a later item may read what an earlier one wrote. A failed item is one of the
endpoint's own faults: `EndpointConfig.faults_at={n: "http_500"}` fails the n-th request
answered, in the provider's form for a failed item.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from attunebench_inspect.tools.estimate._cache.prompt import Dialect
from attunebench_inspect.tools.estimate._cache.rules import CacheUse

from .endpoint import Completion, Endpoint, error_body

STATES: dict[Dialect, tuple[str, ...]] = {
    "openai": ("validating", "in_progress", "finalizing", "completed"),
    "anthropic": ("in_progress", "ended"),
}
"""The documented states a batch passes through when nothing goes wrong, one per poll."""
CLIENT_OPTIONS = frozenset({"extra_body", "extra_headers", "extra_query", "timeout"})
"""The SDKs' request options: a client merges them into the HTTP request, but in a batch the
request body goes as it is, and the APIs reject an unknown parameter."""
_DAY = 24 * 3600


class _OpenAILine(BaseModel):
    custom_id: str = Field(min_length=1)
    method: Literal["POST"]
    url: Literal["/v1/chat/completions"]
    body: dict[str, Any]


class _OpenAICreate(BaseModel):
    input_file_id: str
    endpoint: Literal["/v1/chat/completions"]
    completion_window: Literal["24h"]


class _AnthropicRequest(BaseModel):
    custom_id: str = Field(pattern=r"^[a-zA-Z0-9_-]{1,64}$")
    params: dict[str, Any]


class _AnthropicCreate(BaseModel):
    requests: list[_AnthropicRequest] = Field(min_length=1)


@runtime_checkable
class _Replies(Protocol):
    """The endpoint's request handler, which answers with `send`."""

    path: str
    headers: Message

    def send(self, status: int, body: bytes, headers: Mapping[str, str] = ...) -> None: ...


@dataclass
class Batch:
    """One submitted batch and where it stands."""

    id: str
    dialect: Dialect
    items: list[tuple[str, dict[str, Any]]]
    """(custom_id, request body) in the order submitted."""
    created: float
    input_file_id: str = ""
    polls: int = 0
    ended: float | None = None
    results: list[tuple[str, Completion]] | None = None
    """Set when the batch ends."""
    output_file_id: str | None = None
    error_file_id: str | None = None

    @property
    def state(self) -> str:
        # The first poll still sees the state the batch was created in.
        states = STATES[self.dialect]
        return states[min(max(self.polls - 1, 0), len(states) - 1)]

    def failed(self) -> int:
        return sum(done.status != 200 for _, done in self.results or [])


class _Rejected(ValueError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


Route = Callable[[BaseHTTPRequestHandler, bytes], None]


class Batches:
    """Both batch APIs' state: uploaded and result files, batches. Thread-safe (the endpoint
    serves each request on its own thread)."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.batches: dict[str, Batch] = {}
        self.files: dict[str, bytes] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def routes(self) -> dict[tuple[str, str], Route]:
        return {
            ("POST", "/v1/files"): self._route("openai", self._upload),
            ("GET", "/v1/files/"): self._route("openai", self._file_content),
            ("POST", "/v1/batches"): self._route("openai", self._create_openai),
            ("GET", "/v1/batches/"): self._route("openai", self._retrieve_openai),
            ("POST", "/v1/messages/batches"): self._route("anthropic", self._create_anthropic),
            ("GET", "/v1/messages/batches/"): self._route("anthropic", self._get_anthropic),
        }

    def _route(
        self,
        dialect: Dialect,
        serve: Callable[[list[str], _Replies, bytes], tuple[bytes, str]],
    ) -> Route:
        """A handler that answers with what `serve` returns (body, content type), or with the
        provider's error for a request it rejects."""

        def handle(handler: BaseHTTPRequestHandler, raw: bytes) -> None:
            if not isinstance(handler, _Replies):
                raise TypeError("batch routes are served by the endpoint's handler")
            parts = handler.path.split("?", 1)[0].strip("/").split("/")
            try:
                with self._lock:
                    body, content_type = serve(parts, handler, raw)
            except ValueError as ex:  # _Rejected, or invalid input (pydantic's ValidationError)
                status = ex.status if isinstance(ex, _Rejected) else 400
                kind = "not_found_error" if status == 404 else "invalid_request_error"
                message = json.dumps(error_body(dialect, str(ex), kind)).encode()
                return handler.send(status, message)
            return handler.send(200, body, {"Content-Type": content_type})

        return handle

    def _id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):06d}"

    def _batch(self, dialect: Dialect, batch_id: str) -> Batch:
        batch = self.batches.get(batch_id)
        if batch is None or batch.dialect != dialect:
            raise _Rejected(404, f"No batch found with id '{batch_id}'.")
        return batch

    # --- OpenAI -----------------------------------------------------------------------------

    def _upload(self, parts: list[str], handler: _Replies, raw: bytes) -> tuple[bytes, str]:
        if parts != ["v1", "files"]:
            raise _Rejected(404, "Unknown path.")
        form = _multipart(handler.headers.get("Content-Type", ""), raw)
        if form.get("purpose") != b"batch" or "file" not in form:
            raise _Rejected(400, "A batch input file needs purpose 'batch' and a file.")
        file_id = self._id("file-")
        self.files[file_id] = form["file"]
        return _json(
            {
                "id": file_id,
                "object": "file",
                "bytes": len(form["file"]),
                "created_at": int(time.time()),
                "filename": "batch.jsonl",
                "purpose": "batch",
                "status": "processed",
            }
        )

    def _file_content(self, parts: list[str], _: _Replies, raw: bytes) -> tuple[bytes, str]:
        if len(parts) != 4 or parts[3] != "content" or parts[2] not in self.files:
            raise _Rejected(404, "No such file.")
        return self.files[parts[2]], "application/octet-stream"

    def _create_openai(self, parts: list[str], _: _Replies, raw: bytes) -> tuple[bytes, str]:
        if parts != ["v1", "batches"]:
            raise _Rejected(404, "Unknown path.")
        create = _OpenAICreate.model_validate_json(raw)
        content = self.files.get(create.input_file_id)
        if content is None:
            raise _Rejected(400, f"No such file: {create.input_file_id}")
        lines = [_OpenAILine.model_validate_json(line) for line in content.splitlines() if line]
        items = _unique([(line.custom_id, line.body) for line in lines])
        batch = Batch(self._id("batch_"), "openai", items, time.time(), create.input_file_id)
        self.batches[batch.id] = batch
        return _json(self._openai_batch(batch))

    def _retrieve_openai(self, parts: list[str], _: _Replies, raw: bytes) -> tuple[bytes, str]:
        if len(parts) != 3:
            raise _Rejected(404, "Unknown path.")
        return _json(self._openai_batch(self._poll(self._batch("openai", parts[2]))))

    def _write_result_files(self, batch: Batch) -> None:
        """Successes to the output file, failures to the error file; no file without a line."""
        lines: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
        for custom_id, done in batch.results or []:
            response = {
                "status_code": done.status,
                "request_id": self._id("req_"),
                "body": done.body,
            }
            lines[done.status == 200].append(
                {
                    "id": self._id("batch_req_"),
                    "custom_id": custom_id,
                    "response": response,
                    "error": None,
                }
            )
        batch.output_file_id = self._file(lines[True])
        batch.error_file_id = self._file(lines[False])

    def _file(self, lines: list[dict[str, Any]]) -> str | None:
        if not lines:
            return None
        file_id = self._id("file-")
        self.files[file_id] = _jsonl(lines)
        return file_id

    def _openai_batch(self, batch: Batch) -> dict[str, Any]:
        created = int(batch.created)
        ended = batch.ended is not None
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": None,
            "input_file_id": batch.input_file_id,
            "completion_window": "24h",
            "status": batch.state,
            "output_file_id": batch.output_file_id,
            "error_file_id": batch.error_file_id,
            "created_at": created,
            "in_progress_at": created if batch.state != "validating" else None,
            "expires_at": created + _DAY,
            "completed_at": int(batch.ended) if batch.ended else None,
            "request_counts": {
                "total": len(batch.items),
                "completed": len(batch.items) - batch.failed() if ended else 0,
                "failed": batch.failed(),
            },
            "metadata": None,
        }

    # --- Anthropic --------------------------------------------------------------------------

    def _create_anthropic(self, parts: list[str], _: _Replies, raw: bytes) -> tuple[bytes, str]:
        if parts != ["v1", "messages", "batches"]:
            raise _Rejected(404, "Unknown path.")
        create = _AnthropicCreate.model_validate_json(raw)
        items = _unique([(r.custom_id, r.params) for r in create.requests])
        batch = Batch(self._id("msgbatch_"), "anthropic", items, time.time())
        self.batches[batch.id] = batch
        return _json(self._anthropic_batch(batch))

    def _get_anthropic(self, parts: list[str], _: _Replies, raw: bytes) -> tuple[bytes, str]:
        if len(parts) == 5 and parts[4] == "results":
            batch = self._batch("anthropic", parts[3])
            if batch.results is None:
                raise _Rejected(400, f"Batch {batch.id} has not ended.")
            lines = [_anthropic_result(custom_id, done) for custom_id, done in batch.results]
            return _jsonl(lines), "application/x-jsonl"
        if len(parts) != 4:
            raise _Rejected(404, "Unknown path.")
        return _json(self._anthropic_batch(self._poll(self._batch("anthropic", parts[3]))))

    def _anthropic_batch(self, batch: Batch) -> dict[str, Any]:
        ended = batch.ended is not None
        failed = batch.failed()
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": batch.state,
            # Documented: every request counts as processing until the whole batch has ended.
            "request_counts": {
                "processing": 0 if ended else len(batch.items),
                "succeeded": len(batch.items) - failed if ended else 0,
                "errored": failed,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": _rfc3339(batch.created),
            "expires_at": _rfc3339(batch.created + _DAY),
            "ended_at": _rfc3339(batch.ended) if batch.ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": (
                f"{self.endpoint.root_url}/v1/messages/batches/{batch.id}/results"
                if ended
                else None
            ),
        }

    # --- both -------------------------------------------------------------------------------

    def _poll(self, batch: Batch) -> Batch:
        """One poll: the batch moves on a state; in its last it answers every item."""
        batch.polls += 1
        if batch.state == STATES[batch.dialect][-1] and batch.ended is None:
            batch.results = [
                (custom_id, self._answer(batch.dialect, body)) for custom_id, body in batch.items
            ]
            batch.ended = time.time()
            if batch.dialect == "openai":
                self._write_result_files(batch)
        return batch

    def _answer(self, dialect: Dialect, body: dict[str, Any]) -> Completion:
        start = time.monotonic()
        options = ", ".join(sorted(CLIENT_OPTIONS & body.keys()))
        # Each API's own words for a parameter it does not know.
        refusal = (
            f"{options}: Extra inputs are not permitted"
            if dialect == "anthropic"
            else f"Unrecognized request argument supplied: {options}"
        )
        done = (
            Completion(
                400, error_body(dialect, refusal, "invalid_request_error"), "", CacheUse(0), 0
            )
            if options
            else self.endpoint.complete(dialect, body, wait=False)
        )
        # A batch worker answers one item at a time.
        self.endpoint.record(dialect, body, done, start, 1, batch=True)
        return done


def serve_batches(endpoint: Endpoint) -> Batches:
    """Serve both batch APIs on `endpoint` (before it starts or while it runs)."""
    batches = Batches(endpoint)
    endpoint.routes.update(batches.routes())
    return batches


def _anthropic_result(custom_id: str, done: Completion) -> dict[str, Any]:
    if done.status == 200:
        return {"custom_id": custom_id, "result": {"type": "succeeded", "message": done.body}}
    return {"custom_id": custom_id, "result": {"type": "errored", "error": done.body}}


def _unique(items: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    seen = [custom_id for custom_id, _ in items]
    if len(set(seen)) != len(seen):
        raise ValueError("custom_id values must be unique within a batch.")
    return items


def _multipart(content_type: str, raw: bytes) -> dict[str, bytes]:
    """The fields of a multipart/form-data body, by name."""
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + raw
    )
    fields: dict[str, bytes] = {}
    for part in message.walk():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if isinstance(name, str) and isinstance(payload, bytes):
            fields[name] = payload
    return fields


def _jsonl(lines: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _json(body: dict[str, Any]) -> tuple[bytes, str]:
    return json.dumps(body).encode(), "application/json"


def _rfc3339(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")
