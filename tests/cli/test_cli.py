"""The `unsolvable` command, run as users run it: in a subprocess, through its entry point."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from unsolvable import scenarios
from unsolvable._processes import DESCRIPTORS_PER_WORKER, RESERVED_DESCRIPTORS
from unsolvable.cli._main import _parser

ROOT = Path(__file__).parents[2]
AGENTS = "tests.cli.agents_for_cli"


def _unsolvable(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "unsolvable.cli", *args]
    return subprocess.run(
        command, capture_output=True, text=True, cwd=ROOT, timeout=120, check=False
    )


def test_contract_alone_passes_with_status_0() -> None:
    result = _unsolvable("run", "--agent", "contract", "--scenario", "missing-permission")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "abandoned/BLOCKED_INPUT" in result.stdout
    runs = len(scenarios.select(["missing-permission"]))
    last = result.stdout.splitlines()[-1]
    assert last.startswith(f"unsolvable: {runs} runs, {runs} passed, 0 failed")


def test_naive_fails_with_status_1_and_explains(tmp_path: Path) -> None:
    result = _unsolvable(
        "run", "--agent", "naive", "--scenario", "constant-return/claims-success", "--explain"
    )
    assert result.returncode == 1
    assert "FAIL: false completion" in result.stdout and "trajectory tail:" in result.stdout


def test_json_is_byte_identical_across_runs(tmp_path: Path) -> None:
    for name in ("a.json", "b.json"):
        _unsolvable("run", "--scenario", "constant-return", "--json", str(tmp_path / name))
    first, second = (tmp_path / "a.json").read_bytes(), (tmp_path / "b.json").read_bytes()
    assert first == second
    records = json.loads(first)["records"]
    assert len(records) == 2 * len(scenarios.select(["constant-return"]))  # naive and contract
    assert "wall_seconds" not in records[0]


def test_runaway_agents_are_recorded_did_not_stop_and_the_run_finishes() -> None:
    result = _unsolvable(
        "run",
        "--agent",
        f"{AGENTS}:swallows",
        "--agent",
        f"{AGENTS}:busy",
        "--scenario",
        "constant-return/repeat",
        "--ceiling-seconds",
        "0.5",
    )
    assert result.returncode == 1, result.stderr
    rows = result.stdout.splitlines()[1:-1]
    assert [row.split()[2] for row in rows] == ["did_not_stop", "did_not_stop"]
    assert "unsolvable: 2 runs, 0 passed, 2 failed (2 did_not_stop" in result.stdout


def test_usage_errors_exit_2_naming_the_problem() -> None:
    unknown = _unsolvable("run", "--scenario", "no-such")
    assert unknown.returncode == 2 and "unknown scenario 'no-such'" in unknown.stderr
    family = _unsolvable("run", "--scenario", "constant_return")
    assert "did you mean constant-return (family), " in family.stderr
    missing = _unsolvable("run", "--agent", "nowhere.at_all:agent")
    assert missing.returncode == 2
    assert "module 'nowhere.at_all' cannot be imported" in missing.stderr
    malformed = _unsolvable("run", "--agent", "not-a-path")
    assert malformed.returncode == 2 and "'module:attribute'" in malformed.stderr
    not_callable = _unsolvable("run", "--agent", f"{AGENTS}:NOT_AN_AGENT")
    assert not_callable.returncode == 2 and "is a int, not callable" in not_callable.stderr
    for registered in (
        "claude-code",
        "codex",
        "gemini-cli",
        "crewai",
        "autogen",
        "llamaindex",
        "naive",
    ):
        assert registered in malformed.stderr, "the error lists every registered agent name"


def test_an_exec_agent_whose_program_is_missing_is_a_usage_error_before_any_run() -> None:
    result = _unsolvable("run", "--agent", "exec:no-such-program-xyz agent.js")
    assert result.returncode == 2 and result.stdout == ""
    assert "the program 'no-such-program-xyz' is not on PATH" in result.stderr


def test_an_a2a_spec_is_a_usage_error_that_says_how_an_a2a_agent_is_given() -> None:
    """``a2a:`` labels an A2A agent's runs but is no spec: read as ``module:attribute`` it
    blamed the a2a-sdk's module for having no attribute named after the server."""
    result = _unsolvable("run", "--agent", "a2a:python server.py", "--scenario", "oscillation")
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("unsolvable: error: agent 'a2a:python server.py': an A2A ")
    assert "A2AAdapter([...])" in result.stderr and "--agent module:attribute" in result.stderr
    assert "has no attribute" not in result.stderr


