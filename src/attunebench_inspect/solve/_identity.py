"""Self-judging: is a judge the evaluated model, or of its family, by Inspect model names alone?"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

SelfJudge = Literal["same model", "same family"]

_MAKER_ALIASES = {
    "meta-llama": "meta",
    "meta": "meta",
    "mistralai": "mistral",
    "mistral": "mistral",
    "deepseek-ai": "deepseek",
    "x-ai": "xai",
    "grok": "xai",
    "qwen": "qwen",
    "google": "google",
    "openai": "openai",
    "anthropic": "anthropic",
    "cohere": "cohere",
    "microsoft": "microsoft",
    "deepseek": "deepseek",
    "xai": "xai",
}
"""Path segments (a provider, or a router's organisation segment) that name a model's maker."""
_STEM_MAKERS = {
    "gpt": "openai",
    "chatgpt": "openai",
    "o": "openai",
    "claude": "anthropic",
    "gemini": "google",
    "gemma": "google",
    "llama": "meta",
    "mistral": "mistral",
    "mixtral": "mistral",
    "codestral": "mistral",
    "qwen": "qwen",
    "qwq": "qwen",
    "deepseek": "deepseek",
    "grok": "xai",
    "command": "cohere",
    "phi": "microsoft",
}
"""A family stem's maker, for providers that do not name it (azureai/gpt-4o, ollama/llama3)."""
_FINE_TUNE = re.compile(r"^ft:(?P<base>[^:]+):|^(?P<legacy>[^:]+):ft-")
"""A fine-tune's name and the model it was made from: OpenAI's and Mistral's
`ft:<base>:<org>:<suffix>:<id>`, OpenAI's legacy `<base>:ft-<org>-<date>`."""
_TIER_WORDS = {"open"}
"""Leading words of a model id that name a tier, not a family (Mistral's `open-mistral-7b`)."""
_SNAPSHOT = re.compile(r"(@.*|-v\d+(:\d+)?|-latest|-\d{4}-\d{2}-\d{2}|-\d{8}|-\d{4})$")
_BEDROCK_PREFIX = re.compile(r"^(?:[a-z]{2}\.)?([a-z-]+)\.(?=[a-z])")


@dataclass(frozen=True)
class ModelIdentity:
    maker: str | None
    """Who made the model (from the route, or the stem), None when unknown."""
    model: str
    """The model id without route, maker prefix or snapshot suffix."""
    family: str
    """The model id's leading letters (a fine-tune's: those of the model it was made from)."""
    base: str = ""
    """For a fine-tune, the model it was made from (snapshot stripped); else empty."""


def model_identity(name: str) -> ModelIdentity:
    """What a model name (Inspect's `provider/model`, routes such as `openrouter/maker/model`
    included) says about the model. Lower-cased, then:

    - maker: the first segment after the provider that names a maker (`openrouter/anthropic/..`,
      `together/meta-llama/..`), else the provider when it is a maker (`openai/..`), else a
      Bedrock-style prefix (`bedrock/us.anthropic.claude-..`), else the family's usual maker
      (`azureai/gpt-4o` -> openai), else None;
    - model: the last path segment without a Bedrock maker prefix, with snapshot suffixes
      stripped repeatedly: `@...`, `-v1:0`, `-latest`, a date (`-2024-08-06`, `-20240620`) or a
      4-digit snapshot (`-0613`). So gpt-4o-2024-08-06 -> gpt-4o, claude-3-5-sonnet@20240620 ->
      claude-3-5-sonnet; claude-opus-4-6 stays (single-digit version parts are a version, not a
      snapshot);
    - family: the model's first word's leading letters, after a leading maker or tier word
      (`Meta-Llama-3.1-70B` -> llama, `open-mistral-7b` -> mistral): gpt-4o, gpt-4.1-mini, gpt-5
      -> gpt; o1, o3-mini -> o; claude-opus-4-6, claude-3-5-sonnet -> claude; gemini-2.5-pro ->
      gemini; llama3.1:8b -> llama. Versions, sizes and tiers (mini, opus, 70b) never change the
      family: it is deliberately broad, since a judge favours its own family's writing
      (Panickssery et al. 2024);
    - a fine-tune (`ft:gpt-4o-mini-2024-07-18:org::id`, `davinci:ft-org-2023-01-01`) keeps its
      whole name as its model (it is not its base) and takes its family from its base
      (`base`): a fine-tune of gpt-4o-mini is of the gpt family."""
    segments = name.lower().split("/")
    provider, route, last = segments[0], segments[1:-1], segments[-1]
    bedrock = _BEDROCK_PREFIX.match(last)
    prefix_maker = _MAKER_ALIASES.get(bedrock.group(1)) if bedrock else None
    if prefix_maker:
        last = last[bedrock.end() :] if bedrock else last
    tuned = _FINE_TUNE.match(last)
    base = _stripped(tuned.group("base") or tuned.group("legacy")) if tuned else ""
    model = last if tuned else _stripped(last)
    words = [w for w in re.split(r"[-_.:\s]", base or model) if w]
    # A maker's name that is not itself a family (Meta-Llama, but not mistral-large).
    leading = words[0] in _MAKER_ALIASES and words[0] not in _STEM_MAKERS
    if len(words) > 1 and (leading or words[0] in _TIER_WORDS):
        words = words[1:]
    first = words[0] if words else model
    letters = re.match(r"[a-z]+", first)
    family = letters.group(0) if letters else first
    maker = next(
        (_MAKER_ALIASES[s] for s in route if s in _MAKER_ALIASES),
        _MAKER_ALIASES.get(provider) or prefix_maker or _STEM_MAKERS.get(family),
    )
    return ModelIdentity(maker, model, family, base)


def _stripped(model: str) -> str:
    """A model id without its snapshot suffixes (`-2024-08-06`, `@20240620`, `-latest`...)."""
    while (stripped := _SNAPSHOT.sub("", model)) != model and stripped:
        model = stripped
    return model


def self_judge(evaluated: str, judge: str) -> SelfJudge | None:
    """Whether `judge` is the evaluated model ("same model": the same model id of
    `model_identity`) or of its family ("same family"), makers agreeing or unknown; else None.
    A family of the same name from two known makers is not related. Examples: docs/stability.md,
    'Do the judges agree? (judge panel)'."""
    a, b = model_identity(evaluated), model_identity(judge)
    if a.maker is not None and b.maker is not None and a.maker != b.maker:
        return None
    if a.model == b.model:
        return "same model"
    if a.family == b.family:
        return "same family"
    return None
