"""The one way the suite reads an input file and writes an output file: a regular file only,
never more than a cap; written into a temporary file renamed over the target when whole; each
failure one line (docs/data.md, 'Files', says what each refuses and why)."""

from __future__ import annotations

import errno
import glob
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

MiB = 1024 * 1024
MAX_CONFIG_BYTES = 16 * MiB
"""A codebook, a profile vocabulary, a groups file, a conformance case file: kilobytes each."""
MAX_ANSWERS_BYTES = 64 * MiB
"""An answer file: a few kilobytes per conversation answered."""
MAX_DATA_BYTES = 512 * MiB
"""A conversation file (a JSON list or JSONL file of them): the deposit is a few megabytes."""


class FileProblem(OSError):
    """An input that cannot be read, or an output that cannot be written, as one line."""

    def __init__(self, path: str | Path, found: str, expected: str) -> None:
        self.path = str(path)
        self.found = found
        self.expected = expected
        super().__init__(f"{self.path}: found {found}; expected {expected}")

    @classmethod
    def writing(cls, path: str | Path, error: OSError) -> FileProblem:
        """A write that failed: what the system said, and (a full disk) that nothing was left."""
        full = error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
        expected = "room for the whole file (nothing was written)" if full else "a writable file"
        return cls(path, _os_error(error), expected)


def kind(mode: int) -> str:
    """What a file of this mode is, as a found value."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _size(limit: int) -> str:
    return f"{limit // MiB} MiB" if limit >= MiB else f"{limit:,} bytes"


def _os_error(error: OSError) -> str:
    name = errno.errorcode.get(error.errno or 0, type(error).__name__)
    return f"{error.strerror or type(error).__name__} ({name})"


def _open_regular(path: str | Path) -> int:
    """A regular file opened for reading, without blocking (a FIFO opens at once and is
    refused), checked on the open file (nothing can be swapped in between)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise FileProblem(path, "nothing at this path", "a readable file") from None
    except IsADirectoryError:
        raise FileProblem(path, "a folder", "a regular file") from None
    except OSError as ex:
        raise FileProblem(path, _os_error(ex), "a readable file") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise FileProblem(path, kind(mode), "a regular file")
    return fd


def _too_large(path: str | Path, limit: int) -> FileProblem:
    return FileProblem(path, f"more than {_size(limit)}", f"a file of at most {_size(limit)}")


def read_capped(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; a FileProblem otherwise.

    Read to `limit + 1` bytes at most (a file that grows, or a /proc file whose size reads as 0,
    is still capped)."""
    with os.fdopen(_open_regular(path), "rb") as file:
        try:
            data = file.read(limit + 1)
        except OSError as ex:
            raise FileProblem(path, _os_error(ex), "a readable file") from None
    if len(data) > limit:
        raise _too_large(path, limit)
    return data


def lines_capped(path: str | Path, limit: int) -> Iterator[bytes]:
    """The lines of a regular file of at most `limit` bytes, one at a time (a large JSONL file
    is never held whole); a FileProblem where `read_capped` would raise one."""
    with os.fdopen(_open_regular(path), "rb") as file:
        read = 0
        try:
            for line in file:
                read += len(line)
                if read > limit:
                    raise _too_large(path, limit)
                yield line
        except OSError as ex:
            if isinstance(ex, FileProblem):
                raise
            raise FileProblem(path, _os_error(ex), "a readable file") from None


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write `data` (text as UTF-8) to `path` whole or not at all; its folder is created."""
    target = Path(path)
    if target.is_dir():
        raise FileProblem(target, "a folder", "a file to write")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as ex:
        raise FileProblem(target.parent, _os_error(ex), "a folder that can be created") from None
    raw = data.encode("utf-8") if isinstance(data, str) else data
    _remove_abandoned(target)
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=target.parent
        )
    except OSError as ex:
        raise FileProblem(target, _os_error(ex), "a writable folder") from None
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(raw)
        # mkstemp creates the file private; an output gets the usual permissions.
        os.chmod(temporary, 0o666 & ~_UMASK)
        os.replace(temporary, target)
    except OSError as ex:
        Path(temporary).unlink(missing_ok=True)
        raise FileProblem.writing(target, ex) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_stdout(text: str) -> None:
    """`text` on standard output; a FileProblem where it cannot all be written (`> file` on a
    full disk, a reader that has gone)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as ex:
        # What is left in the buffer is dropped: Python's own flush at exit would fail on it
        # again, with a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        raise FileProblem("standard output", _os_error(ex), "room for the whole output") from None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def _remove_abandoned(target: Path) -> None:
    """The temporary files of earlier writes of `target` whose process is gone (killed before it
    could remove them: SIGKILL runs no cleanup); a live writer's are left alone."""
    head = f".{target.name}."
    for leftover in target.parent.glob(f"{glob.escape(head)}*.tmp"):
        pid = leftover.name[len(head) :].partition(".")[0]
        if pid.isdigit() and not _alive(int(pid)):
            leftover.unlink(missing_ok=True)


def _read_umask() -> int:
    # Read once, at import: setting it to read it is not safe once threads run.
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def output_folder(path: str | Path) -> Path:
    """A folder to write into, created if absent; a FileProblem if it cannot be."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise FileProblem(folder, "a file", "a folder to write into")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as ex:
        raise FileProblem(folder, _os_error(ex), "a folder that can be created") from None
    return folder


def staging_folder(folder: Path, prefix: str) -> Path:
    """A new private folder inside `folder`, where something is written before it is moved in
    whole (on the same file system, so that the move is a rename); a FileProblem if `folder`
    cannot be written into (read-only, full, not ours)."""
    try:
        return Path(tempfile.mkdtemp(prefix=prefix, dir=folder))
    except OSError as ex:
        raise FileProblem(folder, _os_error(ex), "a writable folder") from None
