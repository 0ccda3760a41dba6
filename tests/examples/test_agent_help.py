"""What each face's help says an agent spec may be is what the pages say it may be: a newcomer
who reads ``--help`` learns every form (a name given with ``NAME=``, the registered names, an
``acp:`` command), not the first few."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from unsolvable.adapters.registry import BUILTIN_ADAPTERS
from unsolvable.cli._main import _parser
from unsolvable.plugin._options import AGENT_OPTION

FORMS = ("NAME=", "naive", "contract", "module:attr", "exec:", "acp:", *BUILTIN_ADAPTERS)
"""Every form of agent spec the pages give (concepts, pytest, frameworks, processes)."""


def _entry(text: str, flag: str) -> str:
    """The help entry of ``flag``: its line and the lines indented under it, as one line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith(flag))
    entry = [lines[start]]
    for line in lines[start + 1 :]:
        if not line.startswith(" " * 6) or line.lstrip().startswith("-"):
            break
        entry.append(line)
    joined = " ".join(part.strip() for part in entry)
    return re.sub(r"(?<=\w)- (?=\w)", "-", joined)  # a word the wrapping split at its hyphen


def _run_help() -> str:
    subcommands = next(action for action in _parser()._actions if isinstance(action.choices, dict))
    assert isinstance(subcommands.choices, dict)
    return str(subcommands.choices["run"].format_help())


def _plugin_help() -> str:
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--help"]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout


@pytest.mark.parametrize(
    ("flag", "help_text"), [("--agent", _run_help), (AGENT_OPTION, _plugin_help)]
)
def test_the_agent_options_help_names_every_form_of_spec(flag: str, help_text: object) -> None:
    assert callable(help_text)
    entry = _entry(help_text(), flag)
    assert [form for form in FORMS if form not in entry] == [], entry
