"""Consumes the strings an agent put into a record, produces them safe to write and stable: secrets
replaced by ``[redacted]``, memory addresses, LangGraph's task ids, AutoGen's team ids, the port
and key of the harness's loopback URLs and the paths of its temporary folders masked, the files
of a Python traceback under the working directory named relative to it, as an agent's own
traceback names them (`unsolvable._traceback`; a worker has named the Python files of a run's
output so before it cut the output, `unsolvable._worker`).

Applied once to the whole record, where it leaves the run (`unsolvable.run`) or where the harness
receives it from the worker process that made it (`unsolvable._batch`), so that every written
form (JSON, Markdown, HTML, OTLP, ATIF, JUnit, snapshots, the terminal) gets it and none can
forget it. Secrets are the values of environment variables whose names
look secret — read when the redactor is made, before the agent runs, so that an agent that
removes its key from ``os.environ`` is still redacted — in their JSON-escaped forms too (tool
arguments are JSON text), percent-encoded and base64-encoded (a URL's query, an ``Authorization:
Basic`` header), and ``sk-…`` API keys, ``Bearer …`` tokens and the user:password part
of URLs: an agent that echoes its credentials must not publish them in a CI artifact. A text is
cut to fit before it is redacted, and a cut may fall inside a secret: the piece of one beside an
ellipsis, where a cut was, is redacted too.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
import tempfile
import urllib.parse
from collections.abc import Callable
from enum import Enum
from typing import Any

from unsolvable._run_key import KEY_BYTES
from unsolvable._text import ELLIPSIS

__all__ = ["ADDRESS", "REDACTED", "Clean", "Redactor", "cleaned", "kept", "mask_addresses"]

REDACTED = "[redacted]"
ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
"""A CPython object address in a repr (``<Foo object at 0x7f…>``): different on every run."""
MASKED_ADDRESS = "0x…"
TASK_ID = re.compile(
    r"(During task with name '[^'\n]*' and id ')"
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'"
)
"""The note LangGraph adds to an exception a graph's task raised (``pregel/_retry.py``): the id is
hashed from the run's checkpoint id, new on every run. Only the id in that note is masked."""
MASKED_TASK_ID = r"\1…'"
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
TEAM_ID = re.compile(rf"(Error processing publish message for [^\s/]*_){UUID}/{UUID}\b")
"""The line AutoGen's runtime logs when a handler raises (``_single_threaded_agent_runtime.py``),
naming the agent ``<name>_<team id>/<team id>``: a team's id is a new uuid on every run
(``BaseGroupChat``). Only the ids in that line are masked."""
MASKED_TEAM_ID = r"\1…/…"
RUN_KEY = rf"[0-9a-f]{{{2 * KEY_BYTES}}}(?![0-9a-f])"
LOOPBACK_URL = re.compile(
    rf"(?<![\w.])((?:https?://)?(?:127\.0\.0\.1|localhost|\[::1\])):[0-9]+(/{RUN_KEY})?"
)
"""A loopback URL the harness hands an agent (the wire's, the MCP server's), as an agent that logs
its requests or its errors prints it, with its scheme or without (``Cannot connect to host
127.0.0.1:…``, aiohttp's): the port is the system's pick and the first segment the run's key
(`unsolvable._run_key`), both new on every run. Only the port and the key are masked."""
LOOPBACK_PORTS = (
    (re.compile(r"(\('(?:127\.0\.0\.1|localhost|::1)', )[0-9]+\)"), r"\1…)"),
    (re.compile(r"(host='(?:127\.0\.0\.1|localhost|::1)', port=)[0-9]+"), r"\1…"),
    (re.compile(rf"(with url: /){RUN_KEY}"), r"\1…"),
)
"""The other ways Python's HTTP clients name a loopback address when a connection fails: the
socket's address (``Connect call failed ('127.0.0.1', …)``, asyncio's), and urllib3's pool and
the path it asked for (``HTTPConnectionPool(host='127.0.0.1', port=…): Max retries exceeded
with url: /…/v1/…``, as `requests` raises it)."""
REQUEST_PATH = re.compile(rf"(path: /){RUN_KEY}(?=/(?:v1|v1beta|tools|agents|mcp)\b)")
"""The path a request asked for, as the anthropic SDK names it in a status error's text
(``(request_id: …, path: /…/v1/messages, …)``), with no host: the run's key, followed by one of
the loopback server's routes, is masked."""
MASKED_FOLDER = r"$TMPDIR/\1…"
"""A temporary folder of the harness's (`Redactor`), as it reads on any machine."""
SECRET_NAME = re.compile(
    r"(KEYS?|_PWD|_PAT|_AUTH|_DSN)$|(API|PRIVATE)_?KEY|PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN"
    r"|CREDENTIAL|WEBHOOK",
    re.IGNORECASE,
)
"""Environment variable names whose values are credentials: ``*_KEY`` and ``*_KEYS``
(``OPENAI_API_KEY``, ``AWS_SECRET_ACCESS_KEY``, ``GEMINI_API_KEYS``), any name with ``API_KEY``
or ``PRIVATE_KEY`` in it (``OPENAI_API_KEY_2``, ``SSH_PRIVATE_KEY_B64``), with ``TOKEN``,
``SECRET``, ``PASSWORD``, ``CREDENTIAL`` or ``WEBHOOK`` (``GITHUB_TOKEN``, ``PGPASSWORD``,
``GOOGLE_APPLICATION_CREDENTIALS``, ``SLACK_WEBHOOK_URL``: its URL is its key), and
``MYSQL_PWD``, ``GITHUB_PAT``, ``NPM_CONFIG__AUTH``, ``SENTRY_DSN``."""
ESCAPE_LEVELS = 2
"""How many times a secret may have been written into a JSON string and still be found: once
for a tool's arguments (JSON text), twice for a JSON document an agent passed as an argument."""
URL_SAFE = str.maketrans("+/", "-_")
"""Base64's URL-safe alphabet, from the standard one."""
MIN_SECRET_LENGTH = 8
"""Shorter values (``1``, ``true``, an empty test token) would redact ordinary words; real
credentials are far longer."""
PATTERNS = (
    ("sk-", re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), REDACTED),
    ("bearer", re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/=-]+", re.IGNORECASE), rf"\1 {REDACTED}"),
    (
        "://",
        re.compile(r"\b([a-z][a-z0-9+.-]*://)[^/\s:@]*(:[^/\s]*)?@", re.IGNORECASE),
        rf"\1{REDACTED}@",
    ),
)
"""Credential shapes that need no environment to be recognised: OpenAI/Anthropic-style keys,
HTTP bearer tokens, ``scheme://user:password@host`` (up to the host's ``@``, the last before the
path: a password may hold an ``@``; and with no user, as Redis URLs give one); each with the
text it cannot match without (lower case), so that most strings are never searched: every string
of every record is cleaned as the record leaves its run."""


