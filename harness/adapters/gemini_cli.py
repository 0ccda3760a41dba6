"""Consumes Gemini CLI (npm ``@google/gemini-cli``), produces a run of it in its own process —
headless (``gemini -p … --output-format json``), on the fake Gemini wire (``GOOGLE_GEMINI_BASE_URL``
and ``GEMINI_API_KEY`` from the run's environment), its tools over the harness's MCP server —
and the `Stop` read from its JSON result.

Its stops, read into the vocabulary: its loop detector firing (the warning "Loop detected,
stopping execution") → ``NO_PROGRESS``, its own stop; its turn limit (``model.maxSessionTurns``:
exit 53 with a ``FatalTurnLimitedError``, or the warning "Maximum session turns exceeded" when the
limit is reached inside a turn) → ``exhausted``/``BUDGET_STEPS``; an answer otherwise →
``complete``, a claim the verdict checks; any other ``error`` in its result → ``crashed`` with its
message.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from unsolvable._stop import Code, Stop
from unsolvable.adapters._coding_agent import CodingAgentCli, TurnLimitedAdapter
from unsolvable.adapters.process import ProcessExit, ProcessExited

if TYPE_CHECKING:
    from unsolvable._session import Session

__all__ = ["GeminiCliAdapter", "adapter", "command", "settings"]

SERVER = "unsolvable"
"""The MCP server's name in the settings the harness writes: Gemini CLI offers its tools as
``mcp_<server>_<tool>``."""
MODEL = "gemini-2.5-flash"
"""The model Gemini CLI is told. Its default, ``auto``, first asks a routing model which model to
use; the scripted model answers that as a final answer, and the CLI never reaches the task
(measured on 0.61: three tool-less steps, then no stop)."""
LOOP_DETECTED = "Loop detected"
"""The start of the warning Gemini CLI's loop detector leaves in its JSON result."""
TURNS_EXCEEDED = "Maximum session turns exceeded"
"""The warning its JSON result carries when the turn limit is reached inside a turn (a loop
detector's recovery or a "Please continue." turn counted past it); it then exits 0."""
TURN_LIMIT_ERROR = "FatalTurnLimitedError"
"""The ``error.type`` of its result when the next turn would pass the limit; it exits 53."""
RESULT_START = re.compile(r"^(?:\[ERROR\] )?\{", re.MULTILINE)
"""Where a JSON result may start: a line's first brace, or after the ``[ERROR]`` prefix with
which it prints a fatal error's result a second time on stderr."""


def settings(max_turns: int | None = None) -> str:
    """``settings.json``: the harness's MCP server (its URL from the run's environment, which
    Gemini CLI expands) trusted, so its tools run without a prompt; telemetry, usage statistics
    and update checks off, so the run stays on loopback; the API-key login, the fake key's; the
    turn limit (``model.maxSessionTurns``) when one is given."""
    given: dict[str, object] = {
        "mcpServers": {SERVER: {"httpUrl": "$UNSOLVABLE_MCP_URL", "trust": True}},
        "telemetry": {"enabled": False},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
    }
    if max_turns is not None:
        given["model"] = {"maxSessionTurns": max_turns}
    return json.dumps(given, indent=2)


def command(executable: str, model: str = MODEL, extra: Sequence[str] = ()) -> list[str]:
    """The headless command line: the model, its result as JSON, every tool approved
    (``--approval-mode yolo``), the empty working folder trusted, the task as the prompt."""
    line = [executable, "--model", model, "--output-format", "json", "--approval-mode", "yolo"]
    return [*line, "--skip-trust", *extra, "--prompt", "{task}"]


CLI = CodingAgentCli(
    command="gemini",
    who="gemini-cli",
    product="Gemini",
    npm="@google/gemini-cli",
    adapter="GeminiCliAdapter",
)


