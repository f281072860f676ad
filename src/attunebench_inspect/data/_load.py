"""Reading conversation files: a folder, a single JSON file, a JSON list or a JSONL file."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import random
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from .._util.files import MAX_DATA_BYTES, FileProblem, kind, lines_capped, read_capped
from . import _jsonfile as jsonfile
from ._checks import check_conversation, conversation_warnings
from ._codebook import Codebook
from ._problems import DataError, DataProblem, expected_in, field_name, found_in, shorten
from ._schema import Conversation

_EXTENSIONS = (".json", ".jsonl")
"""Conversation file extensions, in any letter case."""


@dataclass(frozen=True)
class Record:
    """One conversation object as read from disk, with where it came from."""

    source: str
    document: jsonfile.Document

    @property
    def raw(self) -> object:
        return self.document.value


@dataclass(frozen=True)
class LoadedConversation:
    source: str
    conversation: Conversation


@dataclass
class LoadResult:
    conversations: list[LoadedConversation] = field(default_factory=list)
    problems: list[DataProblem] = field(default_factory=list)
    warnings: list[DataProblem] = field(default_factory=list)
    """Oddities that do not stop a conversation being used (PANAS totals that are not the sums
    of their items, a follow-up after a Q3 answer that is not negative)."""
    records: int = 0
    files: list[tuple[str, str]] = field(default_factory=list)
    """(file name, SHA-256 of its bytes) of every file read, in the order read."""

    @property
    def sha256(self) -> str:
        """The data set's content digest: SHA-256 of its files' digests and names, written as
        `sha256sum` writes them (`sha256sum *.json | sha256sum` in a conversation folder)."""
        listing = "".join(f"{digest}  {name}\n" for name, digest in self.files)
        return hashlib.sha256(listing.encode()).hexdigest()

    @property
    def invalid_sources(self) -> list[str]:
        return sorted({p.source for p in self.problems})


def _not_a_file(path: Path) -> str:
    """What a path that is not a readable regular file is, as a found value."""
    try:
        path.stat()
    except OSError as ex:
        if ex.errno == errno.ELOOP:
            return "a symbolic link loop"
        if path.is_symlink():
            return f"a dangling symbolic link (to {shorten(os.readlink(path))})"
        return "nothing at this path" if ex.errno == errno.ENOENT else type(ex).__name__
    return kind(path.stat().st_mode)


def _entries(root: Path) -> Iterator[Path | DataProblem]:
    """The conversation files of a folder, and a problem for each that cannot be read as one."""
    try:
        paths = sorted(root.iterdir())
    except OSError as ex:
        yield DataProblem(str(root), None, "folder", type(ex).__name__, "a readable folder")
        return
    for path in paths:
        if path.suffix.lower() not in _EXTENSIONS:
            continue
        if path.is_file():
            yield path
        else:
            yield DataProblem(str(path), None, "file", _not_a_file(path), "a conversation file")


def _read(file: Path) -> bytes | DataProblem:
    try:
        return read_capped(file, MAX_DATA_BYTES)
    except FileProblem as ex:
        return DataProblem(str(file), None, "file", ex.found, ex.expected)


def _jsonl_record(source: str, line: str) -> Record | DataProblem:
    try:
        return Record(source, jsonfile.loads(line))
    except jsonfile.TooDeepError as ex:
        return DataProblem(source, None, "line", str(ex), "a conversation object")
    except json.JSONDecodeError as ex:
        return DataProblem(
            source,
            None,
            "line",
            f"invalid JSON ({ex.msg})",
            "one JSON conversation object per line",
        )


def _decoded(source: str, raw: bytes, what: str) -> str | DataProblem:
    """`raw` as text, or the problem where it is not UTF-8 (`what`: a file or a JSONL line)."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as ex:
        found = f"bytes that are not UTF-8 ({ex.reason} at byte {ex.start})"
        return DataProblem(source, None, what, found, f"a UTF-8 JSON {what}")


