"""Consumes the strings an agent put into a record, produces them safe to write and stable: secrets
replaced by ``[redacted]`` and memory addresses masked.

Applied once, where a `TerminationRecord` is made, so that every written form (JSON, Markdown,
HTML, snapshots, the terminal) gets it and none can forget it. Secrets are the values of
environment variables whose names look secret, ``sk-…`` API keys, ``Bearer …`` tokens and the
user:password part of URLs; an agent that echoes its credentials into a reason or an exception
message must not publish them in a CI artifact.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

__all__ = ["ADDRESS", "REDACTED", "Redactor", "mask_addresses"]

REDACTED = "[redacted]"
ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
"""A CPython object address in a repr (``<Foo object at 0x7f…>``): different on every run."""
MASKED_ADDRESS = "0x…"
SECRET_NAME = re.compile(r".*_(API_KEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
"""Environment variable names whose values are credentials (``OPENAI_API_KEY``, ``GH_TOKEN``)."""
MIN_SECRET_LENGTH = 8
"""Shorter values (``1``, ``true``, an empty test token) would redact ordinary words; real
credentials are far longer."""
PATTERNS = (
    ("sk-", re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), REDACTED),
    ("bearer", re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/=-]+", re.IGNORECASE), rf"\1 {REDACTED}"),
    (
        "://",
        re.compile(r"\b([a-z][a-z0-9+.-]*://)[^/\s:@]+(:[^/\s@]*)?@", re.IGNORECASE),
        rf"\1{REDACTED}@",
    ),
)
"""Credential shapes that need no environment to be recognised: OpenAI/Anthropic-style keys,
HTTP bearer tokens, ``scheme://user:password@host``; each with the text it cannot match without
(lower case), so that most strings are never searched: a record is cleaned every time it is
made, also when the harness rebuilds one a worker sent."""


@functools.cache
def _is_secret_name(name: str) -> bool:
    return SECRET_NAME.match(name) is not None


def mask_addresses(text: str) -> str:
    return ADDRESS.sub(MASKED_ADDRESS, text) if "0x" in text else text


class Redactor:
    """Cleans strings and JSON-like data; reads the secret environment variables once."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        environ = dict(os.environ) if environ is None else environ
        values = {v for k, v in environ.items() if _is_secret_name(k)}
        # Longest first: a secret that contains another is replaced whole.
        self.secrets = sorted((v for v in values if len(v) >= MIN_SECRET_LENGTH), key=len)[::-1]

    def text(self, text: str) -> str:
        """``text`` with every secret replaced and every address masked."""
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        folded = text.lower()
        for needed, pattern, replacement in PATTERNS:
            if needed in folded:
                text = pattern.sub(replacement, text)
        return mask_addresses(text)

    def optional(self, text: str | None) -> str | None:
        return None if text is None else self.text(text)

    def data(self, value: Any) -> Any:
        """Strings inside lists, tuples and dicts (keys too) cleaned; other values as they are."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list | tuple):
            return type(value)(self.data(item) for item in value)
        if isinstance(value, dict):
            return {self.data(key): self.data(item) for key, item in value.items()}
        return value