class GeminiCliAdapter(TurnLimitedAdapter):
    """Runs ``gemini -p`` on the session's task, in a network namespace with only the harness's
    loopback address (``isolate_network``, the default), in a fresh ``HOME`` (no user settings,
    login or history) and ``TMPDIR`` (its error reports go there, and go with the run) and an
    empty working directory, tool names mapped on the wire
    (``mcp_unsolvable_<tool>`` to the agent, ``<tool>`` to the scenario).

    ``max_turns``: its turn limit (``model.maxSessionTurns``): ``None`` keeps its default (no
    limit), ``"budget"`` takes the scenario's ``max_steps``; ``model``: the model it is told
    (default `MODEL`); ``args``: more flags for ``gemini``; the other options are
    `CodingAgentAdapter`'s.
    """

    cli = CLI
    tool_prefix = f"mcp_{SERVER}_"

    def run(self, session: Session) -> ProcessExit:
        executable = self.cli.find(self.executable)
        with tempfile.TemporaryDirectory(prefix="unsolvable-gemini-") as folder:
            home, work = os.path.join(folder, "home"), os.path.join(folder, "work")
            os.makedirs(os.path.join(home, ".gemini"))
            os.makedirs(work)
            scratch = os.path.join(folder, "tmp")  # where it writes an error's full report
            os.makedirs(scratch)
            path = os.path.join(home, ".gemini", "settings.json")
            with open(path, "w", encoding="utf-8") as file:
                file.write(settings(self.turn_limit(session)))
            line = ["env", "-C", work, f"HOME={home}", f"TMPDIR={scratch}"]
            line += command(executable, self.model or MODEL, self.args)
            ended = self._run_to_its_limit(session, line)
        failure = _failure(_result(ended))
        if failure is not None:
            raise self.failed(failure, ended)
        return ended

    def _run_to_its_limit(self, session: Session, line: Sequence[str]) -> ProcessExit:
        """The run, or its failed exit when the failure is its turn limit: a stop for a budget,
        read by `interpret`, not a crash."""
        try:
            return self.run_reading(session, line, lambda ended: _failure(_result(ended)))
        except ProcessExited as error:
            if error.ended is None or _turn_limit(_result(error.ended)) is None:
                raise
            return error.ended

    def interpret(self, returned: object, error: BaseException | None) -> Stop | None:
        if error is not None or not isinstance(returned, ProcessExit):
            return None
        result = _result(returned)
        if result is None:  # its result was cut (`OUTPUT_KEPT`) or never written: not read
            return None
        said = str(result.get("response") or "")
        limit = _turn_limit(result)
        if limit is not None:
            return Stop(code=Code.BUDGET_STEPS, reason=f"gemini: {limit}", partial=said or None)
        loop = next((w for w in _warnings(result) if w.startswith(LOOP_DETECTED)), None)
        if loop is not None:
            return Stop(code=Code.NO_PROGRESS, reason=f"gemini: {loop}")
        return Stop(code=Code.COMPLETED, reason=f"final answer: {said:.160}")


def _result(ended: ProcessExit) -> Mapping[str, object] | None:
    """The JSON object ``--output-format json`` prints: on stdout, or after the error's report on
    stderr when the run failed; ``None`` when the output kept (`OUTPUT_KEPT`) has none whole."""
    return _last_object(ended.stdout) or _last_object(ended.stderr)


def _last_object(text: str) -> Mapping[str, object] | None:
    """The last whole JSON object of ``text`` that starts a line (`RESULT_START`)."""
    decoder = json.JSONDecoder()
    for start in reversed([match.end() - 1 for match in RESULT_START.finditer(text)]):
        try:
            data, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return None


def _warnings(result: Mapping[str, object]) -> list[str]:
    given = result.get("warnings")
    return [w for w in given if isinstance(w, str)] if isinstance(given, list) else []


def _turn_limit(result: Mapping[str, object] | None) -> str | None:
    """What the result says when its turn limit ended the run, in either of its two ways;
    ``None`` when it did not."""
    error = None if result is None else result.get("error")
    if isinstance(error, dict) and error.get("type") == TURN_LIMIT_ERROR:
        return str(error.get("message") or TURN_LIMIT_ERROR)
    return TURNS_EXCEEDED if result and TURNS_EXCEEDED in _warnings(result) else None


def _failure(result: Mapping[str, object] | None) -> str | None:
    """What the result's ``error`` says; ``None`` when it has none, or when it is the turn
    limit (`_turn_limit`), a stop for a budget."""
    error = None if result is None else result.get("error")
    if not error or _turn_limit(result) is not None:
        return None
    said = error.get("message") if isinstance(error, dict) else error
    return f"error: {said}"


adapter = GeminiCliAdapter()
"""``--agent gemini-cli``: Gemini CLI's defaults but the model; no turn limit is set from the
budget (``GeminiCliAdapter(max_turns="budget")`` sets one), as its loop detector stops it."""
