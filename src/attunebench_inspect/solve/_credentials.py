"""A model base URL that carries credentials (`http://user:pass@host`), which Inspect would write
into the log header as given: a task made inside its eval stops the run before the header is
written (`credentials_problem`), one made before its eval warns as the run starts."""

from __future__ import annotations

import logging
from urllib.parse import urlsplit, urlunsplit

from inspect_ai.model import Model

logger = logging.getLogger(__name__)


def masked(url: str) -> str | None:
    """`url` with its password (or token) masked, None where it carries no credentials."""
    parts = urlsplit(url)
    if not (parts.username or parts.password):
        return None
    port = f":{parts.port}" if parts.port else ""
    netloc = f"{parts.username or ''}:***@{parts.hostname or ''}{port}"
    return urlunsplit(parts._replace(netloc=netloc))


ADVICE = (
    "pass the key as the provider's API key variable (e.g. OPENAI_API_KEY) and a base URL "
    "without it"
)


def credentials_problem(*models: Model) -> str | None:
    """The line that stops a run whose model's base URL carries credentials, before Inspect
    writes it into the log header; None where none does."""
    for model in models:
        url = model.api.base_url
        shown = masked(url) if url else None
        if shown is not None:
            return (
                f"the model base URL {shown} carries credentials, which Inspect would write into "
                f"the log header (eval.model_base_url); {ADVICE}"
            )
    return None


def warn_credentials(warned: set[str], *models: Model) -> None:
    """Warn, once per URL and run, of each model whose base URL carries credentials (`warned`:
    the solver's, made with its task, holds the URLs already warned of)."""
    for model in models:
        url = model.api.base_url
        shown = masked(url) if url else None
        if url is None or shown is None or url in warned:
            continue
        warned.add(url)
        logger.warning(
            f"the model base URL {shown} carries credentials: Inspect writes it into the log "
            f"header (eval.model_base_url) as given; {ADVICE}"
        )