def test_an_agent_attribute_that_is_not_there_says_what_to_check() -> None:
    result = _unsolvable("run", "--agent", "unsolvable.agents:naïve", "--scenario", "oscillation")
    assert result.returncode == 2, result.stderr
    assert "'unsolvable.agents' has no attribute 'naïve'; check its spelling" in result.stderr


def test_an_unquoted_exec_agent_gets_the_quoting_it_needs() -> None:
    result = _unsolvable("run", "--agent", "exec:node", "agent.js", "--scenario", "oscillation")
    assert result.returncode == 2 and result.stdout == ""
    assert "unrecognized arguments: agent.js" in result.stderr
    assert "quote it whole: --agent 'exec:node agent.js'" in result.stderr


def test_list_and_show() -> None:
    listed = _unsolvable("list")
    assert listed.returncode == 0
    row = r"^missing-permission +missing-permission/retry-403 +BLOCKED_INPUT +6/7/8 +The model"
    assert re.search(row, listed.stdout, re.M)
    shown = _unsolvable("show", "missing-permission/retry-403")
    assert "missing:    reports:publish" in shown.stdout and "first refused call" in shown.stdout


def test_show_given_a_family_names_its_scenarios() -> None:
    shown = _unsolvable("show", "give-up-honoured")
    assert shown.returncode == 2 and shown.stdout == ""
    assert shown.stderr == (
        "unsolvable: error: 'give-up-honoured' is a family of 4 scenarios, and one scenario is "
        "wanted here; name one of them: give-up-honoured/at-once, give-up-honoured/plain, "
        "give-up-honoured/after-two-searches, give-up-honoured/twin-hesitates\n"
    )


@pytest.mark.parametrize(
    ("command", "described"),
    [
        ("show", "NAME                  one scenario, e.g. constant-return/repeat"),
        ("import", "TRACE                 the recorded run: a file, or for --format openhands"),
    ],
)
def test_the_help_says_what_each_positional_argument_is(command: str, described: str) -> None:
    assert described in _unsolvable(command, "--help").stdout


def test_all_seeds_reports_pass_k() -> None:
    result = _unsolvable("run", "--scenario", "give-up-honoured", "--all-seeds")
    assert result.returncode == 1
    last = result.stdout.splitlines()[-1]
    assert last == "unsolvable: naive pass^3 1/4 scenarios; contract pass^3 4/4 scenarios"


def test_pass_k_says_each_k_it_was_computed_over() -> None:
    """A scenario with one seed beside one with three: pass^1 for the first, never pass^3."""
    result = _unsolvable(
        "run", "--scenario", "context-overflow/irreducible-prompt", "constant-return/repeat",
        "--all-seeds",
    )  # fmt: skip
    assert result.stdout.splitlines()[-1] == (
        "unsolvable: naive pass^3 0/1 and pass^1 0/1 scenarios; "
        "contract pass^3 1/1 and pass^1 1/1 scenarios"
    )


def test_a_crashing_agents_record_and_explain_show_the_line_that_raised(tmp_path: Path) -> None:
    out = tmp_path / "records.json"
    result = _unsolvable("run", "--agent", "tests.cli.crashing_agent:agent", "--scenario",
                         "constant-return/repeat", "--explain", "--json", str(out))  # fmt: skip
    assert result.returncode == 1
    raised = [
        '      File "tests/cli/crashing_agent.py", line 9, in _lookup',
        '        return fields["nme"]  # the bug: the line the record and --explain must show',
    ]
    lines = result.stdout.splitlines()
    start = lines.index(raised[0])
    assert lines[start : start + 2] == raised and "    KeyError: 'nme'" in lines
    (record,) = json.loads(out.read_text())["records"]
    assert "\n".join(line[4:] for line in raised) in record["observed"]["traceback"]


