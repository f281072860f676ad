"""The estimate against the usage a real run logged: `attunebench estimate`'s token counts for the
very requests of a log, beside the input and output tokens its provider reported for them.

    .venv/bin/python bench/usage_check.py LOG [--data DIR] [--tokenizer o200k_base]

Every model call of the log is matched to the request the offline capture builds for the same
conversation (same messages, in the same order); repair rounds (an answer that could not be read,
asked again) have no captured twin and are listed apart. Input is compared without the response
schema where the provider enforces it with a grammar (llama-server, vLLM, sglang) and does not read
it, which is how their usage counts it. Prints a table per call type: calls, estimated and logged
input and output tokens, and their ratio.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from inspect_ai.event import ModelEvent
from inspect_ai.log import read_eval_log

from attunebench_inspect.data import load_codebook
from attunebench_inspect.solve._modes import mode_spec
from attunebench_inspect.solve._prompts import message_text
from attunebench_inspect.tools.estimate._bill import visible_conversations
from attunebench_inspect.tools.estimate._cache.count import counter, default_tokenizer
from attunebench_inspect.tools.estimate._cache.rules import Tokens
from attunebench_inspect.tools.estimate._capture import Request, capture
from attunebench_inspect.tools.estimate._tokens import output_tokens, prompt_of

Key = tuple[tuple[str, str], ...]


def _key(event: ModelEvent) -> Key:
    return tuple((m.role, message_text(m)) for m in event.input)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log")
    parser.add_argument("--data", default=None, help="the run's data folder (default: bundled)")
    parser.add_argument("--tokenizer", default=default_tokenizer())
    parser.add_argument(
        "--schema-read",
        action="store_true",
        help="the provider reads the response schema as input (OpenAI); default: a grammar",
    )
    args = parser.parse_args()

    log = read_eval_log(args.log, resolve_attachments=True)
    assert log.samples, "the log has no samples"
    mode = str((log.eval.metadata or {}).get("mode", "default"))
    codebook = load_codebook()
    wanted = {str(s.id) for s in log.samples}
    conversations = [
        c for c in visible_conversations(args.data, codebook) if c.conversation_id in wanted
    ]
    tokens = Tokens(counter(args.tokenizer))
    estimated: dict[Key, tuple[Request, int, int]] = {}
    for requests in capture(conversations, codebook, mode_spec(mode), judge=False):
        for request in requests:
            prompt = prompt_of(request, "openai", schema=args.schema_read, breakpoints=False)
            text_input = sum(tokens(block.text) for block in prompt)
            estimated[request.messages] = (request, text_input, output_tokens(request, tokens))

    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for sample in log.samples:
        for event in sample.events:
            if not isinstance(event, ModelEvent) or event.output.usage is None:
                continue
            usage = event.output.usage
            match = estimated.get(_key(event))
            call = match[0].call if match else "repair round (not estimated)"
            row = rows[call]
            row[0] += 1
            row[1] += match[1] if match else 0
            # Servers with a prefix cache report the cached part of the prompt apart.
            row[2] += usage.input_tokens + (usage.input_tokens_cache_read or 0)
            row[3] += match[2] if match else 0
            row[4] += usage.output_tokens

    print(f"log: {Path(args.log).name}  model: {log.eval.model}  mode: {mode}")
    print(f"estimate: {args.tokenizer}, schema {'read' if args.schema_read else 'not read'}")
    print(
        "| call | calls | input est. | input logged | est./logged "
        "| output est. | output logged | est./logged |"
    )
    print("|" + "---|" * 8)
    total = [0, 0, 0, 0, 0]
    for call, row in sorted(rows.items()):
        if not call.startswith("repair"):
            total = [a + b for a, b in zip(total, row, strict=True)]
        print(_line(call, row))
    print(_line("all estimated calls", total))


def _line(call: str, row: list[int]) -> str:
    calls, est_in, log_in, est_out, log_out = row

    def ratio(a: int, b: int) -> str:
        return f"{a / b:.3f}" if a and b else "-"

    return (
        f"| {call} | {calls} | {est_in:,} | {log_in:,} | {ratio(est_in, log_in)} "
        f"| {est_out:,} | {log_out:,} | {ratio(est_out, log_out)} |"
    )


if __name__ == "__main__":
    main()
