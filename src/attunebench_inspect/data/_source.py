"""Which data set a run or a command reads: where its conversations and its codebook are (the
bundled set, a conversation folder, a JSON or JSONL file, or a data set root laid out as
`dataset/` or as the deposit: docs/data.md), and how to name it to a person."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .._util.bundled import bundled_dataset_dir
from ._load import validate_command

BUNDLED = "bundled"
"""The name of the bundled synthetic set, wherever a data set is given (the default)."""
CODEBOOK_FILE = "annotation_codebook.json"
ROOT_LAYOUTS = (Path("conversations"), Path("Test Samples") / "Sample200")
"""Where a data set root keeps its conversations: the bundled layout, then the deposit's."""


@dataclass(frozen=True)
class DataSource:
    """A data set's conversations and the codebook they are read with."""

    conversations: Path
    codebook: Path | None
    """The codebook given, or the root's; None: the bundled one."""
    given: str
    """The data set as the user named it."""
    codebook_given: str | None = None

    def validate_command(self) -> str:
        """The command that checks this data set as it is read here."""
        return validate_command(self.given, self.codebook_given)

    @property
    def bundled(self) -> bool:
        return self.given == BUNDLED

    def describe(self, conversations: int) -> str:
        """The data set as a person should read it in a command's output."""
        if self.bundled:
            return (
                f"data: the bundled synthetic set ({conversations} conversations written for "
                "this project: demo and test numbers, not AttuneBench results)"
            )
        inside = "" if str(self.conversations) == self.given else f" ({self.conversations})"
        return f"data: {self.given}{inside}, {conversations} conversations"


def resolve(data: str | Path | None, codebook: str | Path | None = None) -> DataSource:
    """The conversations and codebook of `data` (None or `bundled`: the bundled set) with
    `codebook` (None: a root's own, else the bundled one). Paths are not checked here: the loader
    says what is wrong with one, in a located line."""
    given = BUNDLED if data is None else str(data)
    root = bundled_dataset_dir() if given == BUNDLED else Path(given)
    folder = next((root / p for p in ROOT_LAYOUTS if (root / p).is_dir()), None)
    named = None if codebook is None else str(codebook)
    book = None if named is None else Path(named)
    if folder is None:
        return DataSource(root, book, given, named)
    if book is None and given != BUNDLED and (root / CODEBOOK_FILE).is_file():
        book = root / CODEBOOK_FILE
    return DataSource(folder, book, given, named)