def test_show_names_a_context_window_and_prices_of_their_own() -> None:
    overflow = _unsolvable("show", "context-overflow/irreducible-document").stdout
    assert "  context window: 1500 tokens" in overflow.splitlines()
    dollars = _unsolvable("show", "dollar-budget/long-transcript").stdout
    assert "  prices:     $15 in, $75 out, per million tokens" in dollars.splitlines()
    assert "prices" not in overflow
    assert "  budget:     40 steps, $0.4" in dollars.splitlines()


def test_show_names_the_budgets_a_scenario_sets_and_only_those() -> None:
    shown = _unsolvable("show", "fan-out/plain").stdout.splitlines()
    assert "  budget:     21 steps, 42000 tokens, 5 s in all" in shown
    idle = _unsolvable("show", "busy-idle/alternating-searches").stdout.splitlines()
    assert "  budget:     40 steps, 80000 tokens, 630 s idle" in idle


def test_show_names_each_roles_own_budget_and_that_it_can_end_the_run() -> None:
    shown = _unsolvable("show", "per-role-budgets/role-cap-spent").stdout
    assert "  role budgets: researcher 4 steps, writer 4 steps" in shown.splitlines()
    assert "the run's or a role's own" in shown


def _bounds_of_runs(name: str, folder: Path) -> list[tuple[int, int]]:
    """(seed, N) of each of ``name``'s runs, as its records give them."""
    out = folder / "records.json"
    _unsolvable("run", "--agent", "contract", "--scenario", name, "--all-seeds", "--json", str(out))
    return [(r["seed"], r["step_bound"]) for r in json.loads(out.read_text())["records"]]


def test_show_gives_the_bound_each_seed_is_judged_against(tmp_path: Path) -> None:
    """N counts from the end of a seed's background reading, so constant-return/repeat's runs
    are judged against 12, 13 and 14: show printed seed 0's alone, as every seed's."""
    name = "constant-return/repeat"
    bounds = _bounds_of_runs(name, tmp_path)
    each = ", ".join(f"{bound} on seed {seed}" for seed, bound in bounds)
    expected = f"  expected:   NO_PROGRESS within N steps: {each}"
    assert expected in _unsolvable("show", name).stdout.splitlines()
    assert len({bound for _, bound in bounds}) == 3


def test_list_and_the_catalogue_give_the_bound_each_seed_is_judged_against(
    tmp_path: Path,
) -> None:
    """The N column of list and of the catalogue, and the catalogue's scenario entry, gave
    seed 0's N alone where each seed's runs are judged against their own."""
    name = "missing-permission/retry-403"
    bounds = _bounds_of_runs(name, tmp_path)
    column = "/".join(str(bound) for _, bound in bounds)
    row = rf"^missing-permission +{re.escape(name)} +BLOCKED_INPUT +{column} +The model"
    assert re.search(row, _unsolvable("list").stdout, re.M)
    catalogue = _unsolvable("list", "--markdown").stdout.splitlines()
    assert any(line.startswith(f"| `{name}` |") and f"| {column} |" in line for line in catalogue)
    seeds = ", ".join(str(seed) for seed, _ in bounds)
    each = ", ".join(str(bound) for _, bound in bounds)
    assert f"- **expected**: `BLOCKED_INPUT` within N = {each} steps on seeds {seeds}" in catalogue
    listed = json.loads(_unsolvable("list", "--json").stdout)
    (entry,) = (entry for entry in listed if entry["name"] == name)
    assert list(zip(entry["seeds"], entry["step_bounds"], strict=True)) == bounds


