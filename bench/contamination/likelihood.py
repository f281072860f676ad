"""The likelihood method on the fine-tuned models (issue 46): serve each GGUF that finetune.py
made with llama-cpp-python's server, score through Inspect's `openai-api-completions` provider
every published text of the data set, the route check's canary and the decoy-ID windows, and
apply the rule fixed in docs/contamination.md ("The likelihood method: design").

    .venv/bin/python bench/contamination/likelihood.py --stages score,results

Stages:
  score    per model (untuned, text, labels): start `python -m llama_cpp.server` (from the
           virtualenv --server-python, llama-cpp-python[server] built there), score each text
           alone (one call each, SCORE_CONFIG), the canary, and for each conversation of both
           halves its document start under the real ID and DECOYS random UUIDs; one JSON record
           per model under --out/likelihood/ (skipped where already there)
  results  the rule on the records: each model on each half against the control (the
           conversations outside both halves, which no model was trained on), the false-positive
           rate over every split of the conversations a model was not trained on into 2
           "published" and the rest, the decoy test per half; the table goes into RESULTS.md
           beside this file, between its markers (kept when finetune.py rewrites the page)

SmolLM2's tokenizer adds no BOS token, and llama-cpp-python's echo then pairs each token with the
next position's distribution (measured: RESULTS.md); each prompt is therefore sent after the BOS
token's text (`--prefix`, "<|im_start|>" by default), which the server reads as that token and
drops from the echoed log-probabilities, so every one returned is a text token's, correctly
placed. The route check runs through the same route, so a wrong prefix would abstain.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from corpus import HALVES  # noqa: E402
from layout import MODELS, UNTUNED, model_dir  # noqa: E402

STAGES = ("route", "score", "results")
BEGIN = "<!-- likelihood: written by bench/contamination/likelihood.py --stages results -->"
END = "<!-- /likelihood -->"
SPLIT_PUBLISHED = 2
"""Conversations taken as "published" in each false-positive split: a half's size."""


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# --- what is scored -----------------------------------------------------------------------------


def conversations(data: Path) -> dict[str, Any]:
    """The data set's visible conversations by ID."""
    from attunebench_inspect.data import load_codebook, load_conversations, split

    loaded = load_conversations(data, load_codebook())
    visible = [split(c.conversation)[0] for c in loaded.conversations]
    return {v.conversation_id: v for v in sorted(visible, key=lambda v: v.conversation_id)}


# --- the score stage ----------------------------------------------------------------------------


