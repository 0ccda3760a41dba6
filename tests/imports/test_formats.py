"""``unsolvable import`` of each foreign format: a looping run becomes a scenario file that
``unsolvable run --scenario-file`` runs; ``contract`` stops it within its bound (NO_PROGRESS, or
BLOCKED_INPUT for a recorded denial) and ``naive`` fails it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.imports._traces import (
    SECRET,
    anthropic_messages,
    late_escalation,
    openai_chat,
    openhands_log,
)
from unsolvable.cli import main
from unsolvable.imports import build, read


def _import(trace: Path, format: str, out: Path, *extra: str) -> dict[str, Any]:
    assert main(["import", str(trace), "--format", format, "--name", "incidents/x",
                 "-o", str(out), *extra]) == 0  # fmt: skip
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def _records(scenario: Path, tmp_path: Path) -> dict[str, dict[str, Any]]:
    out = tmp_path / "records.json"
    main(["run", "--no-progress", "--scenario-file", str(scenario), "--json", str(out)])
    return {r["agent"]: r for r in json.loads(out.read_text())["records"]}


def _assert_caught(records: dict[str, dict[str, Any]], code: str) -> None:
    contract, naive = records["contract"], records["naive"]
    assert contract["reported"]["code"] == code and contract["verdict"]["passed"]
    assert contract["observed"]["steps"] <= contract["step_bound"]
    assert not naive["verdict"]["passed"]


@pytest.mark.parametrize(
    ("make", "format"),
    [
        (lambda tmp: openhands_log(tmp / "conversation"), "openhands"),
        (lambda tmp: openai_chat(tmp / "chat.json"), "openai-chat"),
        (lambda tmp: anthropic_messages(tmp / "messages.json"), "anthropic-messages"),
    ],
)
def test_a_recorded_loop_is_stopped_by_contract_and_fails_naive(
    make: Any, format: str, tmp_path: Path
) -> None:
    data = _import(make(tmp_path), format, tmp_path / "s.json")
    assert data["ground_truth"]["first_stagnant_step"] == 2
    assert [c["name"] for t in data["script"]["cycle"] for c in t["calls"]] == ["search_tickets"]
    _assert_caught(_records(tmp_path / "s.json", tmp_path), "NO_PROGRESS")


def test_a_recorded_denial_is_blocked_input(tmp_path: Path) -> None:
    data = _import(openhands_log(tmp_path / "c", denied=True), "openhands", tmp_path / "s.json")
    assert data["ground_truth"]["stagnation"] == "first_refusal"
    assert data["expected"] == ["BLOCKED_INPUT"]
    _assert_caught(_records(tmp_path / "s.json", tmp_path), "BLOCKED_INPUT")


def test_secrets_and_headers_are_removed_and_said(tmp_path: Path, capsys: Any) -> None:
    data = _import(openai_chat(tmp_path / "chat.json"), "openai-chat", tmp_path / "s.json")
    text = (tmp_path / "s.json").read_text()
    assert SECRET not in text and "[redacted]" in text
    out = capsys.readouterr().out
    assert "removed:  headers and credentials at headers" in out
    assert "removed:  1 secret-looking value(s)" in out
    assert "removed:  1 system message(s)" in out
    assert data["provenance"]["removed"][0] == "headers and credentials at headers"


def test_a_secret_in_a_tool_schema_is_redacted(tmp_path: Path) -> None:
    """A tool description or a parameter's default may quote a key, as a system prompt may."""
    trace = openai_chat(tmp_path / "chat.json")
    body = json.loads(trace.read_text())
    function = body["tools"][0]["function"]
    function["description"] += f" Authenticate with {SECRET}."
    function["parameters"]["properties"]["query"]["default"] = f"https://bob:{SECRET}@example.com"
    trace.write_text(json.dumps(body))
    data = _import(trace, "openai-chat", tmp_path / "s.json")
    assert SECRET not in (tmp_path / "s.json").read_text()
    assert data["tools"][0]["description"].endswith(" Authenticate with [redacted].")


def test_the_twin_from_unblock_with_is_finished_by_both(tmp_path: Path) -> None:
    trace = openhands_log(tmp_path / "c")
    _import(trace, "openhands", tmp_path / "s.json",
            "--unblock-with", 'search_tickets={"results": [{"ticket": "T-1"}]}')  # fmt: skip
    out = tmp_path / "records.json"
    main(["run", "--no-progress", "--scenario-file", str(tmp_path / "s.json"),
          "--scenario", "incidents/twin-x", "--json", str(out)])  # fmt: skip
    twins = json.loads(out.read_text())["records"]
    assert {r["agent"]: r["reported"]["code"] for r in twins} == {
        "naive": "COMPLETED", "contract": "COMPLETED",
    }  # fmt: skip
    assert all(r["verdict"]["passed"] and r["solvable"] for r in twins)


def test_the_twin_from_unblock_with_shows_its_siblings_budget(tmp_path: Path) -> None:
    """An agent reads the budget before its first step: a twin with a budget of its own is told
    apart from the recorded run there, without any stop logic."""
    trace = openhands_log(tmp_path / "c")
    _import(trace, "openhands", tmp_path / "s.json",
            "--unblock-with", 'search_tickets={"results": [{"ticket": "T-1"}]}')  # fmt: skip
    recorded, twin = build(read(tmp_path / "s.json"))
    assert twin.twin_of == recorded.name
    assert twin.budget == recorded.budget


