"""Every path the suite reads, and every file it writes : special files are
refused in one located line and never hang or fill memory, every read is capped, a full disk
leaves no truncated file, and an output folder that does not exist is created."""

from __future__ import annotations

import errno
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from attunebench_inspect._suite.cli import main
from attunebench_inspect._util import files
from attunebench_inspect._util.files import FileProblem, read_capped, write_atomic
from tests.commands import skipped_on_stderr


@pytest.fixture(autouse=True)
def deadline() -> Iterator[None]:
    """Fail, rather than hang the suite, where a read blocks (a FIFO opened for reading); far
    above what the file's longest test takes on two loaded cores (the reports of
    `test_output_folders_that_do_not_exist_are_created` passed 60 s there)."""

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError("the read blocked")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(300)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def special(kind: str, tmp_path: Path) -> str:
    if kind == "fifo":
        path = tmp_path / f"{kind}.json"
        os.mkfifo(path)
        return str(path)
    if kind == "folder":
        path = tmp_path / f"{kind}.json"
        path.mkdir()
        return str(path)
    return {"zero": "/dev/zero", "proc": "/proc/self/status"}[kind]


FOUND = {
    "fifo": "a FIFO (named pipe)",
    "folder": "a folder",
    "zero": "a device",
}


@pytest.mark.parametrize("kind", ["fifo", "folder", "zero"])
def test_a_special_file_is_refused_without_reading_it(kind: str, tmp_path: Path) -> None:
    path = special(kind, tmp_path)
    with pytest.raises(FileProblem) as raised:
        read_capped(path, files.MAX_CONFIG_BYTES)
    assert str(raised.value) == f"{path}: found {FOUND[kind]}; expected a regular file"


def test_every_read_is_capped(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2049)
    with pytest.raises(FileProblem, match=r"found more than 2,048 bytes; expected a file of at"):
        read_capped(big, 2048)
    assert read_capped(big, 4096) == b" " * 2049
    # A /proc file reports a size of 0 and is read to the cap like any other.
    assert read_capped("/proc/self/status", 64 * 1024).startswith(b"Name:")


def _inputs(tmp_path: Path, path: str) -> dict[str, list[str]]:
    """Every command line that reads a file the user names, with `path` as that file."""
    logs = tmp_path / "nologs"
    logs.mkdir(exist_ok=True)
    return {
        "data": ["validate", path],
        "codebook": ["validate", "--codebook", path],
        "vocabulary": ["validate", "--vocabulary", path],
        "estimate data": ["estimate", "--data", path, "--breakdown"],
        "estimate codebook": ["estimate", "--codebook", path, "--breakdown"],
        "export codebook": ["human", "export", "--codebook", path, "--sample", "1", "--out",
                            str(tmp_path / "p.html")],
        "answers": ["human", "import", path, "--log-dir", str(logs)],
        "groups": ["report", str(logs), "--groups", path],
        "conformance cases": ["conformance", path],
        "log": ["composite", path],
        "metrics file": ["metrics", "--write", path],
    }  # fmt: skip