Clean = Callable[[str], str]
"""What a string of a record is made to read (`Redactor.text`, or `kept`)."""


def kept(text: str) -> str:
    """The `Clean` that changes nothing."""
    return text


def cleaned(value: Any, clean: Clean) -> Any:
    """Strings inside lists, tuples and dicts passed through ``clean``, dict keys too; enum
    members and other values as they are; every container made anew."""
    if isinstance(value, Enum):
        return value
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list | tuple):
        return type(value)(cleaned(item, clean) for item in value)
    if isinstance(value, dict):
        return {cleaned(key, clean): cleaned(item, clean) for key, item in value.items()}
    return value


@functools.cache
def _is_secret_name(name: str) -> bool:
    return SECRET_NAME.search(name) is not None


def mask_addresses(text: str) -> str:
    return ADDRESS.sub(MASKED_ADDRESS, text) if "0x" in text else text


def mask_task_ids(text: str) -> str:
    return TASK_ID.sub(MASKED_TASK_ID, text) if "During task" in text else text


def mask_team_ids(text: str) -> str:
    return TEAM_ID.sub(MASKED_TEAM_ID, text) if "publish message for" in text else text


def mask_loopback_urls(text: str) -> str:
    if "path: /" in text:
        text = REQUEST_PATH.sub(r"\1…", text)
    if "127.0.0.1" not in text and "localhost" not in text and "::1" not in text:
        return text
    text = LOOPBACK_URL.sub(_masked_url, text)
    for pattern, replacement in LOOPBACK_PORTS:
        text = pattern.sub(replacement, text)
    return text


def _masked_url(url: re.Match[str]) -> str:
    return f"{url[1]}:…" + ("/…" if url[2] else "")


def _harness_folders(where: str) -> re.Pattern[str]:
    """The temporary folders the harness makes for a run under ``where`` (an ``exec:`` agent's
    MCP config, a coding agent's home and work folder): ``tempfile`` names them by a prefix of
    ours and eight random characters, and ``where`` is ``TMPDIR``, which differs by machine."""
    return re.compile(
        re.escape(os.path.join(where, "")) + r"(unsolvable-(?:[a-z]+-)?)[a-z0-9_]{8}\b"
    )


def _written_forms(secret: str) -> set[str]:
    """``secret`` as it reads inside JSON strings, escaped once or twice, with and without
    ``\\uXXXX`` for what is not ASCII: a quote, a backslash or an accented letter must not let
    it through a tool's arguments."""
    forms, level = {secret}, {secret}
    for _ in range(ESCAPE_LEVELS):
        level = {json.dumps(f, ensure_ascii=a)[1:-1] for f in level for a in (True, False)}
        forms |= level
    return forms


