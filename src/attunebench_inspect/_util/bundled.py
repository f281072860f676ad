"""Where the bundled dataset lives, in a source checkout and in an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]


def bundled_dataset_dir() -> Path:
    """The bundled `dataset/` folder (codebook and synthetic conversations)."""
    # An installed wheel carries a copy inside the package; a source checkout has it at the top.
    for candidate in (_PACKAGE / "dataset", _PACKAGE.parents[1] / "dataset"):
        if (candidate / "annotation_codebook.json").is_file():
            return candidate
    raise FileNotFoundError(
        "the bundled dataset folder is missing from this installation; "
        "pass -T data=PATH and -T codebook=PATH explicitly"
    )


def bundled_conversations_dir() -> Path:
    return bundled_dataset_dir() / "conversations"
