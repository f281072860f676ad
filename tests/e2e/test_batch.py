"""`--batch` end to end: Inspect's openai and anthropic providers against the loopback fakes of
their batch APIs (loopback/batches.py), each with a failed item."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from anthropic.types.messages import MessageBatch, MessageBatchIndividualResponse
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import BatchConfig, get_model
from loopback.batches import Batches, serve_batches
from loopback.endpoint import Endpoint, EndpointConfig
from openai.types import Batch, FileObject
from openai.types.chat import ChatCompletion

from attunebench_inspect import attunebench
from attunebench_inspect.data._samples import visible_of

OPENAI = "openai/gpt-4o"
ANTHROPIC = "anthropic/claude-sonnet-4-6"
FAST = BatchConfig(size=1000, send_delay=0.2, tick=0.05)
"""A run's calls all arrive within the send delay, so they go in one batch; polled every 50 ms."""
FAILED = 3
"""The batch item that fails with a 500 (`faults_at`: the endpoint's third answer)."""

Serve = Callable[[EndpointConfig], tuple[Endpoint, Batches]]


@pytest.fixture
def serve() -> Iterator[Serve]:
    started: list[Endpoint] = []

    def start(config: EndpointConfig) -> tuple[Endpoint, Batches]:
        endpoint = Endpoint(config)
        batches = serve_batches(endpoint)
        started.append(endpoint.start())
        return endpoint, batches

    yield start
    for endpoint in started:
        endpoint.stop()


def _run(
    endpoint: Endpoint, data: Path, model: str, schedule: str = "auto", **kwargs: Any
) -> EvalLog:
    url = endpoint.base_url if model == OPENAI else endpoint.root_url
    # A fresh client per endpoint: Inspect memoizes models by name.
    api = get_model(model, base_url=url, api_key="local", memoize=False)
    log = eval(
        attunebench(data=str(data), schedule=schedule),
        model=api,
        display="none",
        log_dir=str(data.parent / "logs"),
        **kwargs,
    )[0]
    assert log.status == "success", log.error
    assert log.samples and all(s.error is None and s.scores for s in log.samples)
    return log


def _calls(log: EvalLog) -> int:
    """A run's calls with no repair round: four per turn and the post-conversation call."""
    assert log.samples is not None
    return sum(4 * len(visible_of(s.metadata).turns) + 1 for s in log.samples)


def _scores(log: EvalLog) -> dict[str, Any]:
    assert log.results is not None and log.samples is not None
    metrics = {f"{s.name}.{k}": m.value for s in log.results.scores for k, m in s.metrics.items()}
    samples = {f"{s.id}.{k}": v.value for s in log.samples for k, v in (s.scores or {}).items()}
    return metrics | samples


def _batched_run(
    serve: Serve, data: Path, model: str, retry_on_error: int = 0
) -> tuple[EvalLog, Endpoint, list[list[dict[str, Any]]]]:
    """The run under batch, its FAILED-th item failing, checked against the same run without
    batch; returns each batch's request bodies."""
    provider = model.split("/")[0]
    endpoint, batches = serve(
        EndpointConfig(faults_at={FAILED: "http_500"}, cache=provider, max_seconds=120)
    )
    log = _run(endpoint, data, model, batch=FAST, retry_on_error=retry_on_error)
    # Every call went through the batch API, and through the provider's cache model: a batch's
    # items are answered in order, so later ones read what earlier ones wrote.
    assert endpoint.records and all(r.batch for r in endpoint.records)
    assert sum(r.cache_read for r in endpoint.records) > 0
    # The item that failed is the one configured.
    assert [r.fault for r in endpoint.records].index("http_500") == FAILED - 1
    bodies = [[body for _, body in b.items] for b in batches.batches.values()]
    # Schedule `auto` is all_at_once under --batch: the first batch holds every call of the run.
    assert len(bodies[0]) == _calls(log)
    # The endpoint's answer depends on the request alone, so the same requests sent one by one
    # score the same: every answer reached its own call, the retried one included.
    direct, _ = serve(EndpointConfig(max_seconds=120))
    unbatched = _run(direct, data, model)
    assert not any(r.batch for r in direct.records)
    assert _scores(log) == _scores(unbatched)
    return log, endpoint, bodies


def test_openai_batch(serve: Serve, small_dataset: Callable[[int], Path]) -> None:
    log, endpoint, bodies = _batched_run(serve, small_dataset(2), OPENAI, retry_on_error=1)
    # The failed item comes back as the API documents it: an error-file line with status_code
    # 500 and the error as its body. Inspect 0.3.285 validates that body as a ChatCompletion;
    # the ValidationError fails every request of the batch and is not retried, so each sample
    # errors, and runs again (retry_on_error) in a batch of its calls, which all succeed.
    assert log.samples is not None
    for sample in log.samples:
        assert [e.message.splitlines()[0] for e in sample.error_retries or []] == [
            "5 validation errors for ChatCompletion"
        ]
    assert sum(map(len, bodies[1:])) == len(bodies[0])
    assert sum(r.fault is None for r in endpoint.records) == 2 * len(bodies[0]) - 1
    # The solver's per-conversation cache key goes in `extra_body` without batch; in a batch
    # line Inspect would send that field as it is, which the API (and our fake) rejects.
    assert not any("extra_body" in body or "prompt_cache_key" in body for b in bodies for body in b)


