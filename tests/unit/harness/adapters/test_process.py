"""`exec:` specs: split as a shell would, their placeholders filled from the contract, and every
misuse (no command, an open quote, an unknown placeholder, a missing program) said plainly."""

from __future__ import annotations

import importlib
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import unsolvable
from tests._docs import ROOT, TEXTS
from unsolvable import AdapterError, scenarios
from unsolvable._loading import load_agent
from unsolvable.adapters._command_line import MCP_PLACEHOLDERS, PLACEHOLDERS, placeholders
from unsolvable.adapters.a2a import A2AAdapter
from unsolvable.adapters.acp import AcpAdapter
from unsolvable.adapters.claude_code import ClaudeCodeAdapter
from unsolvable.adapters.codex_cli import CodexAdapter
from unsolvable.adapters.process import STOP_LINE_LIMIT, ProcessAdapter, _Tail


def test_a_spec_is_split_as_a_shell_would_and_named_by_itself() -> None:
    adapter = ProcessAdapter.from_spec("exec:node 'my agent.js' --task {task}")
    assert adapter.command == ("node", "my agent.js", "--task", "{task}")
    assert adapter.name == "exec:node 'my agent.js' --task {task}"


@pytest.mark.parametrize(
    ("spec", "says"), [("exec:", "no command"), ("exec:sh 'x", "close the quote")]
)
def test_a_spec_without_a_usable_command_line_is_a_usage_error(spec: str, says: str) -> None:
    with pytest.raises(AdapterError, match=says):
        ProcessAdapter.from_spec(spec)


def test_placeholders_are_the_contract_in_lower_case_without_the_prefix() -> None:
    environ = {
        "OPENAI_BASE_URL": "http://x/v1",
        "UNSOLVABLE_TASK": "t",
        "UNSOLVABLE_TOOLS_URL": "u",
    }
    assert placeholders(environ) == {
        "openai_base_url": "http://x/v1",
        "task": "t",
        "tools_url": "u",
    }


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("exec:echo {prompt}", "there is no {prompt}"),
        ("exec:echo {task", "expected '}' before end of string"),
        ("exec:echo {task.upper.x}", "a placeholder is a bare name"),
        ("exec:echo {task[x]}", "a placeholder is a bare name"),
    ],
)
def test_an_unknown_placeholder_is_refused_before_any_run_listing_the_known_ones(
    spec: str, says: str
) -> None:
    with pytest.raises(AdapterError) as raised:
        unsolvable.run(spec, scenarios.get("constant-return/repeat"))
    assert says in str(raised.value)
    assert "{task}" in str(raised.value) and "twice" in str(raised.value)


def test_the_placeholders_known_before_a_run_are_those_a_run_fills_in() -> None:
    scenario = scenarios.get("constant-return/repeat")
    session = unsolvable.Session(
        scenario, scenario.build(0), seed=0, ceilings=unsolvable.Ceilings()
    )
    with ProcessAdapter(["echo"]).prepared(session) as launch:
        assert set(placeholders(launch.environ)) == PLACEHOLDERS | MCP_PLACEHOLDERS


def test_the_exec_faces_page_gives_every_variable_a_run_gives_with_its_placeholder() -> None:
    scenario = scenarios.get("constant-return/repeat")
    session = unsolvable.Session(
        scenario, scenario.build(0), seed=0, ceilings=unsolvable.Ceilings()
    )
    with ProcessAdapter(["echo"]).prepared(session) as launch:
        named = placeholders({name: name for name in launch.environ})
    page = TEXTS[ROOT / "docs" / "processes.md"]
    table = re.findall(r"^\| `([A-Z_]+)` \| `\{([a-z_]+)\}` \|", page, re.MULTILINE)
    assert set(table) == {(name, place) for place, name in named.items()}


