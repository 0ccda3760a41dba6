"""The scenario-file schema: what ``unsolvable import`` writes loads (JSON and TOML), and a bad
file is an error naming the field and the fix, before any run starts."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import unsolvable
from tests._docs import DOCS
from tests.imports._traces import openai_chat, openhands_log
from unsolvable import ContextOverflow
from unsolvable.cli import main
from unsolvable.fake_tools import REFUSALS
from unsolvable.imports import SCHEMA, ScenarioFileError, build, parse, read

ROOT = Path(__file__).parents[2]


@pytest.fixture
def data(tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "loop.json"
    trace = openhands_log(tmp_path / "c")
    main(["import", str(trace), "--format", "openhands", "--name", "incidents/loop", f"-o{out}"])
    loaded: dict[str, Any] = json.loads(out.read_text())
    return loaded


def _problem(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioFileError) as caught:
        parse(data, source="f.json")
    return str(caught.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"schema": "unsolvable-scenario/0"}, "field 'schema' is 'unsolvable-scenario/0'"),
        ({"name": "loop"}, "field 'name' is 'loop'; write it as \"family/variant\""),
        ({"expected": ["SOMETHING"]}, "field 'expected[0]' is 'SOMETHING'; use one of"),
        ({"expected": ["COMPLETED"]}, "field 'expected[0]' is 'COMPLETED'"),
        ({"unrecorded": {"answer": "maybe"}}, "use one of ('unknown', 'refusal')"),
        ({"script": {"cycle": []}}, "field 'script.cycle' is empty; give at least one turn"),
        ({"budget": {"max_steps": -1}}, "field 'budget.max_steps' is -1"),
        ({"budget": {"steps": 3}}, "field 'budget.steps' is not a field of budget"),
        ({"tools": []}, "field 'tools' is empty"),
        ({"surprise": 1}, "field 'surprise' is not a scenario-file field"),
        ({"ground_truth": {"stagnation": "criteria"}}, "use one of ('novelty', 'first_refusal')"),
        ({"seeds": []}, "field 'seeds' is []"),
        ({"seeds": [-1]}, "field 'seeds' is [-1]; give a non-empty list of seeds, each a whole"),
        ({"twin": {"tool": "nope", "result": "x", "step_bound": 3}}, "'twin.tool' is 'nope'"),
        ({"context_window": 0}, "field 'context_window' is 0; make it 1 or more, or null"),
        ({"context_window": "8k"}, "field 'context_window' is a string ('8k')"),
        ({"context_window": True}, "field 'context_window' is a true/false (True)"),
        ({"refused_retries": -1}, "field 'refused_retries' is -1; make it 0 or more, or null"),
        ({"task": None}, "field 'task' is null (None), not a string;"),
        ({"tools": ["search"]}, "field 'tools[0]' is a string ('search'), not a table/object"),
        ({"tools": [{"name": ""}]}, "field 'tools[0].name' is empty; give each tool as"),
        ({"budget": {"max_steps": "9"}}, "is a string ('9'), not a whole number;"),
        ({"budget": {"max_cost_usd": "9"}}, "is a string ('9'), not a whole number or a number"),
        (
            {"budget": {"max_steps": 3.5}},
            "'budget.max_steps' is a number (3.5), not a whole number",
        ),
        ({"budget": {"max_tokens": 1e4}}, "'budget.max_tokens' is a number (10000.0), not a whole"),
        (
            {"budget": {"max_calls": 2.5}},
            "'budget.max_calls' is a number (2.5), not a whole number",
        ),
        ({"task": ["x" * 100]}, f"field 'task' is a list (['{'x' * 58}), not a string"),
    ],
)
def test_a_bad_field_is_named_with_its_fix(
    data: dict[str, Any], change: dict[str, Any], message: str
) -> None:
    assert message in _problem({**data, **change})


def test_seconds_and_dollars_of_a_budget_may_be_fractions(data: dict[str, Any]) -> None:
    budget = {"max_steps": 9, "max_wall_seconds": 2.5, "max_cost_usd": 0.25, "max_idle_seconds": 1}
    assert parse({**data, "budget": budget}, source="f.json").budget.max_cost_usd == 0.25


def test_a_call_to_a_tool_not_offered_is_refused(data: dict[str, Any]) -> None:
    data["script"]["cycle"][0]["calls"][0]["name"] = "delete_everything"
    assert "calls 'delete_everything', which is not in tools" in _problem(data)


@pytest.mark.parametrize(
    ("where", "fields"),
    [
        ("ground_truth", ["stagnation", "first_stagnant_step", "why"]),
        ("unrecorded", ["answer", "text"]),
        ("script", ["prefix", "cycle"]),
        ("script.cycle[0]", ["text", "calls"]),
        ("script.cycle[0].calls[0]", ["name", "arguments"]),
        ("tools[0]", ["name", "description", "parameters"]),
        ("answers[0]", ["tool", "arguments", "results"]),
        ("answers[0].results[0]", ["text", "refusal", "world"]),
        ("twin", ["tool", "result", "step_bound"]),
        ("budget", ["max_steps", "max_tokens", "max_wall_seconds", "max_cost_usd"]),
    ],
)
def test_a_misspelt_field_inside_a_table_is_refused_not_left_out(
    data: dict[str, Any], where: str, fields: list[str]
) -> None:
    """A misspelt optional field (``first_stagnant_stp``) would otherwise be dropped without a
    word, and the run judged by its default."""
    data["twin"] = {"tool": "search_tickets", "result": "done", "step_bound": 12}
    table = data
    for part in where.replace("[", ".").replace("]", "").split("."):
        table = table[int(part)] if part.isdigit() else table[part]
    table["surprise"] = 1
    message = _problem(data)
    assert f"field '{where}.surprise' is not a field of {where}; use only [" in message
    assert all(repr(field) in message for field in fields)


def test_an_answer_for_a_tool_not_offered_is_refused(data: dict[str, Any]) -> None:
    """No call could ever be given it: a misspelt tool name would leave the real tool's calls
    answered as unrecorded."""
    data["answers"][0]["tool"] = "search_ticket"
    message = _problem(data)
    assert "field 'answers[0].tool' is 'search_ticket', which is not in tools" in message
    assert "['search_tickets']" in message


def test_a_refusal_of_a_kind_the_harness_does_not_know_is_refused(data: dict[str, Any]) -> None:
    """Refusals are counted and judged by kind: a misspelt one would be a kind of its own that
    no rule expects, so the file is refused, naming the kinds there are."""
    data["answers"][0]["results"][0]["refusal"] = "Denied"
    message = _problem(data)
    assert "field 'answers[0].results[0].refusal' is 'Denied', not a refusal kind" in message
    assert f"use one of {REFUSALS}, or null" in message


@pytest.mark.parametrize("kind", [*REFUSALS, None])
def test_each_refusal_kind_the_fake_tools_give_loads(data: dict[str, Any], kind: str) -> None:
    data["answers"][0]["results"][0]["refusal"] = kind
    assert parse(data).answers[0].results[0].refusal == kind


def test_the_known_refusal_kinds_are_those_the_fake_tools_give_and_the_docs_list() -> None:
    """Every ``refusal=`` a tool family answers with is one `REFUSALS` names, and no other."""
    given = set()
    for path in sorted((ROOT / "fake_tools" / "tools").glob("*.py")):
        module = importlib.import_module(f"unsolvable.fake_tools.tools.{path.stem}")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.keyword) and node.arg == "refusal":
                names = [n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)]
                given |= {getattr(module, name) for name in names if name.isupper()}
    assert given == set(REFUSALS)
    listed = ", ".join(f'`"{kind}"`' for kind in REFUSALS)
    assert f"`refusal` is one of {listed} or `null`" in DOCS


def test_what_import_writes_loads_and_builds(data: dict[str, Any]) -> None:
    assert data["schema"] == SCHEMA
    (scenario,) = build(parse(data))
    assert scenario.name == "incidents/loop" and scenario.step_bound == 12


def test_toml_files_load_too(data: dict[str, Any], tmp_path: Path) -> None:
    lines = [f"{key} = {json.dumps(data[key])}" for key in ("schema", "name", "task")]
    lines += ["step_bound = 12", 'expected = ["NO_PROGRESS"]', "seeds = [0, 1]"]
    lines += ['[unrecorded]\nanswer = "unknown"', '[ground_truth]\nstagnation = "novelty"']
    lines += ['[[tools]]\nname = "search_tickets"', "[script]"]
    lines += ['[[script.cycle]]\ntext = "again"', '[[script.cycle.calls]]\nname = "search_tickets"']
    path = tmp_path / "hand.toml"
    path.write_text("\n".join(lines) + "\n")
    scenario = read(path)
    assert scenario.seeds == (0, 1) and scenario.cycle[0].calls[0].name == "search_tickets"


def test_the_command_line_says_so_with_status_2_before_any_run(
    data: dict[str, Any], tmp_path: Path
) -> None:
    data["step_bound"] = "twelve"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    result = subprocess.run(
        [sys.executable, "-m", "unsolvable.cli", "run", "--scenario-file", str(path)],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and result.stdout == ""
    assert "field 'step_bound' is a string ('twelve'), not a whole number" in result.stderr


def test_a_name_taken_by_a_built_in_is_refused(data: dict[str, Any], tmp_path: Path) -> None:
    data["name"] = "constant-return/repeat"
    path = tmp_path / "clash.json"
    path.write_text(json.dumps(data))
    assert main(["list", "--scenario-file", str(path)]) == 2


@pytest.mark.parametrize(
    ("name", "unblock", "taken"),
    [
        ("constant-return/repeat", (), "constant-return/repeat"),
        ("constant-return/cursor-paging", ("--unblock-with", "search_tickets=[]"),
         "constant-return/twin-cursor-paging"),
    ],
)  # fmt: skip
def test_an_import_named_as_a_built_in_is_refused_before_it_writes(
    tmp_path: Path, capsys: Any, name: str, unblock: tuple[str, ...], taken: str
) -> None:
    """A file whose scenario (or twin) has a built-in's name is refused whenever it is read:
    the import that would write it says so, rather than write a file no run can load."""
    out = tmp_path / "s.json"
    trace = openhands_log(tmp_path / "c")
    argv = ["import", str(trace), "--format", "openhands", "--name", name, "-o", str(out)]
    assert main([*argv, *unblock]) == 2
    err = capsys.readouterr().err
    assert f"--name {name!r}: the scenario {taken!r} is already taken by the built-in" in err
    assert "give another --name, e.g. incidents/" in err
    assert not out.exists()


def test_a_context_window_refuses_a_longer_request_as_the_built_ins_do(
    data: dict[str, Any],
) -> None:
    """A replayed incident under a window its conversation outgrows: the request that passes it
    is refused (`ContextOverflow`), counted as a refusal of its own kind, never answered."""
    (scenario,) = build(parse({**data, "context_window": 400}))
    assert scenario.context_window == 400
    refused: list[ContextOverflow] = []

    def agent(session: unsolvable.Session) -> unsolvable.Stop:
        messages: list[dict[str, Any]] = [{"role": "user", "content": session.task}]
        try:
            while True:
                reply = session.call_model(messages, session.tools)
                messages.append({k: v for k, v in reply.items() if k != "usage"})
                for call in reply.get("tool_calls") or ():
                    function = call["function"]
                    result = session.call_tool(function["name"], function["arguments"])
                    messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        except ContextOverflow as overflow:
            refused.append(overflow)
        return unsolvable.Stop(code=unsolvable.Code.ERROR_FATAL, reason="over the window")

    record = unsolvable.run(agent, scenario)
    (overflow,) = refused
    assert overflow.window == 400 and overflow.tokens > 400
    assert record.observed.refusals == {"context_window": 1}
    (without,) = build(parse(data))
    assert without.context_window is None


@pytest.mark.parametrize("output", [["-o", "trace.json"], []], ids=["given", "from-the-name"])
def test_an_output_that_is_the_trace_itself_is_refused_and_the_trace_kept(
    tmp_path: Path, output: list[str]
) -> None:
    trace = openai_chat(tmp_path / "trace.json")
    recorded = trace.read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "unsolvable.cli", "import", "trace.json", "--format", "openai-chat",
         "--name", "incidents/trace", *output],
        capture_output=True, text=True, cwd=tmp_path, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 2 and result.stdout == "", result.stdout
    assert result.stderr.startswith("unsolvable: error: -o 'trace.json'")
    assert "is the trace being imported: the scenario file would replace" in result.stderr
    assert trace.read_bytes() == recorded


def test_an_edited_scenario_file_is_kept_unless_the_import_is_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The docs have a person correct the file an import wrote; importing the same trace again
    replaced the corrected file without a word."""
    trace, out = openhands_log(tmp_path / "c"), tmp_path / "loop.json"
    argv = ["import", str(trace), "--format", "openhands", "--name", "incidents/loop", f"-o{out}"]
    assert main(argv) == 0
    imported = out.read_text()
    assert main(argv) == 0 and out.read_text() == imported  # the same text: nothing lost
    edited = json.loads(imported) | {"step_bound": 7}
    out.write_text(json.dumps(edited, indent=2))
    capsys.readouterr()
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert f"-o {str(out)!r} already holds a scenario file that differs" in error
    assert "pass --force to replace it" in error
    assert json.loads(out.read_text()) == edited
    assert main([*argv, "--force"]) == 0 and out.read_text() == imported