def test_anthropic_batch(serve: Serve, small_dataset: Callable[[int], Path]) -> None:
    log, endpoint, bodies = _batched_run(serve, small_dataset(2), ANTHROPIC)
    # The failed item is `errored` with an api_error, which Inspect turns into an
    # APIStatusError of status 500 and retries: that call alone, in a second batch.
    assert log.samples is not None and not any(s.error_retries for s in log.samples)
    assert bodies[1:] == [[bodies[0][FAILED - 1]]]
    assert len(endpoint.records) == len(bodies[0]) + 1


def test_batch_schedule_is_all_at_once(serve: Serve, small_dataset: Callable[[int], Path]) -> None:
    """Schedule auto resolves to all_at_once under batch: every call of a conversation is in the
    first batch. Under prefix_first the first batch holds turn 1's prefix-writing call and its
    draft, and the rest follow a batch round at a time."""
    data = small_dataset(1)
    sizes = {}
    for schedule in ("auto", "prefix_first"):
        endpoint, batches = serve(EndpointConfig(max_seconds=120))
        log = _run(endpoint, data, OPENAI, schedule, batch=FAST)
        assert all(r.batch and r.fault is None for r in endpoint.records)
        sizes[schedule] = [len(b.items) for b in batches.batches.values()]
        assert sum(sizes[schedule]) == len(endpoint.records) == _calls(log)
    assert sizes["auto"] == [_calls(log)]
    assert sizes["prefix_first"][0] == 2


def _say(n: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"Say {n}."}]


def test_openai_fake_speaks_the_documented_api(serve: Serve) -> None:
    """Upload, create, poll, results, a failed item and a rejected one, through the SDK's own
    paths; every object validates as the SDK's type."""
    endpoint, _ = serve(EndpointConfig(faults_at={2: "http_500"}, max_seconds=30))
    client = openai.OpenAI(base_url=endpoint.base_url, api_key="local")
    bodies = [{"model": "gpt-4o", "messages": _say(n)} for n in range(3)]
    bodies.append({**bodies[0], "extra_body": {"prompt_cache_key": "k"}})
    lines = [
        {"custom_id": f"r{n}", "method": "POST", "url": "/v1/chat/completions", "body": body}
        for n, body in enumerate(bodies)
    ]
    jsonl = "".join(json.dumps(line) + "\n" for line in lines).encode()
    upload = client.files.with_raw_response.create(file=("in.jsonl", jsonl), purpose="batch")
    file = FileObject.model_validate_json(upload.text)
    created = client.batches.with_raw_response.create(
        input_file_id=file.id, endpoint="/v1/chat/completions", completion_window="24h"
    )
    batch = Batch.model_validate_json(created.text)
    statuses = [batch.status]
    while batch.status != "completed":
        batch = Batch.model_validate_json(client.batches.with_raw_response.retrieve(batch.id).text)
        statuses.append(batch.status)
    assert statuses == ["validating", "validating", "in_progress", "finalizing", "completed"]
    assert batch.request_counts is not None
    assert (batch.request_counts.completed, batch.request_counts.failed) == (2, 2)
    assert batch.output_file_id and batch.error_file_id
    output = [json.loads(x) for x in client.files.content(batch.output_file_id).text.splitlines()]
    errors = [json.loads(x) for x in client.files.content(batch.error_file_id).text.splitlines()]
    assert [(x["custom_id"], x["response"]["status_code"], x["error"]) for x in output] == [
        ("r0", 200, None),
        ("r2", 200, None),
    ]
    for line in output:
        ChatCompletion.model_validate(line["response"]["body"])
    assert [(x["custom_id"], x["response"]["status_code"], x["error"]) for x in errors] == [
        ("r1", 500, None),
        ("r3", 400, None),
    ]
    assert "extra_body" in errors[1]["response"]["body"]["error"]["message"]
    assert all(r.batch for r in endpoint.records) and len(endpoint.records) == 4
    with pytest.raises(openai.BadRequestError):
        client.batches.create(
            input_file_id="file-missing", endpoint="/v1/chat/completions", completion_window="24h"
        )


def test_anthropic_fake_speaks_the_documented_api(serve: Serve) -> None:
    """Create, poll, results through results_url, an errored item and a rejected batch, through
    the SDK's own paths; every object validates as the SDK's type."""
    endpoint, _ = serve(EndpointConfig(faults_at={2: "http_500"}, max_seconds=30))
    client = anthropic.Anthropic(base_url=endpoint.root_url, api_key="local")
    requests: list[Any] = [
        {"custom_id": f"r{n}", "params": {"model": "m", "max_tokens": 64, "messages": _say(n)}}
        for n in range(3)
    ]
    created = client.messages.batches.with_raw_response.create(requests=requests)
    batch = MessageBatch.model_validate_json(created.text())
    statuses = [batch.processing_status]
    while batch.processing_status != "ended":
        raw = client.messages.batches.with_raw_response.retrieve(batch.id)
        batch = MessageBatch.model_validate_json(raw.text())
        statuses.append(batch.processing_status)
    assert statuses == ["in_progress", "in_progress", "ended"]
    assert (batch.request_counts.succeeded, batch.request_counts.errored) == (2, 1)
    assert batch.results_url == f"{endpoint.root_url}/v1/messages/batches/{batch.id}/results"
    with urllib.request.urlopen(batch.results_url) as response:
        lines = [MessageBatchIndividualResponse.model_validate_json(x) for x in response]
    assert [(x.custom_id, x.result.type) for x in lines] == [
        ("r0", "succeeded"),
        ("r1", "errored"),
        ("r2", "succeeded"),
    ]
    assert [x.custom_id for x in client.messages.batches.results(batch.id)] == ["r0", "r1", "r2"]
    with pytest.raises(anthropic.BadRequestError):
        client.messages.batches.create(requests=[{**requests[0], "custom_id": "not valid"}])
