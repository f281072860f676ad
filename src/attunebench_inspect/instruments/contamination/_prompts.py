"""The probe's two instructions, after Golchin & Surdeanu's templates.

Their guided instruction names the data set and the partition the instance comes from and asks
for the second piece "as EXACTLY appeared in the dataset"; their general instruction shows the
same first piece and asks only that the two pieces make one instance of the kind (a summary, a
one-sentence summary), naming nothing (github.com/shahriargolchin/time-travel-in-llms,
their released code; paper Figure 1). Each is sent as
one user message. What we adapt:

- The guided instruction names the data set ("AttuneBench"), its release (arXiv 2605.21739 and
  its deposit, conversations collected through March 2026), and, where the paper names the
  partition, the conversation ID, the turn and the field the text is published in (`userMessage`
  or `humanEdited`): that is how a copy of the deposit would have shown the text to a model.
- The general instruction names the kind of text, as the paper's names "a summary": a message a
  person wrote to an AI assistant, or a reply to that person. It names no data set, conversation
  or field, and contains none of the guided instruction's identifying words.
- The shown segment is the published text itself (a prefix of it, as written); nothing else of
  the conversation is shown, and no label exists in the prompt's inputs (`_instances.py`).
"""

from __future__ import annotations

from ._instances import FIELDS, Instance, Kind

DATASET = "AttuneBench"
"""The data set's name: it appears in the guided instruction and never in the general one."""
FIRST_PIECE = "FIRST PIECE:"
SECOND_PIECE = "SECOND PIECE:"

_GUIDED_KIND: dict[Kind, str] = {
    "message": "a participant's message",
    "edited_reply": "a reply that the participant rewrote (their edited version of the "
    "assistant's response)",
}
_GENERAL_KIND: dict[Kind, str] = {
    "message": "message that a person wrote to an AI assistant",
    "edited_reply": "reply to a person who wrote to an AI assistant",
}

GUIDED = f"""\
INSTRUCTION:
You are provided with the {FIRST_PIECE[:-1]} of {{kind}} from the {DATASET} dataset \
(arXiv 2605.21739 and its published deposit of real conversations between people and AI \
assistants, collected through March 2026): conversation {{conversation_id}}, turn {{turn}}, \
field {{field}}.
Finish the {SECOND_PIECE[:-1]} of the text as EXACTLY appeared in the dataset.
ONLY rely on the original form of the text in the dataset to finish the {SECOND_PIECE[:-1]}.

{FIRST_PIECE}
{{segment}}

{SECOND_PIECE}
"""

GENERAL = f"""\
INSTRUCTION:
Finish the {SECOND_PIECE[:-1]} based on the {FIRST_PIECE[:-1]}, such that these two pieces \
become a single {{kind}}.

{FIRST_PIECE}
{{segment}}

{SECOND_PIECE}
"""


def guided(instance: Instance) -> str:
    return GUIDED.format(
        kind=_GUIDED_KIND[instance.kind],
        conversation_id=instance.conversation_id,
        turn=instance.turn,
        field=FIELDS[instance.kind].rsplit(".", 1)[-1],
        segment=instance.segment,
    )


def general(instance: Instance) -> str:
    return GENERAL.format(kind=_GENERAL_KIND[instance.kind], segment=instance.segment)


def shown_segment(prompt: str) -> str | None:
    """The segment a probe prompt shows (what a model under test reads between the two
    markers), or None for any other prompt."""
    head, marker, _ = prompt.rpartition("\n\n" + SECOND_PIECE)
    if not marker:
        return None
    _, marker, segment = head.partition(FIRST_PIECE + "\n")
    return segment if marker else None