def serve(
    args: argparse.Namespace, gguf: Path, log: Path, plain: bool = False
) -> subprocess.Popen[bytes]:
    """llama-cpp-python's server on --port (`plain`: unpatched, llamacpp_server.py's note)."""
    launcher = ["-m", "llama_cpp.server"] if plain else [str(HERE / "llamacpp_server.py")]
    command = [
        str(args.server_python),
        *launcher,
        "--model",
        str(gguf),
        "--model_alias",
        gguf.stem,
        "--host",
        "127.0.0.1",
        "--port",
        str(args.port),
        "--n_ctx",
        str(args.ctx),
        "--n_threads",
        str(args.threads),
        "--n_threads_batch",
        str(args.threads),
    ]
    server = subprocess.Popen(command, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    for _ in range(240):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{args.port}/v1/models", timeout=2)
            return server
        except OSError:
            if server.poll() is not None:
                sys.exit(f"{log}: llama_cpp.server stopped before it answered")
            time.sleep(0.5)
    server.terminate()
    sys.exit(f"{log}: llama_cpp.server did not answer in 120 s")


async def score_all(
    name: str, base_url: str, prompts: Sequence[str], prefix: str
) -> list[list[tuple[str, float]] | None]:
    from inspect_ai.model import get_model

    from attunebench_inspect.instruments.contamination._likelihood_route import (
        SCORE_CONFIG,
        text_logprobs,
    )

    model = get_model(f"openai-api-completions/llamacpp/{name}", base_url=base_url, api_key="local")
    found = []
    for prompt in prompts:
        output = await model.generate(prefix + prompt, config=SCORE_CONFIG)
        got = text_logprobs(output, prefix + prompt)
        found.append(None if got is None else [(t, lp) for t, lp in got])
    return found


def score_stage(args: argparse.Namespace) -> None:
    from attunebench_inspect.instruments.contamination._likelihood import CANARY
    from attunebench_inspect.instruments.contamination._recall import published_texts

    convs = conversations(args.data)
    split_record = json.loads((args.out / "split.json").read_text(encoding="utf-8"))
    probed = [*split_record["trained"], *split_record["held_out"]]
    folder = args.out / "likelihood"
    folder.mkdir(parents=True, exist_ok=True)
    for model in args.models:
        target = folder / f"{model}.json"
        if target.exists():
            say(f"score: {model} already there")
            continue
        gguf = model_dir(args.out, model) / f"smollm2-135m-{model}.gguf"
        texts = [(c, t.key, t.text) for c, v in convs.items() for t in published_texts(v)]
        windows = [p for c in probed for p in _windows(convs[c], args.seed, args.decoys)]
        start = time.perf_counter()
        server = serve(args, gguf, folder / f"{model}-server.log")
        try:
            loaded = time.perf_counter() - start
            say(f"score: {model}: {len(texts)} texts, the canary, {len(windows)} windows")
            t0 = time.perf_counter()
            scored = asyncio.run(
                score_all(
                    gguf.stem,
                    f"http://127.0.0.1:{args.port}/v1",
                    [CANARY, *(t for *_, t in texts)],
                    args.prefix,
                )
            )
            # The route check without the prefix: what it reads of the shifted echo.
            (plain,) = asyncio.run(
                score_all(gguf.stem, f"http://127.0.0.1:{args.port}/v1", [CANARY], "")
            )
            t1 = time.perf_counter()
            windowed = asyncio.run(
                score_all(gguf.stem, f"http://127.0.0.1:{args.port}/v1", windows, args.prefix)
            )
            t2 = time.perf_counter()
        finally:
            server.terminate()
            server.wait()
        per = 1 + args.decoys
        record = {
            "model": model,
            "gguf": gguf.name,
            "prefix": args.prefix,
            "seed": args.seed,
            "threads": args.threads,
            "load_seconds": round(loaded, 1),
            "text_seconds": round(t1 - t0, 1),
            "decoy_seconds": round(t2 - t1, 1),
            "canary": scored[0],
            "canary_without_prefix": plain,
            "texts": [
                {"conversation": c, "key": k, "logprobs": s}
                for (c, k, _), s in zip(texts, scored[1:], strict=True)
            ],
            "decoys": {
                c: {"scored": windowed[i * per : (i + 1) * per]} for i, c in enumerate(probed)
            },
        }
        partial = target.with_suffix(".partial")
        partial.write_text(json.dumps(record) + "\n", encoding="utf-8")
        partial.rename(target)
        say(f"score: {model}: texts {t1 - t0:.0f} s, windows {t2 - t1:.0f} s")


# --- the route stage ----------------------------------------------------------------------------

ROUTE_TEXT = (
    "The quick brown fox jumps over the lazy dog. It was a sunny day in the park, and everyone "
    "was happy."
)
"""The route stage's text (every model reads it alike; none was trained on it)."""


def _post(args: argparse.Namespace, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{args.port}/v1/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=900) as answer:
        found: dict[str, Any] = json.loads(answer.read())
    return found


async def _through_inspect(args: argparse.Namespace, name: str) -> dict[str, Any]:
    from inspect_ai.model import GenerateConfig, get_model

    from attunebench_inspect.instruments.contamination._likelihood_route import (
        SCORE_CONFIG,
        text_logprobs,
    )

    base = f"http://127.0.0.1:{args.port}/v1"
    completions = get_model(f"openai-api-completions/llamacpp/{name}", base_url=base)
    echo = await completions.generate(
        ROUTE_TEXT, config=SCORE_CONFIG.merge(GenerateConfig(top_logprobs=20))
    )
    choice = echo.choices[0]
    entries = choice.logprobs.content if choice.logprobs else []
    only_prompt = await completions.generate(
        ROUTE_TEXT, config=GenerateConfig(max_tokens=1, prompt_logprobs=5)
    )
    chat = get_model(f"openai-api/llamacpp/{name}", base_url=base)
    answered = await chat.generate(
        ROUTE_TEXT,
        config=GenerateConfig(
            max_tokens=3, logprobs=True, top_logprobs=3, extra_body={"echo": True}
        ),
    )
    return {
        "echo_text_starts_with_prompt": choice.message.text.startswith(ROUTE_TEXT),
        "echo_stop_reason": choice.stop_reason,
        "usage": [echo.usage.input_tokens, echo.usage.output_tokens] if echo.usage else None,
        "echo_entries": len(entries),
        "echo_first": [entries[0].token, entries[0].logprob] if entries else None,
        "echo_last": [entries[-1].token, entries[-1].logprob] if entries else None,
        "echo_alternatives": len(entries[0].top_logprobs or []) if entries else 0,
        "echo_prompt_logprobs": choice.prompt_logprobs is not None,
        "text_logprobs": len(text_logprobs(echo, ROUTE_TEXT) or ()),
        "prompt_logprobs_only": {
            "prompt_logprobs": only_prompt.choices[0].prompt_logprobs is not None,
            "logprobs": only_prompt.choices[0].logprobs is not None,
        },
        "chat": {
            "logprobs_entries": len(answered.choices[0].logprobs.content)
            if answered.choices[0].logprobs
            else 0,
            "text_logprobs": text_logprobs(answered, ROUTE_TEXT) is not None,
        },
    }


def _torch_logprobs(args: argparse.Namespace, prefix: str) -> dict[str, list[float]]:
    """The untuned model's log-probabilities of ROUTE_TEXT's tokens by transformers: each token
    given the ones before (`correct`), and given the ones up to itself (`shifted`)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder = model_dir(args.out, UNTUNED) / "hf"
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    ids = tokenizer(prefix + ROUTE_TEXT, add_special_tokens=False).input_ids
    with torch.no_grad():
        table = torch.log_softmax(model(torch.tensor([ids])).logits[0], -1)
    return {
        "correct": [table[i - 1, ids[i]].item() for i in range(1, len(ids))],
        "shifted": [table[i, ids[i]].item() for i in range(1, len(ids))],
    }


def route_stage(args: argparse.Namespace) -> None:
    gguf = model_dir(args.out, UNTUNED) / f"smollm2-135m-{UNTUNED}.gguf"
    folder = args.out / "likelihood"
    folder.mkdir(parents=True, exist_ok=True)
    found: dict[str, Any] = {"text": ROUTE_TEXT}
    long = "<|im_start|>" + " ".join([ROUTE_TEXT] * 6)
    for plain in (False, True):
        label = "plain" if plain else "patched"
        server = serve(args, gguf, folder / f"route-{label}-server.log", plain=plain)
        try:
            _post(args, {"prompt": "Hello", "max_tokens": 1})  # the first call loads
            start = time.perf_counter()
            timed = _post(args, {"prompt": long, "max_tokens": 1, "echo": True, "logprobs": 1})
            seconds = time.perf_counter() - start
            found[f"{label}_ms_per_token"] = 1000 * seconds / timed["usage"]["prompt_tokens"]
            found[f"{label}_logprobs"] = timed["choices"][0]["logprobs"]
            if plain:
                continue
            for prefix, key in (("", "echo"), (args.prefix, "echo_prefixed")):
                answer = _post(
                    args,
                    {"prompt": prefix + ROUTE_TEXT, "max_tokens": 1, "echo": True, "logprobs": 1},
                )
                found[key] = answer["choices"][0]["logprobs"]["token_logprobs"]
                found[f"{key}_usage"] = answer["usage"]
            wide = _post(
                args, {"prompt": ROUTE_TEXT, "max_tokens": 1, "echo": True, "logprobs": 60}
            )
            found["alternatives_at_60"] = len(wide["choices"][0]["logprobs"]["top_logprobs"][1])
            asked = _post(args, {"prompt": ROUTE_TEXT, "max_tokens": 1, "prompt_logprobs": 5})
            found["prompt_logprobs_fields"] = sorted(asked["choices"][0])
            found["inspect"] = asyncio.run(_through_inspect(args, gguf.stem))
        finally:
            server.terminate()
            server.wait()
    found["same_json_patched_and_plain"] = found["patched_logprobs"] == found["plain_logprobs"]
    del found["patched_logprobs"], found["plain_logprobs"]
    for prefix, key in (("", "echo"), (args.prefix, "echo_prefixed")):
        expected = _torch_logprobs(args, prefix)
        # The text's tokens from its second on: the echo's entries after the null one, up to
        # the generated token's (present after a BOS token, absent without).
        text_tokens = found[f"{key}_usage"]["prompt_tokens"] - (1 if prefix else 0)
        served = found[key][1:text_tokens]
        for kind, values in expected.items():
            found[f"{key}_max_difference_{kind}"] = max(
                abs(a - b) for a, b in zip(served, values[-len(served) :], strict=True)
            )
    (folder / "route.json").write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    say(f"route: {json.dumps(found)[:2000]}")


# --- the results stage --------------------------------------------------------------------------


def _conversations(record: dict[str, Any], ids: Sequence[str], control: bool = False) -> list[Any]:
    """The conversations' figures for the control test (`conversation_likelihood`)."""
    from attunebench_inspect.instruments.contamination._likelihood import (
        conversation_likelihood,
    )

    canary = _canary(record)
    return [
        conversation_likelihood(
            c,
            canary,
            [
                None if t["logprobs"] is None else [lp for _, lp in t["logprobs"]]
                for t in record["texts"]
                if t["conversation"] == c
            ],
            control=control,
        )
        for c in ids
    ]


def _canary(record: dict[str, Any]) -> list[float] | None:
    return None if record["canary"] is None else [lp for _, lp in record["canary"]]


def _decoy_test(record: dict[str, Any], ids: Sequence[str]) -> Any:
    """The decoy-ID test's sub-verdict over the conversations' windows."""
    from attunebench_inspect.instruments.contamination._likelihood import (
        conversation_likelihood,
        decide_likelihood,
    )

    found = [
        conversation_likelihood(
            c,
            _canary(record),
            windows=[
                None if s is None else [(t, lp) for t, lp in s]
                for s in record["decoys"][c]["scored"]
            ],
        )
        for c in ids
    ]
    return found, decide_likelihood(found, False, PROVIDER)


def _windows(conv: Any, seed: int, decoys: int) -> list[str]:
    """The decoy test's prompts of a conversation: its window under its real ID, then decoys."""
    from attunebench_inspect.instruments.contamination._likelihood import (
        decoy_ids,
        decoy_prompts,
        decoy_window,
    )

    real = conv.conversation_id
    return decoy_prompts(decoy_window(conv), real, decoy_ids(real, seed, decoys))


def trim_to_prompts(args: argparse.Namespace, record: dict[str, Any]) -> int:
    """Cut every list of the record to its prompt's entries, counted by SmolLM2's tokenizer (the
    untuned model's, which every variant keeps): the prompt's tokens after the BOS token, less
    the first. A first version of `text_logprobs` kept the generated token's entry after them
    (bench/contamination/RESULTS.md); a list of any other length stops the stage. Returns how
    many lists were cut."""
    from transformers import AutoTokenizer

    from attunebench_inspect.instruments.contamination._likelihood import CANARY
    from attunebench_inspect.instruments.contamination._recall import published_texts

    tokenizer = AutoTokenizer.from_pretrained(model_dir(args.out, UNTUNED) / "hf")
    convs = conversations(args.data)
    texts = {(c, t.key): t.text for c, v in convs.items() for t in published_texts(v)}

    def cut(
        prompt: str, entries: list[Any] | None, where: str, prefix: str = args.prefix
    ) -> tuple[list[Any] | None, int]:
        if entries is None:
            return None, 0
        tokens = len(tokenizer(prefix + prompt, add_special_tokens=False).input_ids)
        count = tokens - (2 if prefix else 1)
        # Without the prefix the echo is shifted and holds no generated token's entry, so the
        # current `text_logprobs`, which drops the last `output_tokens` entries, keeps one less.
        shifted = (count - 1,) if not prefix else ()
        if len(entries) not in (*shifted, count, count + 1):
            sys.exit(f"{where}: {len(entries)} log-probabilities for a {count + 1}-token prompt")
        return entries[:count], max(0, len(entries) - count)

    record["canary"], cuts = cut(CANARY, record["canary"], f"{record['model']}: the canary")
    record["canary_without_prefix"], n = cut(
        CANARY,
        record["canary_without_prefix"],
        f"{record['model']}: the canary without the prefix",
        "",
    )
    cuts += n
    for text in record["texts"]:
        key = (text["conversation"], text["key"])
        text["logprobs"], n = cut(texts[key], text["logprobs"], f"{record['model']}: {key}")
        cuts += n
    for c, decoy in record["decoys"].items():
        prompts = _windows(convs[c], record["seed"], len(decoy["scored"]) - 1)
        for i, prompt in enumerate(prompts):
            decoy["scored"][i], n = cut(prompt, decoy["scored"][i], f"{record['model']}: {c}")
            cuts += n
    return cuts


PROVIDER = "llama-cpp-python"
"""The route's name in an abstention."""


def every_split(found: Sequence[Any]) -> tuple[int, int]:
    """The control test on every split of `found` (conversations a model never read) into
    SPLIT_PUBLISHED "published" and the rest as control: (suspected, splits)."""
    from dataclasses import replace

    from attunebench_inspect.instruments.contamination._likelihood import decide_likelihood
    from attunebench_inspect.instruments.contamination._rules import SUSPECTED

    suspected = splits = 0
    for drawn in itertools.combinations(range(len(found)), SPLIT_PUBLISHED):
        arranged = [replace(c, control=i not in drawn) for i, c in enumerate(found)]
        suspected += decide_likelihood(arranged, True, PROVIDER).reading == SUSPECTED
        splits += 1
    return suspected, splits


def results_stage(args: argparse.Namespace) -> None:
    from attunebench_inspect.instruments.contamination._likelihood import (
        CONTROL_RULE,
        DECOY_RULE,
        canary_mean,
        decide_likelihood,
        route_check,
    )
    from attunebench_inspect.instruments.contamination._rules import ALPHA

    split_record = json.loads((args.out / "split.json").read_text(encoding="utf-8"))
    halves = {h: split_record["trained" if h == "trained" else "held_out"] for h in HALVES}
    folder = args.out / "likelihood"
    records = {
        m: json.loads((folder / f"{m}.json").read_text(encoding="utf-8"))
        for m in MODELS
        if (folder / f"{m}.json").exists()
    }
    trimmed = {m: trim_to_prompts(args, r) for m, r in records.items()}
    every = sorted({t["conversation"] for r in records.values() for t in r["texts"]})
    control = [c for c in every if c not in {*halves["trained"], *halves["held_out"]}]
    lines = [
        BEGIN,
        "",
        "## The likelihood method (issue 46)",
        "",
        "Written by `bench/contamination/likelihood.py --stages results` from the records of its "
        "`score` stage (`likelihood/*.json`): every published text of the 25 bundled conversations "
        "scored alone through Inspect's `openai-api-completions` provider against "
        "llama-cpp-python's server, by the rule of docs/contamination.md (\"The likelihood "
        'method"), fixed before these records were read.',
        "",
        f"- Control: the {len(control)} conversations outside both halves (no model was trained "
        "on them).",
        "- Each record's lists cut to their prompts' entries by SmolLM2's tokenizer (the "
        "generated token's entry, which a first version of `text_logprobs` kept, left out): "
        + ", ".join(f"{m} {n} lists cut" for m, n in trimmed.items())
        + ".",
        f"- Control test: {CONTROL_RULE}.",
        f"- Decoy-ID test: {DECOY_RULE}.",
        "",
        "| model | half | control test | published / control Min-K% (nats) | p | decoy test | "
        "decoy counts (of 19) | p |",
        "|---|---|---|---|---|---|---|---|",
    ]
    rates = []
    for model, record in records.items():
        controls = _conversations(record, control, control=True)
        for half in HALVES:
            ids = halves[half]
            verdict = decide_likelihood(_conversations(record, ids) + controls, True, PROVIDER)
            windows, decoy = _decoy_test(record, ids)
            counts = ", ".join(str(w.decoys_above) for w in windows)
            lines.append(
                f"| {model} | {half.replace('_', ' ')} | **{verdict.reading}** | "
                f"{verdict.published:.3f} / {verdict.control:.3f} | {verdict.p_value:.3g} | "
                f"{decoy.reading} | {counts} | {decoy.p_value:.3g} |"
            )
        # The false-positive rate: every split of the conversations this model never read.
        unseen = [c for c in every if model == UNTUNED or c not in halves["trained"]]
        found = _conversations(record, unseen)
        suspected, splits = every_split(found)
        scores = [c.score for c in found]
        shifted = [lp for _, lp in record["canary_without_prefix"] or []]
        canary = canary_mean(_canary(record))
        rates.append(
            f"| {model} | {len(unseen)} | {suspected} of {splits} ({suspected / splits:.2%}) | "
            f"{min(scores):.3f} to {max(scores):.3f} | "
            f"{route_check(canary) or 'passed'} ({canary:.3f}) | "
            f"{canary_mean(shifted):.2f}: "
            f"{'fails' if route_check(canary_mean(shifted)) else 'passes'} | "
            f"{record['text_seconds'] / 60:.1f} min ({len(record['texts'])} texts) | "
            f"{record['decoy_seconds'] / 60:.1f} min |"
        )
    lines += [
        "",
        f"False positives: the control test on every split of the conversations a model was "
        f'never trained on into {SPLIT_PUBLISHED} "published" and the rest as control, at '
        f"alpha {ALPHA}. Over every split the permutation test rejects at most alpha of them by "
        "construction (its p-value is the split's rank among all splits); what the held-out "
        "rows above measure is whether conversations a model never read stand with the control. "
        "Times: 1 server thread, 2 shared cores.",
        "",
        "| model | unseen conversations | every split: suspected | conversation scores (Min-K%) "
        "| route check (canary mean) | canary without the prefix (shifted) | texts scored in | "
        "decoy windows scored in |",
        "|---|---|---|---|---|---|---|---|",
        *rates,
        "",
        END,
    ]
    route = folder / "route.json"
    if route.exists():
        lines[-1:-1] = route_lines(json.loads(route.read_text(encoding="utf-8")), args.prefix)
    write_section(args.results, "\n".join(lines))


def route_lines(r: dict[str, Any], prefix: str) -> list[str]:
    """What `--stages route` measured, as the section's list."""
    seen = r["inspect"]
    return [
        "The route, measured on the untuned model (`--stages route`, `likelihood/route.json`), "
        f"prompt {r['text']!r}:",
        "",
        f"- `openai-api-completions` with `SCORE_CONFIG` and `top_logprobs=20`: "
        f"`choices[0].logprobs.content` holds {seen['echo_entries']} entries for a "
        f"{seen['usage'][0]}-token prompt ({seen['usage'][1]} generated): the prompt's tokens "
        f"from the second on (first {seen['echo_first']}, last {seen['echo_last']}), the "
        f"generated token not among them; {seen['echo_alternatives']} alternatives each (the 20 "
        f"and the token itself), token strings; the text starts with the prompt: "
        f"{seen['echo_text_starts_with_prompt']}; stop reason `{seen['echo_stop_reason']}`; "
        f"`prompt_logprobs` None; `text_logprobs` keeps {seen['text_logprobs']}.",
        f"- `prompt_logprobs=5` alone: llama-cpp-python ignores it (the choice's fields: "
        f"{', '.join(r['prompt_logprobs_fields'])}); Inspect's `prompt_logprobs`: "
        f"{seen['prompt_logprobs_only']['prompt_logprobs']}, `logprobs`: "
        f"{seen['prompt_logprobs_only']['logprobs']}.",
        f"- `openai-api` (chat) with `logprobs`, `top_logprobs=3` and `echo`: "
        f"{seen['chat']['logprobs_entries']} entries, the generated tokens'; a log-probability "
        f"of the given text: {seen['chat']['text_logprobs']}.",
        f"- No cap on alternatives: `logprobs=60` gives {r['alternatives_at_60']} per position.",
        f"- Alignment against transformers (the same weights, float32): without a prefix the "
        f"echoed values differ from each token's log-probability by up to "
        f"{r['echo_max_difference_correct']:.3f} nats and from the *next position's* "
        f"distribution's by {r['echo_max_difference_shifted']:.3f}: shifted by one, since "
        f"SmolLM2's tokenizer adds no BOS token. After {prefix!r} (the BOS token): "
        f"{r['echo_prefixed_max_difference_correct']:.3f} from the right values, "
        f"{r['echo_prefixed_max_difference_shifted']:.3f} from the shifted ones.",
        f"- Time, 1 server thread: {r['plain_ms_per_token']:.0f} ms a prompt token as "
        f"llama-cpp-python ships, {r['patched_ms_per_token']:.1f} ms with llamacpp_server.py's "
        f"partial sort; the same JSON: {r['same_json_patched_and_plain']}.",
        "",
    ]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def write_section(target: Path, section: str) -> None:
    """The section between BEGIN and END replaced (appended where absent), the rest kept."""
    text = target.read_text(encoding="utf-8") if target.exists() else ""
    if BEGIN in text:
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        text = head + section + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    target.write_text(text, encoding="utf-8")


# --- command line -------------------------------------------------------------------------------


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "contamination")
    p.add_argument("--data", type=Path, default=None, help="default: the bundled conversations")
    p.add_argument("--stages", default=",".join(STAGES))
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--seed", type=int, default=0, help="the decoy IDs")
    p.add_argument(
        "--server-python",
        type=Path,
        default=ROOT / ".local" / "llamacpp" / "bin" / "python",
        help="a Python with llama-cpp-python[server]",
    )
    p.add_argument("--prefix", default="<|im_start|>", help="sent before every prompt (above)")
    p.add_argument("--port", type=int, default=8095)
    p.add_argument("--ctx", type=int, default=4096)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--decoys", type=int, default=19)
    p.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    args = p.parse_args(argv)
    if args.data is None:
        from attunebench_inspect._util.bundled import bundled_conversations_dir

        args.data = bundled_conversations_dir()
    args.out = args.out.resolve()
    args.stages = [s for s in args.stages.split(",") if s]
    args.models = [m for m in args.models.split(",") if m]
    for name, given, allowed in (
        ("--stages", args.stages, STAGES),
        ("--models", args.models, MODELS),
    ):
        wrong = [x for x in given if x not in allowed]
        if wrong:
            p.error(f"{name}: unknown {', '.join(wrong)}; expected some of {', '.join(allowed)}")
    if {"route", "score"} & set(args.stages) and not args.server_python.exists():
        p.error(f"--server-python: {args.server_python} not found (llama-cpp-python[server])")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    os.environ.setdefault("LLAMACPP_API_KEY", "local")
    for stage in args.stages:
        say(f"stage {stage}")
        {"route": route_stage, "score": score_stage, "results": results_stage}[stage](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
