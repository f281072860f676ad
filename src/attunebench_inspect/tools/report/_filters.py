"""Subgroup filters over participant and topic facts: `--where` and `--compare` expressions.

An expression is clauses joined by `and` / `or` (`and` binds tighter). A clause is
`FIELD OP VALUE` with OP one of `=  !=  >=  <=  >  <  ~` (`~`: contains, case-insensitive).

Fields: `category`, `subtopic`, `topic_attitude`, `turn_count`, `diagnoses`,
`demographics.<key>` (e.g. `demographics.gender`), `computed_scores.<key>` (e.g.
`computed_scores.promis_anxiety_t`), and `group` for a named group. On the `diagnoses` list, `=`
and `~` test any entry; `diagnoses=any` means any condition and `diagnoses=none` none. Any other
field is an error (a misspelt field would otherwise select nothing without a word).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..._util.files import MAX_CONFIG_BYTES, FileProblem, read_capped
from ...data import _jsonfile as jsonfile
from ...data._schema import NO_DIAGNOSIS
from ._run_table import SUBGROUP_KEYS

Facts = Mapping[str, Any]
Predicate = Callable[[Facts], bool]


DEFAULT_GROUPS: dict[str, str] = {
    "any_diagnosis": "diagnoses=any",
    "no_diagnosis": "diagnoses=none",
    "anxdep": "diagnoses~anxiety or diagnoses~depress",
    "asd_adhd": "diagnoses~autism or diagnoses~adhd",
}
"""The paper's diagnosis groups; override or extend with `--groups FILE` (a JSON object of
name -> expression)."""

NESTED = ("demographics", "computed_scores")
"""Facts that are objects: a filter names one of their keys (`demographics.gender`)."""
KNOWN_FIELDS = (*(f"{k}.<key>" if k in NESTED else k for k in SUBGROUP_KEYS), "group")

_CLAUSE = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(!=|>=|<=|=|>|<|~)\s*(.*?)\s*$")


class FilterError(ValueError):
    pass


def load_groups(path: str | Path | None) -> dict[str, str]:
    groups = dict(DEFAULT_GROUPS)
    if path is not None:
        expected = "a JSON object of group name -> expression"
        try:
            document = jsonfile.loads(read_capped(path, MAX_CONFIG_BYTES).decode("utf-8-sig"))
        except FileProblem as ex:
            raise FilterError(str(ex)) from None
        except (UnicodeDecodeError, json.JSONDecodeError, jsonfile.TooDeepError) as ex:
            found = f"{type(ex).__name__} ({ex})"
            raise FilterError(f"{path}: found {found}; expected {expected}") from None
        data = document.value
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise FilterError(f"{path}: expected {expected}")
        groups.update(data)
    return groups


def _lookup(facts: Facts, field: str) -> Any:
    value: Any = facts
    for part in field.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def _check_field(field: str) -> None:
    head, dot, key = field.partition(".")
    if head not in SUBGROUP_KEYS and head != "group":
        raise FilterError(f"unknown field {field!r}; known: {', '.join(KNOWN_FIELDS)}")
    if head in NESTED and not key:
        raise FilterError(f"field {field!r} needs a key: {head}.<key>")
    if head not in NESTED and dot:
        raise FilterError(f"field {field!r}: {head} has no keys")


def _compare(found: Any, op: str, wanted: str) -> bool:
    if found is None:
        return False
    if op == "~":
        return wanted.lower() in str(found).lower()
    if op in ("=", "!="):
        equal = str(found).lower() == wanted.lower()
        with contextlib.suppress(TypeError, ValueError):
            equal = equal or float(found) == float(wanted)
        return equal if op == "=" else not equal
    try:
        number, limit = float(found), float(wanted)
    except (TypeError, ValueError):
        return False
    return {">": number > limit, "<": number < limit, ">=": number >= limit, "<=": number <= limit}[
        op
    ]


def _diagnoses(entries: list[str], op: str, wanted: str) -> bool:
    conditions = [e for e in entries if e != NO_DIAGNOSIS]
    if op == "=" and wanted.lower() in ("any", "none"):
        return bool(conditions) == (wanted.lower() == "any")
    hit = any(_compare(e, "=" if op == "!=" else op, wanted) for e in entries)
    return not hit if op == "!=" else hit


def _clause(text: str, groups: Mapping[str, str], depth: int) -> Predicate:
    match = _CLAUSE.match(text)
    if match is None:
        raise FilterError(f"cannot read the filter clause {text!r}; expected FIELD OP VALUE")
    field, op, wanted = match.groups()
    _check_field(field)
    if field == "group":
        if wanted not in groups:
            raise FilterError(f"unknown group {wanted!r}; known: {', '.join(sorted(groups))}")
        if op not in ("=", "!="):
            raise FilterError("groups take = or !=")
        inner = parse_filter(groups[wanted], groups, depth + 1)
        return inner if op == "=" else (lambda facts: not inner(facts))
    if field == "diagnoses":
        return lambda facts: _diagnoses(list(facts.get("diagnoses") or []), op, wanted)
    return lambda facts: _compare(_lookup(facts, field), op, wanted)


def parse_filter(
    expression: str, groups: Mapping[str, str] = DEFAULT_GROUPS, depth: int = 0
) -> Predicate:
    """A predicate over a conversation's facts; raises FilterError on a malformed expression."""
    if depth > 8:
        raise FilterError("group definitions refer to each other too deeply")
    alternatives = [
        [_clause(c, groups, depth) for c in re.split(r"\s+and\s+", part) if c.strip()]
        for part in re.split(r"\s+or\s+", expression)
    ]
    if not any(alternatives):
        raise FilterError(f"empty filter {expression!r}")
    return lambda facts: any(all(c(facts) for c in clauses) for clauses in alternatives if clauses)
