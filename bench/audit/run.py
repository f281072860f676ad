"""The verdict audit: every validity instrument's verdicts on inputs of planted behaviour over
seeds (positive, negative, and uninformative inputs on which only "cannot decide" is right),
with the false-verdict count and the power, printed as one table and written to
bench/audit/RESULTS.md. Seeded: the same command gives the same table.

    nice -n 19 .venv/bin/python bench/audit/run.py --seeds 200     # the docs' rates
    .venv/bin/python bench/audit/run.py --small                    # a few seeds (the CI's)

Each instrument's module (`stability.py`, `reannotation.py`, `contamination.py`) has
`audit(seeds, small) -> list[AuditRow]`; a module that is absent is skipped, with a line.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.audit.rows import AuditRow

MODULES = ("stability", "reannotation", "contamination")
RESULTS = Path(__file__).with_name("RESULTS.md")


def _cell(row: AuditRow) -> list[str]:
    said = ", ".join(f"{word} {n}" for word, n in row.verdicts.items())
    power = "-" if row.power is None else f"{row.power:.3f}"
    return [
        row.instrument,
        row.behaviour,
        row.planted,
        str(row.seeds),
        said,
        f"{row.false_verdicts} of {row.seeds}",
        power,
        f"{row.seconds:.1f}",
    ]


def table(rows: Sequence[AuditRow]) -> str:
    header = ["verdict", "behaviour", "planted", "seeds", "verdicts", "false", "power", "seconds"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(r)) + " |" for r in rows]
    return "\n".join(lines)


def _kept_rows(instruments: set[str]) -> dict[str, list[str]]:
    """The rows of `instruments` in the RESULTS.md there is (an instrument left out of this run
    keeps its rows, not its place in a fresh table)."""
    if not RESULTS.exists():
        return {}
    kept: dict[str, list[str]] = {}
    for line in RESULTS.read_text(encoding="utf-8").splitlines():
        name = line[2:].split(" |", 1)[0].split(":", 1)[0] if line.startswith("| ") else ""
        if name in instruments:
            kept.setdefault(name, []).append(line)
    return kept


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--small", action="store_true", help="a few seeds per row (the CI's)")
    parser.add_argument("--only", nargs="+", choices=MODULES, help="these instruments only")
    parser.add_argument("--no-write", action="store_true", help=f"print only, not {RESULTS.name}")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows: list[AuditRow] = []
    for name in args.only or MODULES:
        try:
            module = importlib.import_module(f"bench.audit.{name}")
        except ModuleNotFoundError as ex:
            if ex.name != f"bench.audit.{name}":
                raise
            print(f"bench/audit/{name}.py: absent; skipped", file=sys.stderr)
            continue
        rows += module.audit(args.seeds, args.small)
    seconds = time.perf_counter() - start
    found = table(rows)
    print(found)
    if not args.no_write:
        command = "python bench/audit/run.py " + (
            "--small" if args.small else f"--seeds {args.seeds}"
        )
        kept = _kept_rows(set(MODULES) - set(args.only or MODULES))
        RESULTS.write_text(
            "# The verdict audit\n\n"
            f"`{command}`{' --only ' + ' '.join(args.only) if args.only else ''}: "
            f"{seconds / 60:.1f} minutes on {platform.machine()} "
            "(2 cores, shared). False: a reading on an uninformative input, or a reading other "
            "than the right ones on a planted input (an abstention is never false: it costs "
            "power). Power: on planted positives, the share of seeds that read the right "
            "verdict."
            + (f" The rows of {', '.join(sorted(kept))} are kept from the earlier run of this "
               "file." if kept else "")
            + "\n\n" + "\n".join([found, *(line for lines in kept.values() for line in lines)])
            + "\n",
            encoding="utf-8",
        )  # fmt: skip
    false = sum(r.false_verdicts for r in rows if r.planted != "positive")
    print(f"\n{len(rows)} rows, {false} false verdict(s) on negative and uninformative inputs, "
          f"{seconds:.0f} s", file=sys.stderr)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
