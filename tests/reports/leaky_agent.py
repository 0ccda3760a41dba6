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
}
"""The environment a test gives the harness; each value ends in its own mark, which no escaping
changes, so a mark found anywhere is a secret that leaked."""
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