def test_home_is_an_empty_folder_of_each_runs_own_removed_at_its_end(tmp_path: Path) -> None:
    """``{home}`` (``UNSOLVABLE_HOME``), for an agent that must not read the user's settings
    from its ``HOME``: empty, not the harness's ``HOME``, no other run's, gone once it ends."""
    seen = tmp_path / "seen"
    looks = (
        'test -d "$1" && test -z "$(ls -A "$1")" && test "$1" = "$UNSOLVABLE_HOME" '
        '&& test "$1" != "$HOME" && touch "$1/settings.json" && echo "$1" >> "$2"; '
        'echo \'{{"code": "NO_PROGRESS", "reason": "looked"}}\''
    )
    spec = f"exec:sh -c {shlex.quote(looks)} sh {{home}} {shlex.quote(str(seen))}"
    for _ in range(2):
        record = unsolvable.run(spec, scenarios.get("constant-return/repeat"))
        assert record.reported is not None and record.reported.reason == "looked"
    first, second = seen.read_text().split()
    assert first != second
    assert not Path(first).exists() and not Path(second).exists()


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("exec:no-such-agent-xyz", "the program 'no-such-agent-xyz' is not on PATH"),
        ("exec:no-such-agent-xyz", "give its path (e.g. exec:/usr/bin/no-such-agent-xyz …)"),
        ("acp:no-such-agent-xyz", "give its path (e.g. acp:/usr/bin/no-such-agent-xyz …)"),
        ("exec:./no/such/agent", "the program './no/such/agent' is not an executable file"),
        ("exec:python no_such_agent.py", "the script 'no_such_agent.py' does not exist in "),
        ("exec:node --trace-warnings gone.mjs {task}", "the script 'gone.mjs' does not exist"),
        ("exec:node", "runs node with no script; an exec: agent's command line is one argument"),
        ("exec:python3 -u", "runs python3 with no script"),
        ("exec:python3 -u", "quote it whole: --agent 'exec:python3 -u agent.py'"),
        ("exec:bash", "quote it whole: --agent 'exec:bash agent.sh' (pytest: "),
        ("exec:node", "--unsolvable-agent='exec:node agent.js')"),
    ],
)
def test_a_program_or_script_that_is_not_there_is_refused_before_any_run(
    spec: str, says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AdapterError, match=re.escape(says)):
        unsolvable.run(spec, scenarios.get("constant-return/repeat"))


@pytest.mark.parametrize(
    ("agent", "example"),
    [
        (AcpAdapter(["no-such-agent-xyz"], name="my-acp-agent"), " acp:/usr/bin/no-such-agent-xyz"),
        (A2AAdapter(["no-such-agent-xyz"], name="my-a2a-agent"), " /usr/bin/no-such-agent-xyz"),
    ],
    ids=["acp", "a2a"],
)
def test_a_named_agent_whose_program_is_missing_is_told_the_form_it_gave_it_in(
    agent: AcpAdapter | A2AAdapter, example: str
) -> None:
    """The example is in the form the program was given in, whatever the agent is called: an
    ``acp:`` spec, or an A2A server's command line, which has no spec of its own."""
    with pytest.raises(AdapterError, match=re.escape(f"(e.g.{example} …)")):
        agent.preflight()


