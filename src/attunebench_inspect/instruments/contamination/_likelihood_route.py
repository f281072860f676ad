"""The likelihood method's route through Inspect (thin): what a call sends to score a given
text, and how the text's token log-probabilities are read back from the `ModelOutput`.

Two of Inspect's routes return the log-probability of a *prompt's* tokens
(docs/contamination.md, "The likelihood method: design"):

- the completions providers (`openai-api-completions/<service>/<model>`, `vllm-completions`)
  with `echo` sent through `extra_body` and `logprobs`: the server returns the prompt's tokens
  before the generated one, in the completions format, which Inspect parses into
  `choices[0].logprobs` (the first prompt token, whose entry is null, left out);
- `prompt_logprobs` (vLLM's extension, SGLang): `choices[0].prompt_logprobs`, the first
  token left out the same way.

Every other route (OpenAI's and Anthropic's chat, llama-server) returns log-probabilities of
generated tokens only, or none: `text_logprobs` then gives None, which the method reads as
"cannot decide: <provider> gives no log-probability of a given text".
"""

from __future__ import annotations

from inspect_ai.model import GenerateConfig, ModelOutput

SCORE_CONFIG = GenerateConfig(
    max_tokens=1,
    temperature=0.0,
    logprobs=True,
    top_logprobs=1,
    extra_body={"echo": True},
)
"""A call that scores its prompt: one generated token (llama-cpp-python reads 0 as "no limit"),
echo of the prompt with each token's log-probability. vLLM answers the same request; its
`prompt_logprobs` is not sent, since llama-cpp-python has no such field."""


def text_logprobs(output: ModelOutput, prompt: str) -> tuple[tuple[str, float], ...] | None:
    """Each token of `prompt` after the first, with its log-probability, as the route returned
    them; None where the output holds no log-probability of the prompt (no logprobs, or those
    of the generated tokens only: the echo was not honoured)."""
    if not output.choices:
        return None
    choice = output.choices[0]
    if choice.prompt_logprobs is not None and choice.prompt_logprobs.content:
        return tuple((lp.token, lp.logprob) for lp in choice.prompt_logprobs.content)
    if choice.logprobs is None or not choice.message.text.startswith(prompt):
        return None
    # The prompt's entries come first (its first token's left out), then the generated
    # tokens' (vLLM; llama-cpp-python where the model's tokenizer adds a BOS token: without one
    # its echo is shifted and leaves the generated token out, which the route check reads).
    content = choice.logprobs.content
    generated = output.usage.output_tokens if output.usage is not None else 0
    given = content[: len(content) - generated] if generated else content
    return tuple((lp.token, lp.logprob) for lp in given) or None
