"""The suite through Inspect's real openai-api provider against the local endpoint, with faults."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from inspect_ai import eval, eval_retry
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import get_model
from inspect_ai.util import Store
from loopback.endpoint import Endpoint, EndpointConfig

from attunebench_inspect import attunebench, contamination
from attunebench_inspect.data._samples import visible_of
from attunebench_inspect.solve._call_record import CallRecord
from attunebench_inspect.solve._parse import TOO_DEEP
from attunebench_inspect.solve._store import read_walk

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


@pytest.mark.parametrize("fault", ["truncated", "disconnect", "empty_body", "html"])
def test_a_reply_that_ends_a_sample_is_one_line_and_eval_retry_completes_it(
    fault: str,
    serve: Callable[[EndpointConfig], Endpoint],
    small_dataset: Callable[[int], Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Half a body then a disconnect, an empty 200, an HTML page: the sample it hits ends with
    one readable line, the other conversation is still run and scored, and `inspect
    eval-retry` (here its Python form) runs the rest to a whole run beside the first log."""
    if fault == "disconnect":
        # The client retries a broken connection on its own: every reply is cut, on one
        # conversation, so that its retries run out.
        config, data = EndpointConfig(faults={fault: 1.0}, max_seconds=300), small_dataset(1)
    else:
        # A reply that is not JSON is not retried: the third request ends its sample alone.
        config, data = EndpointConfig(faults_at={3: fault}, max_seconds=300), small_dataset(2)
    endpoint = serve(config)
    logs = data.parent / "logs"
    model = get_model(MODEL, base_url=endpoint.base_url, api_key="local", memoize=False)
    first = eval(
        attunebench(data=str(data)), model=model, display="none", log_dir=str(logs), max_retries=0
    )[0]
    assert first.status == "error" and first.samples is not None
    errors = [s.error for s in first.samples if s.error is not None]
    assert errors and len(first.samples) == len(list(data.glob("*.json")))
    assert all(s.scores for s in first.samples if s.error is None)
    if fault != "disconnect":
        assert len(errors) == 1  # the other conversation went on, and was scored
    for error in errors:
        # Inspect renders the message for a terminal (colour codes, wrapped): as read, it is
        # one line of the suite's, no traceback.
        said = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", error.message).split())
        assert said.startswith("ProviderReplyError(") and "Traceback" not in said
        assert "call: the provider's reply could not be read (" in said
        assert "`inspect eval-retry LOG` runs it again" in said
    endpoint.config.faults, endpoint.config.faults_at = {}, {}
    monkeypatch.setenv("LOCAL_API_KEY", "local")
    (retried,) = eval_retry(first, log_dir=str(logs), display="none")
    assert retried.status == "success"
    assert retried.samples is not None and all(s.error is None for s in retried.samples)
    assert sorted(str(s.id) for s in retried.samples) == sorted(str(s.id) for s in first.samples)
    assert len(list(logs.glob("*.eval"))) == 2


def test_a_probe_reply_that_cannot_be_read_ends_its_sample_in_one_line(
    serve: Callable[[EndpointConfig], Endpoint], small_dataset: Callable[[int], Path]
) -> None:
    """The contamination probe's calls go through the same reading of a transport fault: the
    conversation it hits ends with one line naming the text probed, the other is scored."""
    endpoint = serve(EndpointConfig(faults_at={1: "empty_body"}, max_seconds=300))
    data = small_dataset(2)
    model = get_model(MODEL, base_url=endpoint.base_url, api_key="local", memoize=False)
    (log,) = eval(
        contamination(data=str(data)),
        model=model,
        display="none",
        log_dir=str(data.parent / "logs"),
        max_retries=0,
    )
    assert log.status == "error" and log.samples is not None and len(log.samples) == 2
    (failed,) = [s for s in log.samples if s.error is not None]
    said = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", failed.error.message).split())
    assert said.startswith("ProviderReplyError(") and "Traceback" not in said
    assert re.search(r"(guided|general) call: the provider's reply could not be read \(", said)
    assert all(s.scores for s in log.samples if s.error is None)