@pytest.mark.parametrize(
    "command",
    [
        "sh -c 'echo {{}}'",
        "python -m json.tool",
        "python -W ignore agent.py",
        "sh agent.sh {task}",
        "env NAME=1 echo",
        "{tools_url}",
    ],
)
def test_commands_whose_program_and_script_are_there_pass_the_preflight(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text("")
    (tmp_path / "agent.sh").write_text("")
    ProcessAdapter.from_spec(f"exec:{command}").preflight()


@pytest.mark.parametrize(
    ("adapter", "says"),
    [
        (
            "unsolvable.adapters.claude_code:ClaudeCodeAdapter",
            "claude-code: the Claude Code CLI is not on PATH; install it with npm install -g "
            "@anthropic-ai/claude-code, or pass ClaudeCodeAdapter(executable=)",
        ),
        (
            "unsolvable.adapters.codex_cli:CodexAdapter",
            "codex: the Codex CLI is not on PATH; install it with npm install -g @openai/codex, "
            "or pass CodexAdapter(executable=)",
        ),
        (
            "unsolvable.adapters.gemini_cli:GeminiCliAdapter",
            "gemini-cli: the Gemini CLI is not on PATH; install it with npm install -g "
            "@google/gemini-cli, or pass GeminiCliAdapter(executable=)",
        ),
    ],
)
def test_a_coding_agent_cli_not_on_path_says_how_to_install_it(
    adapter: str, says: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    module, name = adapter.split(":")
    agent = getattr(importlib.import_module(module), name)()
    scenario = scenarios.get("constant-return/repeat")
    session = unsolvable.Session(
        scenario, scenario.build(0), seed=0, ceilings=unsolvable.Ceilings()
    )
    with pytest.raises(AdapterError) as raised:
        agent.run(session)
    assert str(raised.value) == says


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("claude-code", "claude-code: the Claude Code CLI is not on PATH"),
        ("codex", "codex: the Codex CLI is not on PATH"),
        ("gemini-cli", "gemini-cli: the Gemini CLI is not on PATH"),
    ],
)
def test_a_coding_agent_named_by_its_spec_is_checked_before_any_run(
    spec: str, says: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    load_agent.cache_clear()  # a spec loaded before, where the CLI was found, is kept
    with pytest.raises(AdapterError, match=says):
        load_agent(spec)


class _Unready:
    name = "unready"

    def preflight(self) -> None:
        raise AdapterError("unready: the thing it needs is missing")

    def run(self, session: unsolvable.Session) -> object:
        raise AssertionError("never run")

    def interpret(self, returned: object, error: BaseException | None) -> None:
        return None


unready = _Unready()


def test_any_adapter_can_say_up_front_what_its_runs_need() -> None:
    with pytest.raises(AdapterError, match="the thing it needs is missing"):
        load_agent(f"{__name__}:unready")


def test_an_adapter_given_as_an_object_is_checked_before_its_run() -> None:
    with pytest.raises(AdapterError, match="the thing it needs is missing"):
        unsolvable.run(unready, scenarios.get("constant-return/repeat"))


@pytest.mark.parametrize("adapter", [ClaudeCodeAdapter, CodexAdapter])
def test_a_coding_agent_object_without_its_cli_fails_as_its_spec_does(
    adapter: type[ClaudeCodeAdapter | CodexAdapter],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(AdapterError, match="CLI is not on PATH; install it with npm"):
        unsolvable.run(adapter(), scenarios.get("constant-return/repeat"))


class _CountingTail(_Tail):
    """A reader of a child's stdout that counts the lines it reads one at a time."""

    ended = 0

    def _end_line(self) -> None:
        self.ended += 1
        super()._end_line()


def _tail_of(code: str, reader: type[_Tail] = _Tail) -> _Tail:
    """The ``reader`` of a real child's stdout, once the child running ``code`` has ended."""
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        tail = reader(child.stdout)
        tail.run()
    finally:
        child.kill()
        child.wait()
    return tail


@pytest.mark.parametrize("line", ["", "x", " \\r"])
def test_a_childs_last_line_is_found_without_reading_each_line(line: str) -> None:
    """Each line was read one at a time: a child writing a million short lines kept the reader
    busy, the child waiting on the pipe, far longer than the child took to write them."""
    code = f"import sys; sys.stdout.write('{line}\\n' * 2**20 + 'the stop\\n\\n')"
    tail = _tail_of(code, _CountingTail)
    assert isinstance(tail, _CountingTail) and tail.last_line == "the stop"
    assert tail.ended < 2**14, tail.ended  # a million and more before


@given(st.lists(st.sampled_from([b"", b" \r", b"x", b"{}", b" y "]), max_size=12), st.data())
def test_a_childs_last_line_is_the_same_whatever_pieces_it_comes_in(
    lines: list[bytes], data: st.DataObject
) -> None:
    stream = b"\n".join(lines)
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(stream)), max_size=8))
    at = sorted(set(cuts))
    tail = _Tail(io.BytesIO())
    for a, b in zip([0, *at], [*at, len(stream)], strict=True):
        tail._read(stream[a:b])
    tail._end_line()
    shown = [line for line in lines if line.strip()]
    assert tail.last_line == (shown[-1].decode() if shown else "")


def _past_limit(first: bytes, byte: bytes) -> str:
    """Code of a child writing ``first``, then a line of ``byte`` past `STOP_LINE_LIMIT`."""
    return (
        f"import sys; out = sys.stdout.buffer; out.write({first!r}); "
        f"[out.write({byte!r} * 2**20) for _ in range({STOP_LINE_LIMIT // 2**20 + 1})]"
    )


def test_a_blank_line_past_the_limit_after_the_stop_leaves_the_stop_last() -> None:
    """It was taken for a line too long to be a stop: a child that printed its stop and then a
    line of 65 MiB of spaces was recorded unstructured, its stop lost."""
    tail = _tail_of(_past_limit(b'{"code": "NO_PROGRESS"}\n', b" "))
    assert (tail.last_line, tail.last_cut) == ('{"code": "NO_PROGRESS"}', False)


def test_an_object_past_the_limit_is_a_stop_too_long_to_read() -> None:
    tail = _tail_of(_past_limit(b"ok\n{", b"x"))
    assert (tail.last_line, tail.last_cut) == ("", True)
