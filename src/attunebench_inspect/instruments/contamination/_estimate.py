"""The contamination probe's requests, for `attunebench estimate --contamination` (and
`--contamination_layout`, `--contamination_likelihood`).

The probe's calls are simple: for every text long enough to probe, one guided and one general
call, each the one user message the probe's solver sends (`request`), with no response schema,
all at once. They are built offline from the probe's own instances and prompts, and priced like
a mode's requests (through each provider's cache, under its batch API). The answer assumed is a
completion as long as the text's unseen rest (a model asked to finish a text writes about that
much; the probe caps a call at 500 tokens).
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai.model import ChatMessage

from ..._util.bundled import bundled_conversations_dir
from ...data._codebook import Codebook
from ...data._load import load_conversations
from ...data._problems import InputError
from ...data._split import VisibleConversation, VisibleTurn, split
from ...solve._call_record import ProbeCall
from ...tools.estimate._capture import Request
from ...tools.estimate._command import PricedTask
from ._instances import nothing_to_probe, select
from ._layout import layout_instances
from ._likelihood import CANARY, decoy_ids, decoy_prompts, decoy_window
from ._likelihood_route import request as likelihood_request
from ._solver import INSTRUCTIONS, layout_calls, layout_request, request


def _visible(
    data: str | None, codebook: Codebook
) -> tuple[Path, list[tuple[str, VisibleConversation]]]:
    """`data` (default: the bundled set) and the visible part of each of its conversations, by
    its source file."""
    source = Path(data) if data is not None else bundled_conversations_dir()
    loaded = load_conversations(source, codebook).conversations
    return source, [(c.source, split(c.conversation)[0]) for c in loaded]


def _request(call: ProbeCall, turn: int | None, chat: list[ChatMessage], answer: str) -> Request:
    """A call of the probe: no response schema, so no free-text field."""
    return Request(
        call=call, turn=turn, chat=tuple(chat), response_schema=None, answer=answer, free_text=0
    )


def probe_requests(data: str | None, codebook: Codebook, seed: int = 0) -> list[list[Request]]:
    """Per conversation of `data` (default: the bundled set), the probe's requests for `seed`;
    raises InputError where no text is long enough to probe."""
    source, visible = _visible(data, codebook)
    instances = select(visible, seed).instances
    if not instances:
        # The probe runs and says it cannot decide; a bill of no call is no estimate.
        raise InputError(nothing_to_probe(visible, str(source)))
    requests: dict[str, list[Request]] = {conv.conversation_id: [] for _, conv in visible}
    for instance in instances:
        requests[instance.conversation_id] += [
            _request(call, instance.turn, request(instance, call), instance.reference)
            for call in INSTRUCTIONS
        ]
    return list(requests.values())


def _assumed(call: ProbeCall, turn: VisibleTurn) -> str:
    """A layout call's assumed answer: the turn's message at the text cut; at the label cut the
    labels and the alternates that follow, about as long as the original response."""
    return turn.om_response if call.startswith("layout_labels") else turn.user_message


def layout_requests(data: str | None, codebook: Codebook, seed: int = 0) -> list[list[Request]]:
    """Per conversation of `data` (default: the bundled set), the files-layout probe's requests:
    four per turn (the document's start and its control's at the text cut and at the label
    cut), the answer assumed as long as the turn's message at the text cut and as its original
    response at the label cut."""
    found = []
    for _, visible in _visible(data, codebook)[1]:
        turns = {t.turn_number: t for t in visible.turns}
        found.append(
            [
                _request(
                    call, layout.turn, layout_request(prefix), _assumed(call, turns[layout.turn])
                )
                for layout in layout_instances(visible, seed)
                for call, prefix in layout_calls(layout)
            ]
        )
    return found


def likelihood_requests(data: str | None, codebook: Codebook, seed: int = 0) -> list[list[Request]]:
    """Per conversation of `data` (default: the bundled set), the likelihood method's requests
    without a control set (the decoy-ID test): the canary, then the start of the conversation's
    file under its real ID and each decoy; each answered with one token."""
    found = []
    for _, visible in _visible(data, codebook)[1]:
        real = visible.conversation_id
        prompts = [CANARY, *decoy_prompts(decoy_window(visible), real, decoy_ids(real, seed))]
        found.append([_request("likelihood", None, likelihood_request(p), ".") for p in prompts])
    return found


PRICED = PricedTask(
    name="contamination",
    help="also bill the contamination probe (attunebench_inspect/contamination) on the same "
    "data: two calls per probed text (docs/contamination.md)",
    assumption="contamination: the contamination probe (attunebench_inspect/contamination, "
    "seed 0), two calls per participant message or edited reply of 20 words or more, each one "
    "user message without a response schema, all at once; its output a completion as long as "
    "the text's unseen rest (a call is capped at 500 tokens).",
    requests=probe_requests,
)
"""The probe on the estimate's bill: `attunebench estimate --contamination`."""

LAYOUT_PRICED = PricedTask(
    name="contamination_layout",
    help="also bill the contamination probe's files-layout calls (-T methods=guided,layout): "
    "four calls per turn, each showing the conversation's document up to the turn's message or "
    "its labels' key "
    "(docs/contamination.md)",
    assumption="contamination_layout: the files-layout probe (seed 0), four calls per turn (the "
    "document in the files' layout up to the turn's message, and up to its labels' key after "
    "the original response, and the never-published control of each), each the instruction and "
    "the document's start as the assistant's text; its output as long as the turn's message "
    "(text cut) or its original response (label cut; a call is capped at 200 tokens).",
    requests=layout_requests,
)
"""The layout probe on the estimate's bill: `attunebench estimate --contamination_layout`."""

LIKELIHOOD_PRICED = PricedTask(
    name="contamination_likelihood",
    help="also bill the contamination probe's likelihood calls (-T methods includes "
    "likelihood by default): on a provider that scores a given text, 21 one-token calls per "
    "conversation (docs/contamination.md)",
    assumption="contamination_likelihood: the likelihood method's decoy-ID test (seed 0; the "
    "default without -T likelihood_control), on a provider that scores a given text (Inspect's "
    "openai-api-completions or vllm-completions): per conversation one call scoring a counting "
    "sequence, then the start of its file (up to the first message) under its real ID and 19 "
    "random ones; each the text alone as the prompt, one output token. With -T "
    "likelihood_control, one call per published text of both data sets instead of the 20 "
    "windows. Any other provider is sent no call.",
    requests=likelihood_requests,
)
"""The likelihood method on the bill: `attunebench estimate --contamination_likelihood`."""