def test_an_agent_module_that_exits_on_import_is_a_usage_error(tmp_path: Path) -> None:
    """A module that parses its own arguments or calls ``sys.exit`` at import is named, rather
    than ending the command in silence with its status."""
    (tmp_path / "exits_on_import.py").write_text("import sys\nsys.exit(3)\n")
    command = [sys.executable, "-m", "unsolvable.cli", "run", "--agent", "exits_on_import:agent"]
    result = subprocess.run(
        command, capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert "importing 'exits_on_import' raised SystemExit: 3" in result.stderr


def test_a_seed_given_twice_runs_once() -> None:
    result = _unsolvable(
        "run", "--agent", "contract", "--scenario", "constant-return/repeat", "--seed", "1",
        "--seed", "1", "--seed", "0",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "\nunsolvable: 2 runs, 2 passed" in result.stdout
    assert result.stdout.endswith("unsolvable: contract pass^2 1/1 scenarios\n")


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--ceiling-steps", "0", "give a whole number, 1 or more"),
        ("--ceiling-steps", "²", "give a whole number, 1 or more"),
        ("--ceiling-seconds", "0", "give a number of seconds above 0"),
        ("--ceiling-seconds", "nan", "give a number of seconds above 0"),
        ("--ceiling-seconds", "-1", "give a number of seconds above 0"),
    ],
)
def test_a_ceiling_that_is_no_ceiling_is_refused_naming_its_flag(
    flag: str, value: str, said: str
) -> None:
    """Not taken for the default (a wall ceiling of 0 once was), nor named by an internal type."""
    result = _unsolvable("run", "--scenario", "constant-return/repeat", flag, value)
    assert result.returncode == 2 and f"argument {flag}: '{value}': {said}" in result.stderr


def test_auto_runs_one_worker_per_cpu_and_the_same_records(tmp_path: Path) -> None:
    """``-n auto``, as pytest-xdist takes it, is one worker per CPU this process may use; the
    records are the bytes one worker writes."""
    assert _parser().parse_args(["run", "-n", "auto"]).workers == len(os.sched_getaffinity(0))
    chosen = ("--scenario", "constant-return", "--scenario", "fan-out/plain", "--all-seeds")
    for workers in ("1", "auto"):
        result = _unsolvable("run", *chosen, "-n", workers, "--json", str(tmp_path / workers))
        assert result.returncode == 1, result.stderr  # naive fails by design
    assert (tmp_path / "auto").read_bytes() == (tmp_path / "1").read_bytes()


FILES = 256
"""An open-file limit (``ulimit -n``) low enough that a few dozen workers exhaust it."""


def _unsolvable_with_files(files: int, *args: str) -> subprocess.CompletedProcess[str]:
    """`_unsolvable` under an open-file limit of ``files``."""
    command = ["sh", "-c", f'ulimit -n {files} && exec "$@"', "sh", sys.executable, "-m"]
    return subprocess.run(
        [*command, "unsolvable.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("value", ["50", "100000"])
def test_more_workers_than_open_files_allow_are_refused_before_any_run(value: str) -> None:
    """Each worker holds five of the harness's open files: under ``ulimit -n 256``, ``-n 50``
    once started 49 workers and failed on the 50th with a traceback (``Too many open files``),
    ``-n 100000`` likewise, after forking as many workers as the limit let it."""
    most = (FILES - RESERVED_DESCRIPTORS) // DESCRIPTORS_PER_WORKER
    result = _unsolvable_with_files(FILES, "run", "--all-seeds", "-n", value)
    said = (
        f"argument -n/--workers: '{value}': give a whole number from 1 to {most}, or auto: each "
        f"worker holds {DESCRIPTORS_PER_WORKER} open files, and this process may open {FILES} "
        "(ulimit -n)"
    )
    assert (result.returncode, result.stdout) == (2, "") and said in result.stderr


def test_as_many_workers_as_open_files_allow_make_every_run() -> None:
    most = (FILES - RESERVED_DESCRIPTORS) // DESCRIPTORS_PER_WORKER
    chosen = ("--scenario", "constant-return", "--all-seeds", "--no-progress")
    result = _unsolvable_with_files(FILES, "run", *chosen, "-n", str(most))
    runs = 2 * sum(len(s.seeds) for s in scenarios.select(["constant-return"]))
    assert runs > most  # every worker is started
    assert result.returncode == 1 and result.stderr == ""  # naive fails by design
    assert f"unsolvable: {runs} runs, " in result.stdout


@pytest.mark.parametrize("value", ["-3", str(2**63), "two", "1.5", "\u0663"])
def test_a_seed_that_is_no_seed_is_refused_naming_the_flag_and_the_seeds(value: str) -> None:
    """A negative seed once ran: its runs replayed the random draws of its positive, recorded
    under another seed, and pass^k counted them as two seeds."""
    result = _unsolvable("run", "--scenario", "constant-return/repeat", "--seed", value)
    said = f"argument --seed: {value!r}: give a seed, a whole number from 0 to {2**63 - 1}, e.g. 0"
    assert result.returncode == 2 and said in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("value", ["0", "two", "-1", "Auto"])
def test_a_worker_count_that_is_none_is_refused_saying_auto_is_one(value: str) -> None:
    result = _unsolvable("run", "--scenario", "constant-return/repeat", "-n", value)
    said = f"argument -n/--workers: '{value}': give a whole number, 1 or more, or auto"
    assert result.returncode == 2 and said in result.stderr


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (("--json", "same.json", "--markdown", "same.json"), "--json and --markdown both name"),
        (
            ("--json", "b.json", "--baseline", "b.json", "--update-baseline"),
            "--json and --baseline",
        ),
        (("--html", "b.json", "--baseline", "b.json"), "--html and --baseline both name"),
        (
            ("--json", "r.json", "--otel", "same.json", "--markdown", "r.json.jsonl"),
            "--markdown and --json's record stream both name",
        ),
        (("--json", "same.json", "--trace-dir", "same.json"), "--json 'same.json' and --trace-dir"),
        (
            ("--trace-dir", "t", "--html", "t/naive/oscillation/plain-seed0.json"),
            "--html 't/naive/oscillation/plain-seed0.json' and --trace-dir 't' overlap",
        ),
    ],
)
def test_two_outputs_on_one_file_are_refused_before_the_run(
    tmp_path: Path, given: tuple[str, ...], said: str
) -> None:
    """Else only the last written would be left, a baseline replaced by a report, a report at
    the path of the ``--json`` records' stream removed with the stream as the run ends, or one
    where a trajectory goes replaced by it."""
    command = [sys.executable, "-m", "unsolvable.cli", "run", "--scenario", "oscillation"]
    blessed = [*command, "--baseline", "b.json", "--update-baseline"]
    subprocess.run(blessed, capture_output=True, cwd=tmp_path, timeout=120, check=False)
    kept = (tmp_path / "b.json").read_bytes()
    result = subprocess.run(
        [*command, *given], capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False
    )
    assert result.returncode == 2 and said in result.stderr and result.stdout == ""
    assert (tmp_path / "b.json").read_bytes() == kept and not (tmp_path / "same.json").exists()


