"""The parts of an Inspect log the report reads: its header and its sample summaries.

Inspect's readers validate every field of a log header (with the per-sample reductions) and of
every sample summary (re-thinning their metadata): about 60 ms a header and 1 ms a summary, tens
of seconds over a sweep of many runs. The report needs a dozen fields, so a finished local .eval
log is read straight from its `header.json` and `summaries.json` members into these narrow
models, several times faster. Every other log (remote, .json, or still running, with only a
journal) goes through Inspect's own readers into the same models.
"""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
from pydantic import BaseModel, ConfigDict, TypeAdapter

from ..._parameters import CONTROL_SAMPLES
from ..._util.files import MAX_DATA_BYTES

MAX_MEMBER_BYTES = MAX_DATA_BYTES
"""The most of a log member the report inflates (a sweep's summaries are megabytes)."""
HEADER_MEMBER = "header.json"
SUMMARIES_MEMBER = "summaries.json"


class _Record(BaseModel):
    # from_attributes: the same model reads Inspect's own objects on the general path.
    model_config = ConfigDict(from_attributes=True, extra="ignore")


class Usage(_Record):
    input_tokens: int = 0
    output_tokens: int = 0
    input_tokens_cache_read: int | None = None
    input_tokens_cache_write: int | None = None

    def counts(self) -> dict[str, int]:
        return {
            "input": self.input_tokens,
            "output": self.output_tokens,
            "cache_read": self.input_tokens_cache_read or 0,
            "cache_write": self.input_tokens_cache_write or 0,
        }


class SummaryScore(_Record):
    value: Any = None
    metadata: dict[str, Any] | None = None


class SampleRow(_Record):
    """One sample summary (a conversation in one epoch)."""

    id: int | str
    epoch: int
    scores: dict[str, SummaryScore] | None = None
    metadata: dict[str, Any] = {}
    error: str | None = None
    model_usage: dict[str, Usage] = {}
    role_usage: dict[str, Usage] = {}
    total_time: float | None = None


class HeaderError(_Record):
    message: str = ""


class HeaderConfig(_Record):
    limit: int | list[int] | tuple[int, int] | None = None
    epochs: int | None = None
    epochs_reducer: list[str] | None = None


class HeaderRole(_Record):
    model: str


class HeaderDataset(_Record):
    name: str | None = None
    samples: int | None = None
    """How many samples the data set has."""
    sample_ids: list[int | str] | None = None
    """The samples the run covered (after `--limit` and `--sample-id`)."""


class HeaderSpec(_Record):
    task: str
    task_version: int | str = 0
    model: str
    created: str
    metadata: dict[str, Any] | None = None
    config: HeaderConfig = HeaderConfig()
    dataset: HeaderDataset = HeaderDataset()
    model_roles: dict[str, HeaderRole | list[HeaderRole]] | None = None
    """The model roles the run was given (the judge panel: `judge`, `judge_2`, ...)."""

    @property
    def ran_no_sample(self) -> bool:
        """Whether the run was limited to no sample at all (`--limit 0`)."""
        limit = self.config.limit
        return limit == 0 or (isinstance(limit, list | tuple) and limit[0] >= limit[1])


class HeaderMetric(_Record):
    value: float


class HeaderScore(_Record):
    name: str
    metrics: dict[str, HeaderMetric] = {}


class HeaderResults(_Record):
    completed_samples: int = 0
    scores: list[HeaderScore] = []


class HeaderStats(_Record):
    started_at: str = ""
    completed_at: str = ""
    model_usage: dict[str, Usage] = {}
    role_usage: dict[str, Usage] = {}


@dataclass(frozen=True)
class ConversationSet:
    """The conversations a run covered: its data set's digest and the samples Inspect ran."""

    data_sha256: str
    ids: frozenset[str]
    data_name: str
    """The data set as the log names it (`inspect view`'s DATASET)."""

    @cached_property
    def digest(self) -> str:
        """One short name of the set: runs with the same digest covered the same conversations."""
        listing = "\n".join([self.data_sha256, *sorted(self.ids)])
        return hashlib.sha256(listing.encode()).hexdigest()[:12]


class RunHeader(_Record):
    """A log header: what ran, how it ended, its logged metrics and its usage."""

    status: str
    error: HeaderError | None = None
    eval: HeaderSpec
    results: HeaderResults | None = None
    stats: HeaderStats = HeaderStats()

    @property
    def conversations(self) -> ConversationSet:
        """What the run covered: a `--limit` or `--sample-id` run covers fewer conversations
        than its data set has, and another data set other ones."""
        dataset, metadata = self.eval.dataset, self.eval.metadata or {}
        controls = {str(i) for i in metadata.get(CONTROL_SAMPLES, ())}
        return ConversationSet(
            str(metadata.get("data_sha256", "")),
            frozenset(str(i) for i in dataset.sample_ids or ()) - controls,
            dataset.name or "",
        )


_ROWS = TypeAdapter(list[SampleRow])


def read_header(location: str) -> RunHeader:
    member = _member(location, HEADER_MEMBER)
    if member is not None:
        return RunHeader.model_validate_json(member)
    return RunHeader.model_validate(read_eval_log(location, header_only=True))


def read_sample_rows(location: str) -> list[SampleRow]:
    """Every sample summary of a log: the last record of each sample and epoch (a requeued
    sample is recorded again after its superseded attempt, as Inspect's readers resolve it)."""
    member = _member(location, SUMMARIES_MEMBER)
    if member is None:
        return [SampleRow.model_validate(s) for s in read_eval_log_sample_summaries(location)]
    rows = _ROWS.validate_json(member)
    return list({(str(r.id), r.epoch): r for r in rows}.values())


def _member(location: str, name: str) -> bytes | None:
    """A JSON member of a local .eval log (parsed by pydantic straight from bytes, which skips
    the fields the models leave out), None where the log is remote, another format, or
    has no such member yet (a running log)."""
    path = local_path(location)
    if path is None or path.suffix != ".eval" or not path.is_file():
        return None
    with zipfile.ZipFile(path) as archive:
        if name not in archive.namelist():
            return None
        size = archive.getinfo(name).file_size
        if size > MAX_MEMBER_BYTES:
            # Declared in the archive's directory: a zip bomb is refused before it is inflated.
            raise ValueError(f"{name} of {size:,} bytes, more than {MAX_MEMBER_BYTES:,}")
        return archive.read(name)


def local_path(location: str) -> Path | None:
    """The local path of a log location (a path or a file:// URI), None if it is remote."""
    parsed = urlparse(location)
    if parsed.scheme == "file":
        return Path(url2pathname(parsed.path))
    if len(parsed.scheme) <= 1:  # no scheme, or a Windows drive letter
        return Path(location)
    return None
