"""The human baseline (docs/human-baseline.md): an offline page of the protocol's questions
(`_export.py`, `page.html`), the answer files it saves (`_answers.py`, `answers.schema.json`),
their replay as an ordinary Inspect model `human/<annotator>` (`_replay.py`) and their import
as runs (`_imports.py`); in the report, each person beside each model (`_comparison.py`,
`_section.py`); the `attunebench human` command (`_cli.py`).
"""

from ._replay import human_replay

DOC = "docs/human-baseline.md"

__all__ = ["DOC", "human_replay"]