def _encoded_forms(secret: str) -> set[str]:
    """``secret`` as an agent's HTTP client or log may write it: percent-encoded (in a URL or a
    form), and base64-encoded inside a longer text, as an ``Authorization: Basic`` header holds
    a password: for each of the three places the secret may start at within base64's groups of
    three bytes, the characters its own bits alone make, in the standard and the URL-safe
    alphabets. Those too short to tell apart from other text are left out."""
    raw = secret.encode()
    forms = {urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret, safe="")}
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + raw).decode()
        first = (4 * offset + 2) // 3  # the first character no byte before the secret feeds
        last = 4 * (offset + len(raw)) // 3  # past the last one the secret's bytes fill alone
        forms |= {encoded[first:last], encoded[first:last].translate(URL_SAFE)}
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


def _here(cwd: str) -> str | None:
    """How a Python traceback names a file under the working directory (``File
    "/home/ci/project/``), as an ``exec:`` agent's names its script: where the project is
    checked out differs by machine, so a record names it relative, as `unsolvable._traceback`
    does. Only a traceback's file: a path elsewhere in a text (a scenario's ``/tmp/q3.md`` run
    from ``/tmp``, an ``exec:`` agent's script in its label) is data, the same wherever the
    command runs. ``None`` at the file system's root, under which every path lies."""
    return None if os.path.dirname(cwd) == cwd else f'File "{os.path.join(cwd, "")}'


def _lengths(secret: str) -> range:
    """The lengths of the pieces of ``secret`` a cut may leave that are redacted, longest first:
    half of it or more. A shorter piece leaves the rest unknown, and would be as common as the
    ``https://`` a URL's secret starts with, whose redaction would change records by where
    they run."""
    return range(len(secret) - 1, (len(secret) - 1) // 2, -1)


class Redactor:
    """Cleans strings and JSON-like data of the secrets of one environment, read once (the
    process's own when none is given)."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        environ = dict(os.environ) if environ is None else environ
        values = {v for k, v in environ.items() if _is_secret_name(k)}
        kept = [v for v in values if len(v) >= MIN_SECRET_LENGTH]
        forms = {f for v in kept for f in _written_forms(v) | _encoded_forms(v)}
        # Longest first: a secret that contains another is replaced whole.
        self.secrets = sorted(forms, key=len, reverse=True)
        self.folders = _harness_folders(tempfile.gettempdir())
        self.here = _here(os.getcwd())

    def text(self, text: str) -> str:
        """``text`` with every secret replaced; every address, LangGraph task id, AutoGen team
        id, loopback URL's port and key and temporary folder of the harness masked; every file
        of a Python traceback under the working directory named relative to it (`_here`)."""
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        if ELLIPSIS in text and self.secrets:
            text = self._cut_pieces(text)
        folded = text.lower()
        for needed, pattern, replacement in PATTERNS:
            if needed in folded:
                text = pattern.sub(replacement, text)
        if "unsolvable-" in text:
            text = self.folders.sub(MASKED_FOLDER, text)
        if self.here is not None and self.here in text:
            text = text.replace(self.here, 'File "')
        return mask_loopback_urls(mask_team_ids(mask_task_ids(mask_addresses(text))))

    def _cut_pieces(self, text: str) -> str:
        """``text`` with the piece of a secret a cut left beside each ellipsis redacted: a
        secret's start before it (a text cut to its start, `cut`), its end after it (a text
        kept by its end)."""
        parts = text.split(ELLIPSIS)
        for index in range(len(parts) - 1):
            parts[index] = self._without_start(parts[index])
            parts[index + 1] = self._without_end(parts[index + 1])
        return ELLIPSIS.join(parts)

    def _without_start(self, text: str) -> str:
        """``text`` with the longest start of a secret it ends with redacted."""
        last = text[-1:]
        found = max(
            (
                n
                for s in self.secrets
                for n in _lengths(s)
                if s[n - 1] == last and text.endswith(s[:n])
            ),
            default=0,
        )
        return text[: len(text) - found] + REDACTED if found else text

    def _without_end(self, text: str) -> str:
        """``text`` with the longest end of a secret it starts with redacted."""
        first = text[:1]
        found = max(
            (
                n
                for s in self.secrets
                for n in _lengths(s)
                if s[-n] == first and text.startswith(s[-n:])
            ),
            default=0,
        )
        return REDACTED + text[found:] if found else text

    def optional(self, text: str | None) -> str | None:
        return None if text is None else self.text(text)

    def data(self, value: Any) -> Any:
        """Strings inside lists, tuples and dicts cleaned, dict keys too (`cleaned`)."""
        return cleaned(value, self.text)
