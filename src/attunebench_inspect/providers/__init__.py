"""The offline baselines: `attunebench/random` (the chance row) and `attunebench/majority`."""

BASELINE_PROVIDER = "attunebench"
"""The provider of the offline baselines: `attunebench/random`, `attunebench/majority`."""

__all__ = ["BASELINE_PROVIDER"]
