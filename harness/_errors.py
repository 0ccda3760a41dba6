"""Consumes misuse and runaway agents, produces one exception hierarchy with actionable messages.

    UnsolvableError
    ├── ScenarioError (ValueError)        an unknown or malformed scenario
    ├── AdapterError (TypeError)          an agent or adapter path that cannot be used
    ├── BudgetError (ValueError)          a budget, ceiling or threshold out of range
    ├── BaselineError (ValueError)        a metrics baseline file that is missing or unreadable
    ├── InputError (ValueError)           an input path that is no readable file of ours
    ├── OutputError (ValueError)          a report, baseline or snapshot path that cannot be written
    ├── ShardError (ValueError)           a shard that is not K/N, or parts that are not one run
    ├── SchemaError (ValueError)          a record of a schema version this harness does not read
    └── ContextOverflow                   a model request longer than the scenario's context window

`CeilingHit`, `SessionClosed` and `HarnessFailure` are deliberately *not* in this tree: they
derive from `BaseException` so that an agent which catches `Exception` and retries forever is
still ended, and none swallows the harness's own failure.
"""

from __future__ import annotations

__all__ = [
    "RUN_ENDED",
    "AdapterError",
    "BaselineError",
    "BudgetError",
    "CeilingHit",
    "ContextOverflow",
    "HarnessFailure",
    "InputError",
    "OutputError",
    "ScenarioError",
    "SchemaError",
    "SessionClosed",
    "ShardError",
    "UnsolvableError",
    "run_ended",
]

REPOSITORY = "https://github.com/pytest-unsolvable/pytest-unsolvable"
DOCS = f"{REPOSITORY}#readme"
RUN_ENDED = "run_ended"
"""The ``type`` of the loopback server's refusal (410 Gone) of a call made after the run ended,
which the MCP server reads to pass the same refusal on."""


def docs_page(page: str, section: str = "") -> str:
    """Where a documentation page (``docs/<page>.md``) is read, at ``section`` if one is given:
    what an error message points at to say more than one line can."""
    return f"{REPOSITORY}/blob/main/docs/{page}.md" + (f"#{section}" if section else "")


class UnsolvableError(Exception):
    """Root of every error the harness raises on purpose."""


class ScenarioError(UnsolvableError, ValueError):
    """A scenario name that is not in the library, or a scenario that is malformed."""


class AdapterError(UnsolvableError, TypeError):
    """An agent path that does not import, or an object that cannot be run as an agent."""


class BudgetError(UnsolvableError, ValueError):
    """A budget, ceiling or threshold that is not a positive number."""


class BaselineError(UnsolvableError, ValueError):
    """A metrics baseline that is missing, unreadable or of another version, or a bad margin."""


class InputError(UnsolvableError, ValueError):
    """An input path (records, a baseline, a scenario file, a trace) that is not a regular file,
    is too large, is not UTF-8 or not JSON, nests too deeply or holds ``NaN``."""


class OutputError(UnsolvableError, ValueError):
    """An output path (report, baseline to rewrite, snapshot folder) that cannot be written."""


class ShardError(UnsolvableError, ValueError):
    """A shard that is not ``K/N``, or shard files that do not make one whole run together."""


class SchemaError(UnsolvableError, ValueError):
    """Its message says which version wrote the record and what to do, which no advice about
    the file's shape should follow: the file is right, for another version."""


class ContextOverflow(UnsolvableError):
    """The fake model refused a request holding more tokens than the scenario's context window,
    as a provider refuses one: an ordinary `Exception`, which an agent may catch to compact its
    conversation and try again. The message is the one OpenAI's Chat Completions API sends."""

    def __init__(self, *, tokens: int, window: int) -> None:
        super().__init__(
            f"This model's maximum context length is {window} tokens. However, your messages "
            f"resulted in {tokens} tokens. Please reduce the length of the messages."
        )
        self.tokens = tokens
        """Tokens the refused request held."""
        self.window = window
        """Tokens a request may hold."""


class HarnessFailure(BaseException):
    """The scenario's model or one of its tools raised, or the harness did: what the agent did
    after it answered no scenario, so its record would be no record of the agent. Raised from
    the first failure, so a crashed record's traceback shows where it raised."""


class CeilingHit(BaseException):
    """Raised inside the agent when a harness ceiling is reached.

    A `BaseException` so that `except Exception:` retry loops cannot swallow it.
    """


def run_ended(run: str) -> str:
    """The refusal of a call made after the run of ``run`` ended, on every face that refuses one:
    the session (`SessionClosed`), the loopback server (410) and the MCP server."""
    return (
        f"unsolvable: the run of {run} has ended; a call made after it (from a thread or callback "
        "the agent left running) is not counted: join your threads before the agent returns"
    )


class SessionClosed(BaseException):
    """Raised in a call made after the run ended (a thread or a callback the agent left behind):
    such calls are not counted, so the record is the same every time."""