def test_a_twin_whose_budget_ends_before_its_unblocking_step_is_refused(
    tmp_path: Path, capsys: Any
) -> None:
    """Stuck at step 2, the incident's N and budget are 12 steps; its twin is unblocked by the
    escalation of step 13 and done at 14, and shows the same budget: an agent that keeps to it
    could never finish the twin."""
    out = tmp_path / "s.json"
    assert main(["import", str(late_escalation(tmp_path / "chat.json")), "--format",
                 "openai-chat", "--name", "incidents/x", "-o", str(out),
                 "--first-stagnant-step", "2",
                 "--unblock-with", 'escalate_ticket={"status": "escalated"}']) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "field 'budget.max_steps' is 12" in err
    assert "calls 'escalate_ticket', which unblocks it, first at step 13" in err
    assert "make budget.max_steps 14 or more" in err
    assert not out.exists()


def _refused_before_any_run(
    tmp_path: Path, capsys: Any, edit: Callable[[dict[str, Any]], object]
) -> str:
    """The stderr of a run of the imported incident (and its twin) once ``edit`` changed its
    file: a usage error, with no records written."""
    data = _import(openhands_log(tmp_path / "c"), "openhands", tmp_path / "s.json",
                   "--unblock-with", 'search_tickets={"results": [{"ticket": "T-1"}]}')  # fmt: skip
    edit(data)
    (tmp_path / "s.json").write_text(json.dumps(data))
    capsys.readouterr()
    out = tmp_path / "records.json"
    assert main(["run", "--no-progress", "--scenario-file", str(tmp_path / "s.json"),
                 "--json", str(out)]) == 2  # fmt: skip
    assert not out.exists()
    return str(capsys.readouterr().err)


def test_a_scenario_file_whose_twin_budget_was_cut_is_refused_before_any_run(
    tmp_path: Path, capsys: Any
) -> None:
    err = _refused_before_any_run(tmp_path, capsys, lambda data: data["budget"].update(max_steps=1))
    assert "make budget.max_steps 2 or more" in err


def test_a_scenario_file_whose_twin_must_stop_before_it_is_unblocked_is_refused(
    tmp_path: Path, capsys: Any
) -> None:
    """A twin's N before the step that unblocks it fails every agent on the twin, the stop
    logic aside: it measures nothing, so the file is refused before any run."""

    def read_first(data: dict[str, Any]) -> None:
        data["script"]["prefix"] = [{"text": f"Reading the docs ({i})"} for i in range(5)]

    err = _refused_before_any_run(tmp_path, capsys, read_first)
    assert "field 'twin.step_bound' is 6, which ends the twin before it is done" in err
    assert "calls 'search_tickets', which unblocks it, first at step 6" in err
    assert "make twin.step_bound 7 or more" in err


def test_a_scenario_file_whose_twin_is_unblocked_by_a_tool_never_called_is_refused(
    tmp_path: Path, capsys: Any
) -> None:
    """The twin's model would never call its unblocking tool: the twin would replay its
    sibling to the end, a control that cannot be done."""

    def unblock_with_another(data: dict[str, Any]) -> None:
        data["tools"].append({"name": "escalate", "description": "Escalate.", "parameters": {}})
        data["twin"]["tool"] = "escalate"

    err = _refused_before_any_run(tmp_path, capsys, unblock_with_another)
    assert "field 'twin.tool' is 'escalate', which the script never calls" in err
    assert "name a tool the script calls: ['search_tickets']" in err


def test_own_records_with_their_trajectory_import(tmp_path: Path) -> None:
    records = tmp_path / "records.json"
    main(["run", "--no-progress", "--agent", "naive", "--scenario", "oscillation/a-b",
          "--json", str(records)])  # fmt: skip
    data = _import(records, "record", tmp_path / "s.json")
    recorded = json.loads(records.read_text())["records"][0]["budget"]
    assert data["budget"] == {k: v for k, v in recorded.items() if v is not None}
    assert data["ground_truth"]["first_stagnant_step"] == 3
    assert data["task"].startswith("Make the integration test pass")
    _assert_caught(_records(tmp_path / "s.json", tmp_path), "NO_PROGRESS")


def test_a_first_stagnant_step_past_the_recording_is_refused(tmp_path: Path, capsys: Any) -> None:
    """The run is stuck at a step it recorded; a step past its end names nothing in it."""
    trace = openai_chat(tmp_path / "chat.json")
    assert main(["import", str(trace), "--format", "openai-chat", "--name", "incidents/x",
                 "-o", str(tmp_path / "s.json"), "--first-stagnant-step", "7"]) == 2  # fmt: skip
    assert "holds 6 model turn(s); name the step where it got stuck, 1 to 6" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "s.json").exists()
    data = _import(trace, "openai-chat", tmp_path / "s.json", "--first-stagnant-step", "6")
    assert data["ground_truth"]["first_stagnant_step"] == 6