def _records(file: Path, raw: bytes) -> Iterator[Record | DataProblem]:
    text = _decoded(str(file), raw, "file")
    if isinstance(text, DataProblem):
        yield text
        return
    if file.suffix.lower() == ".jsonl":
        for lineno, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                yield _jsonl_record(f"{file}:{lineno}", line)
        return
    try:
        document = jsonfile.loads(text)
    except jsonfile.TooDeepError as ex:
        yield DataProblem(str(file), None, "file", str(ex), "a conversation object")
        return
    except json.JSONDecodeError as ex:
        yield DataProblem(
            str(file),
            None,
            "file",
            f"invalid JSON ({ex.msg} at line {ex.lineno} column {ex.colno})",
            "a JSON conversation object or a list of them",
        )
        return
    if isinstance(document.value, list):
        for index in range(len(document.value)):
            yield Record(f"{file}[{index}]", document.item(index))
    else:
        yield Record(str(file), document)


def _turn_of(raw: object, loc: tuple[int | str, ...]) -> tuple[int | None, tuple[int | str, ...]]:
    """The turn a pydantic error location points into (its turnNumber where readable)."""
    if len(loc) >= 2 and loc[0] == "turns" and isinstance(loc[1], int):
        turns = raw.get("turns") if isinstance(raw, dict) else None
        number: int | None = loc[1] + 1
        if isinstance(turns, list) and loc[1] < len(turns) and isinstance(turns[loc[1]], dict):
            given = turns[loc[1]].get("turnNumber")
            if isinstance(given, int) and not isinstance(given, bool):
                number = given
        return number, loc[2:]
    return None, loc


def _problem_at(record: Record, loc: jsonfile.Location, found: str, expected: str) -> DataProblem:
    turn, rest = _turn_of(record.raw, loc)
    return DataProblem(record.source, turn, field_name(rest), found, expected, _id_of(record))


def _located(record: Record, findings: list[jsonfile.Finding]) -> list[DataProblem]:
    return [_problem_at(record, f.loc, f.found, f.expected) for f in findings]


def _id_of(record: Record) -> str | None:
    value = record.raw.get("conversationId") if isinstance(record.raw, dict) else None
    return value if isinstance(value, str) else None


def read_conversations(path: str | Path, codebook: Codebook) -> LoadResult:
    """Parse and check every conversation under `path`, collecting all problems and warnings."""
    root = Path(path)
    # The codebook's oddities too: it is part of what the dataset is read with.
    result = LoadResult(warnings=list(codebook.warnings))

    def whole(what: str, found: str, expected: str) -> LoadResult:
        """`result` with a problem of the data set as a whole."""
        result.problems.append(DataProblem(str(root), None, what, found, expected))
        return result

    if not root.is_dir() and not root.is_file():
        return whole("path", _not_a_file(root), "a conversation folder, JSON file or JSONL file")
    entries = list(_entries(root)) if root.is_dir() else [root]
    if not entries:
        return whole(
            "folder",
            "no .json or .jsonl files (in any letter case)",
            "at least one conversation file",
        )
    seen_ids: dict[str, str] = {}
    for entry in entries:
        if isinstance(entry, DataProblem):
            result.problems.append(entry)
            continue
        raw = _read(entry)
        if isinstance(raw, DataProblem):
            result.problems.append(raw)
            continue
        result.files.append((entry.name, hashlib.sha256(raw).hexdigest()))
        for item in _records(entry, raw):
            _add_record(item, codebook, seen_ids, result)
    if not result.records and not result.problems:
        return whole(
            "folder" if root.is_dir() else "file",
            "no conversation",
            "at least one conversation object",
        )
    return result


def _add_record(
    item: Record | DataProblem, codebook: Codebook, seen_ids: dict[str, str], result: LoadResult
) -> None:
    """One conversation object (or the problem that stood in its place) into `result`: a loaded
    conversation, or its problems. `seen_ids`: conversation ID -> where it was first read."""
    if isinstance(item, DataProblem):
        result.problems.append(item)
        return
    result.records += 1
    result.warnings.extend(_located(item, item.document.warnings))
    if item.document.problems:
        result.problems.extend(_located(item, item.document.problems))
        return
    try:
        conv = Conversation.model_validate(item.raw)
    except ValidationError as ex:
        result.problems.extend(
            _problem_at(item, tuple(e["loc"]), found_in(e), expected_in(e)) for e in ex.errors()
        )
        return
    result.warnings.extend(conversation_warnings(conv, codebook, item.source))
    problems = check_conversation(conv, codebook, item.source)
    first = seen_ids.setdefault(conv.conversationId, item.source)
    if first != item.source:
        problems.append(
            DataProblem(
                item.source,
                None,
                "conversationId",
                conv.conversationId,
                f"a unique ID (also used by {first})",
                conv.conversationId,
            )
        )
    if problems:
        result.problems.extend(problems)
    else:
        result.conversations.append(LoadedConversation(item.source, conv))


