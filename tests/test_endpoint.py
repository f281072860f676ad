"""The suite through Inspect's real openai-api provider against the local endpoint, with faults."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import get_model
from inspect_ai.util import Store
from loopback.endpoint import Endpoint, EndpointConfig

from attunebench_inspect import attunebench
from attunebench_inspect.data.samples import visible_of
from attunebench_inspect.solve.call_record import CallRecord
from attunebench_inspect.solve.parse import TOO_DEEP
from attunebench_inspect.solve.store import read_walk

MODEL = "openai-api/local/endpoint"


@pytest.fixture
def serve() -> Iterator[Callable[[EndpointConfig], Endpoint]]:
    started: list[Endpoint] = []

    def start(config: EndpointConfig) -> Endpoint:
        endpoint = Endpoint(config).start()
        started.append(endpoint)
        return endpoint

    yield start
    for endpoint in started:
        endpoint.stop()


def _run(endpoint: Endpoint, data: Path, **kwargs: object) -> EvalLog:
    # A fresh client per endpoint: Inspect memoizes models by name, and an earlier test's
    # client would still point at that test's (closed) endpoint.
    model = get_model(MODEL, base_url=endpoint.base_url, api_key="local", memoize=False)
    log = eval(
        attunebench(data=str(data)),
        model=model,
        display="none",
        log_dir=str(data.parent / "logs"),
        **kwargs,
    )[0]  # type: ignore[arg-type]
    assert log.status == "success", log.error
    return log


def _records(sample: EvalSample) -> list[CallRecord]:
    records = list(read_walk(Store(sample.store)).records.values())
    assert records
    return records


def test_openai_compatible_endpoint_end_to_end(
    serve: Callable[[EndpointConfig], Endpoint], small_dataset: Callable[[int], Path]
) -> None:
    endpoint = serve(EndpointConfig(max_seconds=120))
    log = _run(endpoint, small_dataset(2))
    assert log.samples is not None
    turns = [len(visible_of(s.metadata).turns) for s in log.samples]
    assert len(endpoint.records) == sum(4 * t + 1 for t in turns)
    # The schema travelled as response_format, so every structured answer parsed first time.
    assert {r.schema for r in endpoint.records} == {
        None,
        "attunebench_emotion",
        "attunebench_binary_hp",
        "attunebench_pairwise",
        "attunebench_post",
    }
    for sample in log.samples:
        assert all(r.status == "ok" for r in _records(sample))


@pytest.mark.parametrize("fault", ["empty", "wrong_schema", "refusal", "garbled"])
def test_bad_output_faults_are_counted(
    fault: str, serve: Callable[[EndpointConfig], Endpoint], small_dataset: Callable[[int], Path]
) -> None:
    endpoint = serve(EndpointConfig(faults={fault: 1.0}, max_seconds=120))
    log = _run(endpoint, small_dataset(1))
    assert log.samples is not None
    structured = [r for r in _records(log.samples[0]) if r.call != "draft"]
    assert structured and all(r.status == "failed" for r in structured)
    composite = log.samples[0].scores["composite_scorer"].value  # type: ignore[index]
    assert isinstance(composite, dict) and composite["parse_failures"] >= len(structured)


@pytest.mark.parametrize(
    ("fault", "rate"),
    [
        ("http_500", 0.15),
        ("http_429", 0.15),
        ("reset", 0.15),
        ("timeout", 0.15),
        ("truncated", 0.0),
    ],
)
def test_transport_faults_are_retried_and_nothing_is_lost(
    fault: str,
    rate: float,
    serve: Callable[[EndpointConfig], Endpoint],
    small_dataset: Callable[[int], Path],
) -> None:
    # A truncated body fails the whole sample (below): the third request gets one, not a rate,
    # so that the retried sample runs clean.
    endpoint = serve(
        EndpointConfig(
            faults={fault: rate},
            faults_at={3: fault} if fault == "truncated" else {},
            timeout_seconds=4,
            max_seconds=300,
        )
    )
    # Request-level retries cover 5xx, 429, resets and timeouts. A truncated 200 body surfaces
    # as a JSON decoding error that the OpenAI client does not retry: the sample errors, and
    # Inspect's sample-level retry_on_error runs it again.
    log = _run(endpoint, small_dataset(1), max_retries=10, timeout=2, retry_on_error=10)
    assert log.samples is not None and len(log.samples) == 1
    assert all(s.error is None and s.scores for s in log.samples)
    assert any(r.fault == fault for r in endpoint.records)
    if fault != "truncated":
        # Only the failed attempts were repeated: every call was answered exactly once.
        answered = [r for r in endpoint.records if r.fault is None]
        turns = [len(visible_of(s.metadata).turns) for s in log.samples]
        assert len(answered) == sum(4 * t + 1 for t in turns)


@pytest.mark.parametrize(
    ("fault", "reason"),
    [("deep", TOO_DEEP), ("no_choices", "the reply had no choices")],
)
def test_unreadable_replies_are_parse_failures_not_errors(
    fault: str,
    reason: str,
    serve: Callable[[EndpointConfig], Endpoint],
    small_dataset: Callable[[int], Path],
) -> None:
    endpoint = serve(EndpointConfig(faults={fault: 1.0}, max_seconds=120))
    log = _run(endpoint, small_dataset(1))
    assert log.samples is not None
    sample = log.samples[0]
    assert sample.error is None
    composite = sample.scores["composite_scorer"].value  # type: ignore[index]
    assert isinstance(composite, dict) and composite["parse_failure_rate"] > 0
    failed = [r for r in _records(sample) if r.status == "failed"]
    assert failed and all(r.error == reason for r in failed)
    # Each failed call had its one repair round and nothing more.
    assert len(endpoint.records) == composite["calls"] + composite["parse_failures"]
