"""Offline models that Inspect runs like any other: the baselines (`attunebench/random`,
`attunebench/majority`), the replay of a person's answer file (`human/<annotator>`), and the
contamination probe's test instruments (`memorizer/recall`, `memorizer/echo`,
`memorizer/paraphrase`).

Only names here, so that a reader of logs can tell a run's kind of model without importing
Inspect's model machinery; the providers register from `_registry`.
"""

BASELINE_PROVIDER = "attunebench"
"""The provider of the offline baselines: `attunebench/random`, `attunebench/majority`."""
HUMAN_PROVIDER = "human"
"""The provider of replayed answer files: a run's model is `human/<annotator>`."""
MEMORIZER_PROVIDER = "memorizer"
"""The provider of the contamination probe's planted models (test instruments, not baselines):
`memorizer/recall`, `memorizer/echo`, `memorizer/paraphrase`."""


def is_human(model: str) -> bool:
    """Whether a run's model is a replayed answer file (a person, or another harness)."""
    return model.startswith(HUMAN_PROVIDER + "/")


__all__ = ["BASELINE_PROVIDER", "HUMAN_PROVIDER", "MEMORIZER_PROVIDER", "is_human"]