@pytest.mark.parametrize("kind", ["fifo", "zero", "folder"])
def test_every_input_path_refuses_special_files_in_one_line(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = special(kind, tmp_path)
    for what, argv in _inputs(tmp_path, path).items():
        if kind == "folder" and what in ("data", "estimate data", "log"):
            continue  # a folder of conversations, a folder of logs
        code = main(argv)
        out = capsys.readouterr()
        said = out.out + out.err  # validate prints its findings to stdout, the others to stderr
        lines = [line for line in said.splitlines() if path in line]
        if what == "log":  # a log left out: why, then its location on a line of its own
            lines = [skipped_on_stderr(out.err).get(path, "")]
        assert code != 0 or "skipped" in said, what
        assert lines and "Traceback" not in said, (what, said)
        assert any(FOUND[kind] in line for line in lines), (what, said)


class FullDisk:
    """A file object that writes half of what it is given, then fails as a full disk does."""

    def __init__(self, file: Any) -> None:
        self.file = file

    def __enter__(self) -> FullDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()

    def write(self, data: bytes) -> int:
        self.file.write(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file opened for writing through `os.fdopen` (what `write_atomic` writes with)
    runs out of room half-way."""
    opened = os.fdopen

    def fdopen(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        file = opened(fd, mode, *args, **kwargs)
        return FullDisk(file) if "w" in mode else file

    monkeypatch.setattr(os, "fdopen", fdopen)


def test_a_full_disk_leaves_the_old_file_whole_and_no_temporary(
    tmp_path: Path, full_disk: None
) -> None:
    target = tmp_path / "report.html"
    target.write_text("the report before", encoding="utf-8")
    with pytest.raises(FileProblem) as raised:
        write_atomic(target, "the new report " * 1000)
    assert str(raised.value) == (
        f"{target}: found No space left on device (ENOSPC); expected room for the whole file "
        "(nothing was written)"
    )
    assert target.read_text(encoding="utf-8") == "the report before"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def _outputs(logs: Path, out: Path) -> dict[str, tuple[list[str], Path]]:
    """Every command line that writes a file, and the file it writes (under `out`)."""
    report = ["report", str(logs), "--resamples", "50"]
    return {
        "report text": ([*report, "-o", str(out / "r.txt")], out / "r.txt"),
        "report json": ([*report, "--format", "json", "-o", str(out / "r.json")], out / "r.json"),
        "report html": ([*report, "--html", str(out / "r.html")], out / "r.html"),
        "report plots": ([*report, "--plots", str(out / "figures")], out / "figures"),
        "human page": (["human", "export", "--sample", "1", "--out", str(out / "p.html")],
                       out / "p.html"),
        "estimate": (["estimate", "--breakdown", "-o", str(out / "e.txt")], out / "e.txt"),
    }  # fmt: skip


def test_a_full_disk_is_one_line_and_leaves_nothing_truncated(
    baseline_logs: Path, tmp_path: Path, full_disk: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    for what, (argv, _) in _outputs(baseline_logs, out).items():
        assert main(argv) == 1, what
        err = capsys.readouterr().err.splitlines()
        assert err[-1].endswith(
            "found No space left on device (ENOSPC); expected room for the whole file "
            "(nothing was written)"
        ), (what, err)
        left = [p for p in out.rglob("*") if p.is_file()]
        assert left == [], (what, left)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "--breakdown"],
        ["report", "--resamples", "50"],
        ["composite", "--resamples", "50"],
        ["validate"],
        ["conformance"],
    ],
)
def test_standard_output_on_a_full_disk_is_one_line(
    argv: list[str],
    baseline_logs: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`attunebench report LOGS > file` on a full disk: /dev/full answers every write as a full
    disk does (ENOSPC). One line and exit status 1, not a traceback."""
    if argv[0] in ("report", "composite"):
        argv = [argv[0], str(baseline_logs), *argv[1:]]
    with open("/dev/full", "w", encoding="utf-8") as full:
        monkeypatch.setattr(sys, "stdout", full)
        assert main(argv) == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"attunebench {argv[0]}: standard output: found No space left on device (ENOSPC); "
        "expected room for the whole output"
    )


def test_output_folders_that_do_not_exist_are_created(
    baseline_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "new" / "deeper"
    for what, (argv, target) in _outputs(baseline_logs, out).items():
        assert main(argv) == 0, what
        assert target.exists(), what
    capsys.readouterr()
    # A path whose folder is a file: one line, not a traceback.
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    assert main(["estimate", "--breakdown", "-o", str(blocker / "e.txt")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"attunebench estimate: {blocker}: found")


def test_the_metrics_file_is_rewritten_whole(tmp_path: Path) -> None:
    from attunebench_inspect.score._catalog_doc import BEGIN, END

    page = tmp_path / "METRICS.md"
    page.write_text(f"head\n{BEGIN}\nold\n{END}\ntail\n", encoding="utf-8")
    assert main(["metrics", "--write", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("head\n") and text.endswith("tail\n") and "\nold\n" not in text
