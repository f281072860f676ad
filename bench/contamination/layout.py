"""Where a fine-tuning run keeps what it makes, by model and half: the stages write there
(finetune.py) and the results stage reads it back (results.py)."""

from __future__ import annotations

from pathlib import Path

from corpus import VARIANTS

UNTUNED = "untuned"
MODELS = (UNTUNED, *VARIANTS)


def model_dir(out: Path, model: str) -> Path:
    return out / "models" / model


def log_dir(out: Path, model: str, half: str, task: str) -> Path:
    return out / "logs" / model / half / task
