"""An agent that puts its credentials everywhere an agent can: what it prints, a tool's
arguments (one with a quote, a backslash and an accented letter, as JSON escapes them), its
reason, its partial result and what it says is missing; one of them it deletes from
``os.environ`` before naming it. It claims success, so its run fails and its output is kept."""

from __future__ import annotations

import os

from unsolvable import Code, Session, Stop

SECRETS = {
    "OPENAI_API_KEY": "live-openai-c0ffee01",
    "AWS_SECRET_ACCESS_KEY": "aws/Secret+Key=c0ffee02",
    "PGPASSWORD": 'pg"pa\\ss-wörd-c0ffee03',
    "AZURE_OPENAI_KEY": "azure-key-c0ffee04",
    "GITHUB_TOKEN": "ghp_token-c0ffee05",
    "DB_CREDENTIALS": "db-creds-c0ffee06",
    "OPENAI_API_KEY_2": "second-openai-c0ffee07",
    "GEMINI_API_KEYS": "gemini-one,gemini-two-c0ffee08",
    "SSH_PRIVATE_KEY_B64": "LS0tLS1CRUdJTiBPUEVO-c0ffee09",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0/B0/XyZ-c0ffee10",
    "DATABASE_URL": "postgres://admin:p@ss-c0ffee11@db.internal:5432/app",
    "REDIS_URL": "redis://:hunter2-c0ffee12@cache:6379/0",
}
"""The environment a test gives the harness; each value ends in its own mark, which no escaping
changes, so a mark found anywhere is a secret that leaked. The names of the last two do not look
secret: the password in each URL is found by its shape (an ``@`` in it, no user before it)."""
MARKS = [value.rpartition("-")[2] for value in SECRETS.values()]


def leaks(session: Session) -> Stop:
    values = {name: os.environ[name] for name in SECRETS}
    del os.environ["AWS_SECRET_ACCESS_KEY"]  # gone from the environment before it is named
    print("my keys:", *values.values())
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    session.call_tool("search_invoices", {"customer": values["PGPASSWORD"], "all": values})
    return Stop(
        code=Code.COMPLETED,
        reason=f"done with {values['AZURE_OPENAI_KEY']}",
        partial={values["GITHUB_TOKEN"]: list(values.values())},
        missing=[values["DB_CREDENTIALS"]],
    )


def _split_by(kept: int, secret: str) -> str:
    """Padding that makes a text of it and ``secret`` cut after ``kept`` characters split the
    secret before its last character."""
    return "x" * (kept - len(secret) + 1)


def leaks_at_cuts(session: Session) -> str:
    """Puts its key where each text a record keeps is cut to fit, so that every cut falls
    inside the key: its output's start, a tool's arguments' end, what it returns."""
    from unsolvable._capture import OUTPUT_CUT
    from unsolvable._run import RETURNED_CUT
    from unsolvable._text import ELLIPSIS
    from unsolvable._trajectory import TRAJECTORY_CUT

    secret = os.environ["OPENAI_API_KEY"]
    print(secret + _split_by(OUTPUT_CUT, secret), end="")
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    prefix = '{"customer": "'  # the arguments' text is kept as it is sent
    padding = _split_by(TRAJECTORY_CUT - len(prefix), secret)
    session.call_tool("search_invoices", f'{prefix}{padding}{secret}"}}')
    return _split_by(RETURNED_CUT - len(ELLIPSIS) - len("'"), secret) + secret
