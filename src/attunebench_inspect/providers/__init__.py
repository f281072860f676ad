"""The offline baselines Inspect runs like any other model: `attunebench/random`, the chance row
of every report, and `attunebench/majority` (`_baselines.py`). They register from `_registry`."""

BASELINE_PROVIDER = "attunebench"
"""The provider of the offline baselines: `attunebench/random`, `attunebench/majority`."""

__all__ = ["BASELINE_PROVIDER"]
