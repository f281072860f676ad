"""Another order in every epoch: epoch k shows the pairwise call's three replies in an
order seeded by (shuffle seed, conversation, turn, k); epoch 1 keeps the order, and every prompt,
of task version 3-A byte for byte, as the loopback endpoint receives them."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from inspect_ai import eval
from inspect_ai.model import get_model
from loopback.endpoint import Endpoint, RequestRecord

from attunebench_inspect import attunebench
from attunebench_inspect.solve._schemas import SCHEMA_PREFIX
from attunebench_inspect.solve._solver import pairwise_labels
from tests.conftest import FIXTURES

EPOCH_1 = FIXTURES / "epoch1_requests.json"
"""The SHA-256 of every request of a one-epoch run of the first bundled conversation (judge
bound), recorded from the solver of task version 3-A (commit f0b3c1c) before per-epoch orders
existed: `python -m tests.core.solve.test_epoch_order` wrote it."""


def request_hash(record: RequestRecord) -> str:
    """A request as the endpoint received it: its messages and its response schema's name."""
    text = json.dumps({"messages": record.messages, "schema": record.schema}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def received(data: Path, epochs: int, log_dir: Path) -> list[RequestRecord]:
    """Every request of a run over `data`, the endpoint serving the model and its judge."""
    with Endpoint() as endpoint:
        model = get_model(
            "openai-api/local/endpoint", base_url=endpoint.base_url, api_key="x", memoize=False
        )
        log = eval(
            attunebench(data=str(data)),
            model=model,
            model_roles={"judge": model},
            epochs=epochs,
            display="none",
            log_dir=str(log_dir),
        )[0]
    assert log.status == "success"
    return list(endpoint.records)


def _is_pairwise(record: RequestRecord) -> bool:
    return record.schema == f"{SCHEMA_PREFIX}pairwise"


def test_epoch_1_is_byte_for_byte_as_before(small_dataset: Callable[[int], Path]) -> None:
    data = small_dataset(1)
    recorded = Counter(json.loads(EPOCH_1.read_text(encoding="utf-8")))
    one = Counter(request_hash(r) for r in received(data, 1, data.parent / "one"))
    assert one == recorded
    two = received(data, 2, data.parent / "two")
    both = Counter(request_hash(r) for r in two)
    # Epoch 1's requests are all there; what epoch 2 adds differs only in the pairwise calls.
    assert not recorded - both
    added = both - recorded
    pairwise = {request_hash(r) for r in two if _is_pairwise(r)}
    assert sum(added.values()) == sum(recorded.values())
    assert {h: n for h, n in added.items() if h not in pairwise} == {
        h: n for h, n in recorded.items() if h not in pairwise
    }
    assert any(h in pairwise for h in added)


def test_epoch_k_reorders_and_epoch_1_keeps_the_seeded_order() -> None:
    assert pairwise_labels(0, "c1", 3) == pairwise_labels(0, "c1", 3, epoch=1)
    orders = {tuple(pairwise_labels(0, "c1", 3, epoch=k).values()) for k in range(1, 40)}
    assert len(orders) == 6  # every order of three replies turns up over epochs
    # Seeded: the same epoch gives the same order, another seed another sequence.
    assert pairwise_labels(0, "c1", 3, epoch=2) == pairwise_labels(0, "c1", 3, epoch=2)
    sequence = [pairwise_labels(0, "c1", 3, epoch=k) for k in range(2, 12)]
    assert sequence != [pairwise_labels(1, "c1", 3, epoch=k) for k in range(2, 12)]


if __name__ == "__main__":  # pragma: no cover - writes the fixture (see EPOCH_1)
    import shutil
    import tempfile

    from attunebench_inspect._util.bundled import bundled_conversations_dir

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "data"
        folder.mkdir()
        first = sorted(bundled_conversations_dir().glob("*.json"))[0]
        shutil.copy(first, folder / first.name)
        hashes = sorted(request_hash(r) for r in received(folder, 1, Path(scratch) / "logs"))
    EPOCH_1.write_text(json.dumps(hashes, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {len(hashes)} request hashes to {EPOCH_1}")
