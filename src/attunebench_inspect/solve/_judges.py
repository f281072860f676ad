"""The judge: its call on a draft (`judge_draft`, which the walk makes and a later re-judging
scorer makes again, score/_scorers.py), the panel's model roles (`judge`, `judge_2`, ...) and
the self-judging line (both: docs/stability.md, 'Running for stability'). Without `judge` no
draft is judged, never by the model under test (`get_model(role=...)` would fall back to it)."""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Collection, Mapping, Sequence

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, Model, model_roles

# The model under test while a task is made inside its eval (None outside one): Inspect exports
# no accessor for it outside `get_model()`, which raises there; tests/test_architecture.py pins it.
from inspect_ai.model._model import (  # inspect-evals-lint: ignore[private_api_imports] -- pinned by a test  # noqa: E501
    active_model,
)

from ..data._codebook import Codebook
from ..data._problems import InputError
from ..data._split import VisibleConversation, VisibleTurn
from . import _prompts as prompts
from ._ask import ask
from ._call_record import CallRecord
from ._credentials import credentials_problem
from ._identity import SelfJudge, self_judge
from ._provider_rules import RequestPolicy, blocks, breakpoints, request_policy
from ._schemas import judge_schema
from ._store import JUDGE_ROLE

logger = logging.getLogger(__name__)

PANEL_PATTERN = "judge, judge_2, judge_3, ..."
_NUMBERED = re.compile(r"judge_([1-9][0-9]*)")


def panel_roles(roles: Collection[str]) -> tuple[str, ...]:
    """The judge roles among bound model roles, in panel order; a misnamed role or gap: one line."""
    numbers = set()
    for role in roles:
        # `Judge` or `JUDGE` would bind no judge without a word: role names are case-sensitive.
        if role == JUDGE_ROLE or not role.lower().startswith(JUDGE_ROLE):
            continue
        numbered = _NUMBERED.fullmatch(role)
        if numbered is None or int(numbered.group(1)) < 2:
            case = " (role names are case-sensitive)" if role != role.lower() else ""
            raise InputError(
                f"model role {role}: not a judge role{case}; the judge panel's roles are "
                f"{PANEL_PATTERN} (numbered from 2)"
            )
        numbers.add(int(numbered.group(1)))
    if JUDGE_ROLE not in roles and not numbers:
        return ()
    panel = (JUDGE_ROLE, *(f"{JUDGE_ROLE}_{n}" for n in range(2, len(numbers) + 2)))
    missing = [role for role in panel if role not in roles]
    if missing:
        bound = sorted((r for r in roles if r.startswith(JUDGE_ROLE)), key=len)
        raise InputError(
            f"model role {missing[0]} is missing: the judge panel's roles are {PANEL_PATTERN} "
            f"without gaps; bound: {', '.join(bound)}"
        )
    return panel


def judge_bound() -> bool:
    """Whether the role `judge` is bound: without it no draft is judged."""
    return JUDGE_ROLE in model_roles()


def checked_panel(roles: Mapping[str, Model | list[Model]]) -> tuple[str, ...]:
    """The judge panel's roles among `model_roles()`, in panel order; each must name one model."""
    panel = panel_roles(roles)
    for role in panel:
        if isinstance(roles[role], list):
            raise InputError(
                f"model role {role} is bound to a list of models; bind one model per role "
                f"({PANEL_PATTERN})"
            )
    return panel


def made_in_eval() -> bool:
    """Whether the task being made is made inside its eval (its model is known)."""
    return active_model() is not None


def panel_at_creation(allowed: bool) -> dict[str, object]:
    """The judge panel and its self-judging, for the task metadata, where the task is made
    inside its eval (the roles checked, the self-judging line said); empty where it is made
    before its eval (`eval(attunebench(), model_roles=...)`), whose solver does both as the
    first sample starts."""
    model = active_model()
    if model is None:
        return {}
    roles = model_roles()
    panel = checked_panel(roles)
    credentials = credentials_problem(model, *(m for r in panel for m in _models(roles[r])))
    if credentials is not None:
        raise InputError(credentials)
    judges = {role: str(roles[role]) for role in panel}
    related = say_self_judging(str(model), judges, allowed)
    return {"judges": judges, "self_judge": related}


def _models(bound: Model | list[Model]) -> list[Model]:
    return bound if isinstance(bound, list) else [bound]


def self_judging(model: str, judges: Mapping[str, str]) -> dict[str, SelfJudge]:
    """model role -> how that judge relates to the evaluated model: the same model or family."""
    found = {role: self_judge(model, judge) for role, judge in judges.items()}
    return {role: relation for role, relation in found.items() if relation is not None}


def self_judge_line(model: str, judges: Mapping[str, str], related: Mapping[str, SelfJudge]) -> str:
    named = "; ".join(f"{role} {judges[role]} ({relation})" for role, relation in related.items())
    return (
        f"self-judging: the judge panel has the evaluated model {model} or its family: "
        f"{named}; its draft ratings may favour its own writing (-T allow_self_judge=true if "
        "meant)"
    )


def say_self_judging(
    model: str, judges: Mapping[str, str], allowed: bool, *, said: set[str] | None = None
) -> dict[str, SelfJudge]:
    """Self-judging in this run, in one line: printed when the task is made (before Inspect's
    display starts, so the line stays one line), or else logged by the solver once per run
    (`said`: the lines already logged)."""
    related = self_judging(model, judges)
    line = self_judge_line(model, judges, related) if related and not allowed else None
    if line is not None and (said is None or line not in said):
        if said is None:
            print(line, file=sys.stderr)
        else:
            said.add(line)
            logger.warning(line)
    return related


async def judge_draft(
    judge: Model,
    conv: VisibleConversation,
    turn: VisibleTurn,
    draft: str,
    codebook: Codebook,
    policy: RequestPolicy | None = None,
    spine: Sequence[str] | None = None,
    role: str = JUDGE_ROLE,
) -> CallRecord:
    """A judge's ratings of one turn's draft against the participant's own edited response,
    and its answers to the turn's binary questions about the draft. The conversation's blocks
    come first, as in every analysis call (each judge's own cache chain); a walk passes the
    `spine` it built once. The record carries the judge's model `role`."""
    schema = judge_schema(tuple(turn.binary_question_ids))
    count = prompts.upto(turn.turn_number, reply=False)
    spine = spine if spine is not None else prompts.spine(conv)
    messages: list[ChatMessage] = [
        ChatMessageSystem(content=prompts.JUDGE_SYSTEM),
        ChatMessageUser(content=blocks(spine[:count], breakpoints("judge", count))),
        ChatMessageUser(content=prompts.judge_task(turn, draft, codebook, schema.shape)),
    ]
    return await ask(
        judge,
        messages,
        schema,
        call="judge",
        turn=turn.turn_number,
        policy=policy or request_policy(judge, "auto", conv.conversation_id),
        role=role,
    )
