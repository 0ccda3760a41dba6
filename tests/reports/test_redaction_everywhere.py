"""No secret of the harness's environment, and none an agent prints or sends, reaches any written
form: JSON and its stream, Markdown, HTML, OTLP, ATIF (``unsolvable run``), JUnit properties,
snapshots and the session's JSON (the pytest plugin)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests._records_tap import RecordTap
from tests.plugin._helpers import PYTEST_SECONDS, QUIET, XDIST_ENVIRONMENT
from tests.reports.leaky_agent import MARKS, SECRETS
from unsolvable.adapters.process import OUTPUT_KEPT
from unsolvable.plugin._options import AGENT_OPTION, SCENARIO_OPTION

ROOT = Path(__file__).parents[2]
LEAKS = "tests.reports.leaky_agent:leaks"
LEAKS_AT_CUTS = "tests.reports.leaky_agent:leaks_at_cuts"
PIECE = 8
"""Characters of a secret that, found anywhere, are a piece of it that leaked."""
SCENARIO = "constant-return/repeat"


def _leaked(paths: list[Path]) -> dict[str, list[str]]:
    """The marks of secrets found in each file under ``paths``, by file."""
    files = [
        f for p in paths for f in ([p] if p.is_file() else sorted(p.rglob("*"))) if f.is_file()
    ]
    found = {str(f): [m for m in MARKS if m in f.read_text(errors="replace")] for f in files}
    return {name: marks for name, marks in found.items() if marks}


def test_no_secret_reaches_any_form_the_command_line_writes(tmp_path: Path) -> None:
    out = {kind: tmp_path / f"report.{kind}" for kind in ("json", "md", "html", "otel")}
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--agent", LEAKS, "--scenario", SCENARIO,
        "--json", str(out["json"]), "--markdown", str(out["md"]), "--html", str(out["html"]),
        "--otel", str(out["otel"]), "--trace-dir", str(tmp_path / "traces"), "--explain",
    ]  # fmt: skip
    tap = RecordTap(out["json"])  # the stream as it is written, before the run removes it
    try:
        environ = {**os.environ, **SECRETS}
        run = subprocess.run(
            command, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120
        )
    finally:
        tap.close()
    streamed, stdout = "".join(tap.lines), run.stdout
    assert run.returncode == 1 and "my keys:" in out["json"].read_text()
    assert "[redacted]" in streamed and not any(mark in streamed for mark in MARKS)
    assert not any(mark in stdout for mark in MARKS)
    assert _leaked([*out.values(), tmp_path / "traces"]) == {}


@pytest.mark.parametrize("word", ["NO_PROGRESS", "trajectory"])
def test_a_secret_that_spells_one_of_the_records_own_words_leaves_it_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, word: str
) -> None:
    """The harness redacts a worker's record as it reads it: the record's own words (a stop
    code, a field's name) are checked, not redacted, so a secret that spells one does not turn
    a sound stop into a garbled record, nor drop the field."""
    monkeypatch.setenv("UNSOLVABLE_TEST_TOKEN", word)
    out = tmp_path / "records.json"
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--agent", "contract", "--scenario",
        SCENARIO, "--json", str(out),
    ]  # fmt: skip
    run = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    [record] = json.loads(out.read_text())["records"]
    assert (record["outcome"], record["reported"]["code"]) == ("stopped", "NO_PROGRESS")
    assert record["observed"]["trajectory"] and record["verdict"]["passed"]


def test_no_piece_of_a_secret_that_a_cut_split_is_written(tmp_path: Path) -> None:
    """A text a record keeps cut to fit — a tool's arguments, what the agent returned, the end
    of its output — may be cut inside a secret: the piece left is redacted as the whole is."""
    out = {kind: tmp_path / f"report.{kind}" for kind in ("json", "md", "html", "otel")}
    secret = SECRETS["OPENAI_API_KEY"]
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--agent", LEAKS_AT_CUTS, "--scenario",
        SCENARIO, "--json", str(out["json"]), "--markdown", str(out["md"]), "--html",
        str(out["html"]), "--otel", str(out["otel"]), "--trace-dir", str(tmp_path / "traces"),
    ]  # fmt: skip
    environ = {**os.environ, **SECRETS}
    run = subprocess.run(
        command, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120
    )
    (record,) = json.loads(out["json"].read_text())["records"]
    assert run.returncode == 1 and record["returned"].endswith("x[redacted]…"), run.stderr
    pieces = (secret[:PIECE], secret[-PIECE:])
    written = [*out.values(), *(tmp_path / "traces").rglob("*.json")]
    assert [f.name for f in written if any(p in f.read_text() for p in pieces)] == []
    assert not any(piece in run.stdout for piece in pieces)


def test_no_piece_of_a_secret_an_exec_agents_stderr_ends_with_is_written(tmp_path: Path) -> None:
    """The end of an ``exec:`` agent's stderr that its crash quotes may begin inside a secret it
    was passed (``UNSOLVABLE_PASS_ENV``): that piece is redacted too."""
    secret = SECRETS["GITHUB_TOKEN"]
    script = tmp_path / "agent.py"
    script.write_text(
        "import os, sys\n"
        f"sys.stderr.write(os.environ['GITHUB_TOKEN'] + 'y' * {OUTPUT_KEPT - len(secret) + 1})\n"
        "sys.exit(1)\n"
    )
    out = tmp_path / "report.json"
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--agent", f"exec:{sys.executable} {script}",
        "--scenario", SCENARIO, "--json", str(out),
    ]  # fmt: skip
    environ = {**os.environ, **SECRETS, "UNSOLVABLE_PASS_ENV": "GITHUB_TOKEN"}
    run = subprocess.run(
        command, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120
    )
    (record,) = json.loads(out.read_text())["records"]
    assert run.returncode == 1 and secret[-PIECE:] not in out.read_text() + run.stdout
    assert "stderr ends: …[redacted]y" in record["observed"]["error"]


def test_a_secret_in_an_agents_command_line_reaches_no_label(tmp_path: Path) -> None:
    """A CI job that hands its key to an ``exec:`` agent as an argument names the agent by that
    command line: the label every form writes, a trace folder's name among them, is redacted."""
    out = {kind: tmp_path / f"report.{kind}" for kind in ("json", "md", "html", "otel")}
    secret = SECRETS["OPENAI_API_KEY"]
    agent = f"exec:sh tests/cli/stops.sh --api-key {secret}"
    command = [
        sys.executable, "-m", "unsolvable.cli", "run", "--agent", agent, "--scenario", SCENARIO,
        "--json", str(out["json"]), "--markdown", str(out["md"]), "--html", str(out["html"]),
        "--otel", str(out["otel"]), "--trace-dir", str(tmp_path / "traces"),
    ]  # fmt: skip
    environ = {**os.environ, **SECRETS}
    run = subprocess.run(
        command, cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert "--api-key [redacted]" in out["json"].read_text()
    assert secret not in run.stdout + run.stderr
    assert _leaked([*out.values(), tmp_path / "traces"]) == {}
    assert not any(secret in str(path) for path in (tmp_path / "traces").rglob("*"))


def _secrets_in_a_fresh_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """The secrets set, and no trace of this session's xdist worker for the pytest it runs."""
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    for name in XDIST_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)


def _plugin_run(pytester: pytest.Pytester, agent: str) -> tuple[pytest.RunResult, list[Path]]:
    """The plugin's run of ``agent`` on the scenario, its snapshots made, and where it wrote its
    JUnit XML, JSON, Markdown and HTML."""
    reports = [pytester.path / name for name in ("junit.xml", "s.json", "s.md", "s.html")]
    result = pytester.runpytest_subprocess(
        *QUIET, f"{AGENT_OPTION}={agent}", f"{SCENARIO_OPTION}={SCENARIO}", "--snapshot-update",
        f"--junitxml={reports[0]}", f"--unsolvable-json={reports[1]}",
        f"--unsolvable-markdown={reports[2]}", f"--unsolvable-html={reports[3]}",
        timeout=PYTEST_SECONDS,
    )  # fmt: skip
    return result, reports


def test_no_secret_reaches_any_form_the_pytest_plugin_writes(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _secrets_in_a_fresh_session(monkeypatch)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    result, reports = _plugin_run(pytester, LEAKS)
    assert result.parseoutcomes()["failed"] == 3 and "[redacted]" in reports[1].read_text()
    assert not any(mark in result.stdout.str() for mark in MARKS)
    assert _leaked([*reports, pytester.path / "__unsolvable__"]) == {}


def test_a_secret_in_an_agents_command_line_reaches_no_test_id_or_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _secrets_in_a_fresh_session(monkeypatch)
    secret = SECRETS["OPENAI_API_KEY"]
    agent = f"exec:sh {ROOT / 'tests/cli/stops.sh'} --api-key {secret}"
    result, reports = _plugin_run(pytester, agent)
    assert result.parseoutcomes()["passed"] == 3 and "[redacted]" in reports[0].read_text()
    assert secret not in result.stdout.str()
    assert _leaked([*reports, pytester.path / "__unsolvable__"]) == {}
    assert not any(secret in str(path) for path in pytester.path.rglob("*"))


AGENTS_THAT_DO_NOT_LOAD = {
    "import": "keyed:agent",
    "program": f"exec:no-such-program-xyz --api-key {SECRETS['OPENAI_API_KEY']}",
    "twice": f"exec:sh tests/cli/stops.sh --api-key {SECRETS['OPENAI_API_KEY']}",
}
"""Agents whose usage error quotes a secret: a module whose import raises naming its key (a
client made at import, refused), a missing program given the key as an argument, the same
keyed command line given twice."""


def _with_a_keyed_module(folder: Path) -> dict[str, str]:
    """The environment of a run from ``folder``, which holds ``keyed.py``: its import raises
    naming ``OPENAI_API_KEY``."""
    (folder / "keyed.py").write_text(
        "import os\nraise RuntimeError('key ' + os.environ['OPENAI_API_KEY'] + ' refused')\n"
    )
    (folder / "tests" / "cli").mkdir(parents=True)
    (folder / "tests" / "cli" / "stops.sh").write_text((ROOT / "tests/cli/stops.sh").read_text())
    return {**os.environ, **SECRETS, "PYTHONPATH": str(ROOT)}


@pytest.mark.parametrize("how", sorted(AGENTS_THAT_DO_NOT_LOAD))
def test_no_secret_reaches_the_usage_error_of_an_agent_that_does_not_load(
    tmp_path: Path, how: str
) -> None:
    """The usage error lands in a CI log: what it quotes of the agent's command line or of what
    its module raised is redacted, as the label of an agent that loads is."""
    agent = AGENTS_THAT_DO_NOT_LOAD[how]
    agents = ["--agent", agent] * (2 if how == "twice" else 1)
    command = [sys.executable, "-m", "unsolvable.cli", "run", *agents, "--scenario", SCENARIO]
    environ = _with_a_keyed_module(tmp_path)
    run = subprocess.run(
        command, cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 2 and "[redacted]" in run.stderr, run.stderr
    assert SECRETS["OPENAI_API_KEY"] not in run.stdout + run.stderr


def test_no_secret_reaches_the_pytest_usage_error_of_an_agent_that_does_not_load(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _secrets_in_a_fresh_session(monkeypatch)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    _with_a_keyed_module(pytester.path)
    result = pytester.runpytest_subprocess(
        *QUIET, f"{AGENT_OPTION}=keyed:agent", f"{SCENARIO_OPTION}={SCENARIO}",
        timeout=PYTEST_SECONDS,
    )  # fmt: skip
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "key [redacted] refused" in output
    assert SECRETS["OPENAI_API_KEY"] not in output


LOUD_MODULE = """\
import os, sys
print("my key", os.environ["OPENAI_API_KEY"])
print("my key", os.environ["OPENAI_API_KEY"], file=sys.stderr)
os.write(1, b"fd 1 " + os.environ["OPENAI_API_KEY"].encode() + b"\\n")
os.write(2, b"fd 2 " + os.environ["OPENAI_API_KEY"].encode() + b"\\n")
import warnings
warnings.warn("careful with " + os.environ["OPENAI_API_KEY"])
from unsolvable.agents import contract as agent
"""
"""An agent's module that prints its key as it is imported, through Python and past it, and
warns naming it."""


def test_no_secret_an_agents_module_prints_as_it_loads_reaches_the_terminal(
    tmp_path: Path,
) -> None:
    """The harness imports the agent's module to check it loads before any run: what the module
    prints then is the agent's own output, which no run keeps either (a worker's import prints
    to nothing), and the table on stdout stays the table."""
    (tmp_path / "loud.py").write_text(LOUD_MODULE)
    command = [sys.executable, "-m", "unsolvable.cli", "run", "--agent", "loud:agent"]
    environ = {**os.environ, **SECRETS, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [*command, "--scenario", SCENARIO, "-n", "2"],
        cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0 and run.stdout.startswith("scenario "), run.stdout + run.stderr
    assert SECRETS["OPENAI_API_KEY"] not in run.stdout + run.stderr
    assert "UserWarning: careful with [redacted]" in run.stderr


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_no_secret_an_agents_module_prints_as_it_loads_reaches_the_pytest_terminal(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: tuple[str, ...]
) -> None:
    _secrets_in_a_fresh_session(monkeypatch)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    (pytester.path / "loud.py").write_text(LOUD_MODULE)
    result = pytester.runpytest_subprocess(
        *QUIET, "-W", "default::UserWarning", f"{AGENT_OPTION}=loud:agent",
        f"{SCENARIO_OPTION}={SCENARIO}", "--unsolvable-no-snapshot", *workers,
        timeout=PYTEST_SECONDS,
    )  # fmt: skip
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.OK, output
    assert SECRETS["OPENAI_API_KEY"] not in output
