"""Consumes an agent's command line, produces what a run of it launches: the line split as a
shell would, its ``{placeholders}`` filled in from the environment contract, its script and its
network isolation checked before any run, each misuse said with what to write instead."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from unsolvable._errors import AdapterError, docs_page

if TYPE_CHECKING:
    from unsolvable._session import Session
    from unsolvable.wire import LoopbackServer

__all__ = [
    "DOCS",
    "INTERPRETER",
    "MCP_PLACEHOLDERS",
    "PLACEHOLDERS",
    "check_isolation",
    "check_script",
    "contract",
    "expand",
    "placeholders",
    "split_spec_command",
]

INTERPRETER = re.compile(r"(python|node|bun|sh|bash|dash|zsh|ruby|perl|php)[0-9.]*")
"""Programs that run a script named by their first argument, and with none read one from
stdin, which is empty for an agent: ``exec:node`` alone is always a mistake."""
INLINE_PROGRAM = frozenset({"-", "-c", "-m", "-e", "--eval", "-p", "--print"})
"""Options after which an interpreter runs code given inline or a module, not a script file."""
SCRIPT_SUFFIXES = frozenset({".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".rb", ".pl", ".php"})
"""What a script an interpreter is pointed at ends with; an argument that does not (``python -W
ignore agent.py``'s ``ignore``) is not taken for one and not checked."""
EXAMPLE_SCRIPT = {
    "python": "agent.py",
    "node": "agent.js",
    "bun": "agent.js",
    "ruby": "agent.rb",
    "perl": "agent.pl",
    "php": "agent.php",
}
"""The script the quoting advice names for an interpreter left without one: one in its own
language (``exec:python agent.py``); a shell's is ``agent.sh``."""
DOCS = docs_page("processes", "agents-in-other-processes-and-languages")
MCP_EXTRA = "pip install 'pytest-unsolvable[mcp]'"
PLACEHOLDERS = frozenset(
    {
        "agents_url",
        "anthropic_api_key",
        "anthropic_base_url",
        "budget",
        "clock_url",
        "context_window",
        "gemini_api_key",
        "google_gemini_base_url",
        "home",
        "openai_api_key",
        "openai_base_url",
        "pricing",
        "role_steps",
        "task",
        "tools",
        "tools_url",
    }
)
"""The placeholders of the contract's variables (`contract`, `placeholders`) without the MCP
server's, known before any run so that a misspelt one is a usage error, not a crash per run."""
MCP_PLACEHOLDERS = frozenset({"mcp_command", "mcp_config", "mcp_errors", "mcp_url"})
"""Those of the MCP server's variables, given where the mcp extra is installed."""


def contract(
    session: Session, server: LoopbackServer, home: str, mcp: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment contract: every variable the child is given, by name; ``home`` is the
    run's own empty folder, ``mcp`` adds the MCP server's (`McpService.contract`)."""
    return {
        **server.environ(),
        "UNSOLVABLE_HOME": home,
        "UNSOLVABLE_TASK": session.task,
        "UNSOLVABLE_BUDGET": json.dumps(session.budget.to_dict()),
        "UNSOLVABLE_PRICING": json.dumps(session.pricing.to_dict()),
        "UNSOLVABLE_CONTEXT_WINDOW": json.dumps(session.context_window),
        "UNSOLVABLE_ROLE_STEPS": json.dumps(session.role_steps),
        "UNSOLVABLE_TOOLS": json.dumps(session.openai_tools),
        **(mcp or {}),
    }


def split_spec_command(spec: str, prefix: str) -> list[str]:
    """The command line of an agent spec (``exec:…``, ``acp:…``) after its ``prefix``, split as
    a POSIX shell would (`shlex`); an `AdapterError` when a quote is left open."""
    try:
        return shlex.split(spec.removeprefix(prefix))
    except ValueError as error:
        raise AdapterError(
            f"agent {spec!r}: its command line cannot be split ({error}); close the quote"
        ) from None


def placeholders(environ: Mapping[str, str]) -> dict[str, str]:
    """The contract as argument placeholders: ``UNSOLVABLE_TASK`` is ``{task}``,
    ``OPENAI_BASE_URL`` is ``{openai_base_url}``."""
    return {name.lower().removeprefix("unsolvable_"): value for name, value in environ.items()}


def expand(name: str, command: Sequence[str], environ: Mapping[str, str]) -> list[str]:
    """``command`` with its placeholders filled in; an `AdapterError` naming agent ``name``
    (an ``exec:`` or ``acp:`` spec) and the known placeholders when one is unknown."""
    values = placeholders(environ)
    try:
        return [part.format_map(values) for part in command]
    except (KeyError, IndexError, ValueError, AttributeError, TypeError) as error:
        what = f"there is no {{{error.args[0]}}}" if isinstance(error, KeyError) else str(error)
        if isinstance(error, AttributeError | TypeError):  # {task.x} or {task[x]}: a value is text
            what += "; a placeholder is a bare name, its value plain text"
        if isinstance(error, KeyError) and str(error.args[0]).startswith("mcp_"):
            what += f"; the MCP server needs the mcp extra: {MCP_EXTRA}"
        raise AdapterError(
            f"agent {name!r}: cannot fill in its placeholders ({what}); "
            f"the known ones are {', '.join('{' + k + '}' for k in sorted(values))}, and a "
            f"literal brace is written twice ({{{{ or }}}}). See {DOCS}"
        ) from None


def check_script(name: str, command: Sequence[str]) -> None:
    """An interpreter's script, its first argument that is not an option, must exist; with no
    script at all the child would read an empty stdin and return nothing, whatever the agent."""
    for argument in command[1:]:
        if argument in INLINE_PROGRAM:
            return
        if argument.startswith("-"):
            continue
        is_script = os.path.splitext(argument)[1] in SCRIPT_SUFFIXES and "{" not in argument
        if is_script and not os.path.isfile(argument):
            raise AdapterError(
                f"agent {name!r}: the script {argument!r} does not exist in {os.getcwd()!r}; "
                f"run from the folder that holds it, or give its path. See {DOCS}"
            )
        return
    script = _example_script(command[0])
    raise AdapterError(
        f"agent {name!r} runs {command[0]} with no script; an exec: agent's command line is one "
        f"argument, so quote it whole: --agent '{name} {script}' (pytest: "
        f"--unsolvable-agent='{name} {script}'). See {DOCS}"
    )


def _example_script(program: str) -> str:
    """A script name in the language of ``program``, an interpreter `INTERPRETER` matches."""
    match = INTERPRETER.fullmatch(os.path.basename(program))
    return EXAMPLE_SCRIPT.get(match[1] if match else "", "agent.sh")


def check_isolation(name: str) -> None:
    """Raises `AdapterError` naming why agent ``name`` cannot run with loopback only here, and
    how to run it otherwise."""
    from unsolvable.adapters._netns import unavailable

    why = unavailable()
    if why is not None:
        raise AdapterError(
            f"agent {name!r}: cannot run it with loopback only: {why}. Run it without network "
            "isolation (no --isolate-network or --unsolvable-isolate-network; "
            f"isolate_network=False), or where user namespaces are allowed. See {DOCS}"
        )
