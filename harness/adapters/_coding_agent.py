"""Consumes the options of a coding agent's CLI (Claude Code, Codex, Gemini CLI), produces what
their adapters share: the CLI found, or a message saying how to install it; the check before any
run; and the process a run starts, the harness's MCP tools spelt on the wire as the CLI spells
them. Each adapter adds its command line, its config files and how it reads the CLI's result.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar, TypedDict, Unpack

from unsolvable._errors import AdapterError
from unsolvable.adapters._command_line import check_isolation
from unsolvable.adapters._stderr import ends_node_report, stderr_account
from unsolvable.adapters.kit import BUDGET, Budgeted, is_step_limit
from unsolvable.adapters.process import (
    ProcessAdapter,
    ProcessExit,
    ProcessExited,
    described_status,
)

if TYPE_CHECKING:
    from unsolvable._session import Session

__all__ = [
    "CODING_AGENT_WALL_SECONDS",
    "CodingAgentAdapter",
    "CodingAgentCli",
    "CodingAgentOptions",
    "TurnLimitedAdapter",
]

ERROR_LINE = re.compile(r"\b(error|unknown|unexpected|invalid)\b", re.IGNORECASE)
"""A line of a CLI's stderr that names what went wrong: a CLI refusing its command line prints
that line and then its usage (Codex: "error: unexpected argument", Gemini CLI: "Unknown
arguments"), so the last line alone names nothing."""
CODING_AGENT_WALL_SECONDS = 60.0
"""The wall ceiling a coding agent's run needs: the CLI starts in 1–3 s and makes about 10 model
calls a second here, so the harness's 200-step ceiling is reached in about 25 s; 10 s, the
default for in-process agents, would end every long run on the clock instead."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class CodingAgentCli:
    """The CLI a coding-agent adapter drives, and what to say when it is missing: the ``npm``
    package that installs it, or the ``adapter``'s ``executable=`` option."""

    command: str
    who: str
    product: str
    npm: str
    adapter: str

    def find(self, given: str | None) -> str:
        """``given`` (a command on PATH or the path of an executable), else ``command`` on PATH;
        an `AdapterError` when it is not there."""
        executable = shutil.which(given or self.command)
        if executable is not None:
            return given or executable
        missing = f"{given!r} is not on PATH or an executable file" if given else "is not on PATH"
        raise AdapterError(
            f"{self.who}: the {self.product} CLI {missing}; install it with npm install -g "
            f"{self.npm}, or pass {self.adapter}(executable=)"
        )

    def check(self, given: str | None, *, isolate_network: bool, name: str) -> None:
        """What every run of the adapter needs, for its ``preflight`` (`unsolvable.load_agent`,
        `unsolvable.run`): the CLI, and network namespaces when its runs are isolated."""
        self.find(given)
        if isolate_network:
            check_isolation(name)


class CodingAgentOptions(TypedDict, total=False):
    """`CodingAgentAdapter`'s keyword options, for an adapter that adds its own."""

    model: str | None
    args: Sequence[str]
    isolate_network: bool
    name: str | None


class CodingAgentAdapter:
    """The options every coding-agent adapter takes. ``executable``: the CLI (default: its
    command on PATH); ``model``: the model it is told (default: the adapter's own choice);
    ``args``: more flags for it; ``isolate_network``: a network namespace with only the harness's
    loopback address (the default); ``name``: its runs' label (default: the CLI's ``who``)."""

    cli: ClassVar[CodingAgentCli]
    tool_prefix: ClassVar[str]
    """How the CLI names the harness's MCP tools on the model's wire (`ToolNames`)."""
    wall_seconds = CODING_AGENT_WALL_SECONDS

    def __init__(
        self,
        executable: str | None = None,
        *,
        model: str | None = None,
        args: Sequence[str] = (),
        isolate_network: bool = True,
        name: str | None = None,
    ) -> None:
        self.executable, self.model, self.args = executable, model, tuple(args)
        self.isolate_network, self.name = isolate_network, name or self.cli.who

    def preflight(self) -> None:
        """`CodingAgentCli.check`, before any run (`unsolvable.load_agent`, `unsolvable.run`)."""
        self.cli.check(self.executable, isolate_network=self.isolate_network, name=self.name)

    def process(self, line: Sequence[str]) -> ProcessAdapter:
        """The process of one run: ``line``, the MCP tools spelt `tool_prefix` on the wire."""
        from unsolvable.wire import ToolNames

        return ProcessAdapter(
            line,
            name=self.name,
            isolate_network=self.isolate_network,
            wire={"tool_names": ToolNames(prefix=self.tool_prefix)},
        )

    def run_reading(
        self,
        session: Session,
        line: Sequence[str],
        failure: Callable[[ProcessExit], str | None],
    ) -> ProcessExit:
        """One run of ``line`` (`process`). A failed exit whose output says why (``failure``: the
        CLI's own account, ``None`` when it gives none) is raised with that account instead of
        its exit status alone."""
        try:
            return self.process(line).run(session)
        except ProcessExited as error:
            if error.ended is None:
                raise
            said = failure(error.ended)
            if said is None:
                raise self.unaccounted(error.ended) from None
            raise self.failed(said, error.ended) from None

    def failed(self, said: str, ended: ProcessExit | None) -> ProcessExited:
        """The crash of a run whose CLI gave its own account of the failure (``said``)."""
        return ProcessExited(f"{self.cli.command} ended with {said:.300}", ended)

    def unaccounted(self, ended: ProcessExit) -> ProcessExited:
        """The crash of a run whose CLI failed with no account of its own: its exit and the line
        of its stderr that names the error (Node's report's, else the last that names one:
        `unsolvable.adapters._stderr.ERROR_LINE`), else its last line; not the ``exec:``
        face's advice to print a structured exit, which is no user's to write for a CLI."""
        if ended.error_line is not None and not ends_node_report(ended.stderr):
            said = f"says: {ended.error_line}"
        else:
            said = stderr_account(ended.stderr, ended.node_error)
        return ProcessExited(
            f"{self.cli.command} {described_status(ended.status)} with no result of its own; "
            f"its stderr {said:.300}",
            ended,
        )


class TurnLimitedAdapter(CodingAgentAdapter):
    """A coding agent's CLI that takes a turn limit: ``max_turns`` ``None`` keeps its default
    (none), ``"budget"`` takes the scenario's ``max_steps``, else an int of at least 1; anything
    else, which would run with no limit or with one the CLI refuses in every run, is refused
    here."""

    def __init__(
        self,
        executable: str | None = None,
        *,
        max_turns: int | Budgeted | None = None,
        **options: Unpack[CodingAgentOptions],
    ) -> None:
        if not is_step_limit(max_turns):
            raise AdapterError(
                f"{type(self).__name__}(max_turns={max_turns!r}): use a positive int, 'budget' "
                "(the scenario's max_steps) or None (the CLI's own: no limit)"
            )
        super().__init__(executable, **options)
        self.max_turns = max_turns

    def turn_limit(self, session: Session) -> int | None:
        """The turn limit the CLI is given for ``session``'s run, if any."""
        if self.max_turns == BUDGET:
            return session.budget.max_steps
        return self.max_turns if isinstance(self.max_turns, int) else None