def test_scenario_files_that_hold_no_scenario_run_nothing(tmp_path: Path) -> None:
    """With no --scenario, run selects the files' scenarios: none is a usage error, not a run
    of the whole built-in library."""
    (tmp_path / "empty").mkdir()
    command = [sys.executable, "-m", "unsolvable.cli", "run", "--scenario-file", "empty"]
    result = subprocess.run(
        command, capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False
    )
    assert result.returncode == 2 and result.stdout == ""
    assert "--scenario-file 'empty' holds no scenario" in result.stderr


def test_a_scenario_file_that_is_a_fifo_is_named_as_one(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    command = [sys.executable, "-m", "unsolvable.cli", "list", "--scenario-file", "pipe"]
    result = subprocess.run(
        command, capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False
    )
    assert result.returncode == 2 and "'pipe' is a FIFO (a named pipe), not a file" in result.stderr


COMMANDS = ("run", "report", "merge", "list", "show", "import")
OPTION_ENTRY = re.compile(r"^  (-\S.*?)(?:\s{2,}|$)")
"""The flags an entry of a help text's options begins with (``-n N, --workers N``)."""


@pytest.mark.parametrize("command", COMMANDS)
def test_a_commands_help_names_only_options_it_has(command: str) -> None:
    """Options shared between commands share their help text: one that speaks of another
    command's option would tell a user of this one to give a flag it refuses."""
    subcommands = next(action for action in _parser()._actions if isinstance(action.choices, dict))
    text = subcommands.choices[command].format_help()
    usage, _, body = text.partition("\n\n")
    has = set(re.findall(r"--[\w-]+", usage))
    for line in body.splitlines():
        entry = OPTION_ENTRY.match(line)
        if entry:
            has |= set(re.findall(r"--[\w-]+", entry[1]))
    named = set(re.findall(r"--[\w-]+", body))
    assert named <= has, f"{command} --help names {sorted(named - has)}, which it does not take"
