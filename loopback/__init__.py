"""Test and benchmark instruments, not shipped in the wheel: a loopback server that speaks
OpenAI's and Anthropic's APIs as their documentation describes them (faults, each provider's
prompt cache, answers from a schema or a stated shape) and their batch APIs."""