def load_conversations(
    path: str | Path, codebook: Codebook, skip_invalid: bool = False, *, hint: str | None = None
) -> LoadResult:
    """Read a dataset; raise `DataError` on any problem unless `skip_invalid`. `hint`: what
    the command being run offers about invalid data (default: `attunebench validate PATH`)."""
    result = read_conversations(path, codebook)
    if result.problems and not (skip_invalid and result.conversations):
        raise DataError(result.problems, hint or f"check it with `{validate_command(path)}`")
    return result


@dataclass(frozen=True)
class _Line:
    """A JSONL line kept unparsed until it is chosen (`load_sample`)."""

    source: str
    text: bytes


def _line_record(line: _Line) -> Record | DataProblem:
    text = _decoded(line.source, line.text, "line")
    return text if isinstance(text, DataProblem) else _jsonl_record(line.source, text)


def _items(root: Path) -> Iterator[Record | DataProblem | _Line]:
    """Every conversation of a data set as read, a JSONL file's lines unparsed."""
    entries = list(_entries(root)) if root.is_dir() else [root]
    for entry in entries:
        if isinstance(entry, DataProblem):
            yield entry
        elif entry.suffix.lower() == ".jsonl":
            try:
                for number, text in enumerate(lines_capped(entry, MAX_DATA_BYTES), start=1):
                    if text.strip():
                        yield _Line(f"{entry}:{number}", text)
            except FileProblem as ex:
                yield DataProblem(str(entry), None, "file", ex.found, ex.expected)
        else:
            raw = _read(entry)
            if isinstance(raw, DataProblem):
                yield raw
            else:
                yield from _records(entry, raw)


def load_sample(
    path: str | Path,
    codebook: Codebook,
    size: int,
    seed: int = 0,
    *,
    hint: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[int, LoadResult]:
    """How many conversations a data set has, and a seeded uniform sample of `size` of them
    (all of them where it has no more), checked as `load_conversations` checks a data set, read
    in one pass that holds at most `size` of them (a JSONL file line by line, parsed only when
    chosen). Only the sample is checked: `attunebench validate` checks them all. `progress`
    hears the count read so far, every 1,000 conversations."""
    rng = random.Random(seed)
    kept: list[tuple[int, Record | _Line]] = []
    result = LoadResult(warnings=list(codebook.warnings))
    count = 0
    for item in _items(Path(path)):
        if isinstance(item, DataProblem):
            result.problems.append(item)
            continue
        # Reservoir sampling (Vitter's algorithm R): each conversation is kept with chance
        # size / count, whatever the data set's length.
        if len(kept) < size:
            kept.append((count, item))
        elif (slot := rng.randrange(count + 1)) < size:
            kept[slot] = (count, item)
        count += 1
        if progress is not None and count % 1000 == 0:
            progress(count)
    if not count and not result.problems:
        result.problems.append(
            DataProblem(str(path), None, "data set", "no conversation", "at least one")
        )
    seen: dict[str, str] = {}
    for _, item in sorted(kept, key=lambda pair: pair[0]):
        _add_record(_line_record(item) if isinstance(item, _Line) else item, codebook, seen, result)
    if result.problems:
        raise DataError(result.problems, hint or f"check it with `{validate_command(path)}`")
    return count, result


def validate_command(data: str | Path, codebook: str | Path | None = None) -> str:
    """The command that checks a data set, as a person would type it."""
    words = ["attunebench", "validate", str(data)]
    if codebook is not None:
        words += ["--codebook", str(codebook)]
    return shlex.join(words)
