"""`TerminationRecord.from_dict` gives back the record `to_dict` wrote: what xdist workers,
worker processes and ``--json`` files carry must be the record the run judged, field for field."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import unsolvable
from unsolvable import Code, Outcome, Rule, Stop, TerminationRecord, scenarios
from unsolvable.agents import contract, naive


def _raises(session: unsolvable.Session) -> object:
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    raise RuntimeError("the agent broke")


def _returns_text(session: unsolvable.Session) -> object:
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    return "done, I think"


def _gives_up_with_partial(session: unsolvable.Session) -> Stop:
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    return Stop(
        code=Code.NO_PROGRESS, reason="stuck", partial={"found": [1, 2]}, missing=("the key",)
    )


def _gives_up_with_a_partial_too_long_to_keep(session: unsolvable.Session) -> Stop:
    """A partial whose JSON is past the record's bound, so that the record keeps it cut, as text:
    its quotes escaped once more each time it were read back as a partial and written again."""
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    found = [json.dumps({"page": page, "lines": ['"quoted"'] * 400}) for page in range(40)]
    return Stop(code=Code.NO_PROGRESS, reason="stuck", partial=found)


RUNS = {
    "stopped by contract": (contract, "missing-permission/retry-403"),
    "false completion": (naive, "constant-return/claims-success"),
    "did not stop": (naive, "constant-return/repeat"),
    "crashed": (_raises, "constant-return/repeat"),
    "unstructured": (_returns_text, "constant-return/repeat"),
    "stop with partial and missing": (_gives_up_with_partial, "dependency-unavailable/retry"),
    "stop with a partial cut": (
        _gives_up_with_a_partial_too_long_to_keep,
        "dependency-unavailable/retry",
    ),
}


def _run(kind: str) -> TerminationRecord:
    agent, name = RUNS[kind]
    return unsolvable.run(agent, scenarios.get(name), seed=1)


@pytest.mark.parametrize("kind", RUNS)
def test_every_field_survives_the_volatile_json_form(kind: str) -> None:
    record = _run(kind)
    revived = TerminationRecord.from_dict(json.loads(record.to_json(volatile=True)))
    assert revived == record
    assert revived.to_json(volatile=True) == record.to_json(volatile=True)


@pytest.mark.parametrize("kind", RUNS)
def test_the_stable_form_revives_all_but_the_wall_time(kind: str) -> None:
    record = _run(kind)
    revived = TerminationRecord.from_dict(record.to_dict())
    assert revived.wall_seconds == 0.0
    assert revived.to_dict() == record.to_dict()


def test_the_revived_parts_are_typed_not_left_as_plain_dicts() -> None:
    record = _run("stop with partial and missing")
    assert record.observed.tail and record.observed.tail[-1].calls, "the run must have a trace"
    revived = TerminationRecord.from_dict(json.loads(record.to_json()))
    assert revived.outcome is Outcome.STOPPED
    assert isinstance(revived.reported, Stop) and revived.reported.code is Code.NO_PROGRESS
    assert revived.reported.missing == ("the key",)
    assert revived.reported.partial == {"found": [1, 2]}
    step = revived.observed.tail[-1]
    assert isinstance(step, unsolvable.TraceStep)
    assert all(isinstance(call, unsolvable.ToolTrace) for call in (*step.calls, *step.tools))
    assert step == record.observed.tail[-1]


def test_failures_come_back_with_their_rules() -> None:
    record = _run("false completion")
    assert record.verdict.failures, "naive claims success here and must fail"
    revived = TerminationRecord.from_dict(json.loads(record.to_json()))
    assert [f.rule for f in revived.verdict.failures] == [f.rule for f in record.verdict.failures]
    assert all(isinstance(f.rule, Rule) for f in revived.verdict.failures)
    assert revived.verdict.strict == record.verdict.strict
    assert revived.verdict.passed is False


def test_keys_it_does_not_know_are_dropped_at_every_level() -> None:
    data: dict[str, Any] = json.loads(_run("stopped by contract").to_json(volatile=True))
    data["from_a_newer_harness"] = 1
    data["observed"]["also_new"] = 2
    data["reported"]["new_too"] = 3
    data["verdict"]["and_this"] = 4
    for step in data["observed"]["tail"]:
        step["extra"] = 5
        for call in step["calls"]:
            call["extra"] = 6
    assert TerminationRecord.from_dict(data) == _run("stopped by contract")


def test_a_step_without_calls_or_tools_revives_with_empty_ones() -> None:
    data: dict[str, Any] = json.loads(_run("did not stop").to_json(volatile=True))
    for step in data["observed"]["tail"]:
        del step["calls"], step["tools"]
    revived = TerminationRecord.from_dict(data)
    assert revived.observed.tail
    assert all(s.calls == () and s.tools == () for s in revived.observed.tail)


def test_no_reported_stop_revives_as_none() -> None:
    data: dict[str, Any] = json.loads(_run("did not stop").to_json(volatile=True))
    assert data["reported"] is None
    assert TerminationRecord.from_dict(data).reported is None
    del data["reported"]
    assert TerminationRecord.from_dict(data).reported is None


def test_an_older_file_without_a_trajectory_or_failures_revives() -> None:
    """A ``--json`` file from before the whole trajectory was kept, and a verdict written
    without its (empty) failures, read back as no steps and no failures."""
    data: dict[str, Any] = json.loads(_run("stopped by contract").to_json(volatile=True))
    del data["observed"]["trajectory"], data["observed"]["tail"], data["verdict"]["failures"]
    revived = TerminationRecord.from_dict(data)
    assert (revived.observed.trajectory, revived.observed.tail) == ((), ())
    assert revived.verdict.failures == ()


def _set(data: dict[str, Any], path: tuple[str | int, ...], value: object) -> None:
    for key in path[:-1]:
        data = data[key]  # type: ignore[index]
    data[path[-1]] = value  # type: ignore[index]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (
            ("observed", "tail", 0, "tools", 0, "name"),
            5,
            "TerminationRecord.observed.tail[0].tools[0].name is a int (5), not a string",
        ),
        (
            ("observed", "steps"),
            "3",
            "TerminationRecord.observed.steps is a str ('3'), not a whole number",
        ),
        (
            ("observed", "steps"),
            True,
            "TerminationRecord.observed.steps is a bool (True), not a whole number",
        ),
        (
            ("outcome",),
            "won",
            "TerminationRecord.outcome is a str ('won'), not one of stopped, unstructured,"
            " crashed, did_not_stop",
        ),
        (
            ("observed", "tail"),
            {"0": {}},
            "TerminationRecord.observed.tail is a dict ({'0': {}}), not a list",
        ),
        (("verdict",), [], "TerminationRecord.verdict is a list ([]), not an object"),
        (
            ("observed", "steps_by_agent", "main"),
            "3",
            "TerminationRecord.observed.steps_by_agent.main is a str ('3'), not a whole number",
        ),
        (
            ("reported", "reason"),
            7,
            "TerminationRecord.reported.reason is a int (7), not a string",
        ),
        (
            ("step_bound",),
            0,
            "TerminationRecord: step_bound is 0: a scenario's N is 1 step or more",
        ),
    ],
    ids=["deep-in-a-step", "a-count-as-text", "a-count-as-boolean", "unknown-outcome",
         "steps-as-an-object", "verdict-as-a-list", "a-count-in-a-mapping", "a-reason-as-a-number",
         "no-bound"],
)  # fmt: skip
def test_a_field_that_is_not_what_the_record_holds_is_named(
    path: tuple[str | int, ...], value: object, message: str
) -> None:
    """Data from a worker or a file is checked field by field: the first field that is not of
    its type is named by its whole path, with what was found and what a record holds."""
    data: dict[str, Any] = json.loads(_run("stopped by contract").to_json(volatile=True))
    assert data["observed"]["tail"][0]["tools"], "the run must have called a tool"
    _set(data, path, value)
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        TerminationRecord.from_dict(data)


def test_a_missing_field_that_cannot_be_null_is_named() -> None:
    data: dict[str, Any] = json.loads(_run("stopped by contract").to_json(volatile=True))
    del data["observed"]["steps"]
    with pytest.raises(ValueError, match=r"^TerminationRecord\.observed\.steps is missing$"):
        TerminationRecord.from_dict(data)


def _upper(text: str) -> str:
    return text.upper()


def test_a_clean_function_rewrites_every_string_but_the_records_own_words() -> None:
    """Read with ``clean`` (the harness's redaction of a worker's record), every string the
    record holds is cleaned as the same record cleaned on its way out (`to_dict`) is; its field
    names and enum members are read as they are, so a redaction cannot unmake the record."""
    record = _run("stop with partial and missing")
    read = TerminationRecord.from_dict(record.to_dict(), clean=_upper)
    assert read.to_dict() == TerminationRecord.from_dict(record.to_dict(clean=_upper)).to_dict()
    assert read.reported is not None and read.reported.code is Code.NO_PROGRESS
    assert read.reported.reason == "STUCK" and read.reported.missing == ("THE KEY",)
    assert read.reported.partial == {"FOUND": [1, 2]}
    assert read.observed.steps_by_agent == {"MAIN": 1}
    step = read.observed.trajectory[0]
    assert step.agent == "MAIN" and step.said == record.observed.trajectory[0].said.upper()


def test_a_field_that_is_wrong_is_shown_cleaned() -> None:
    """The value a wrong field is quoted with is cleaned first: a worker's garbled record must
    not carry a secret into the error that is written in its place."""
    data: dict[str, Any] = json.loads(_run("stopped by contract").to_json(volatile=True))
    data["observed"]["steps"] = "key sk-live-0123456789"
    message = r"^TerminationRecord\.observed\.steps is a str \('KEY SK-LIVE-0123456789'\), not "
    with pytest.raises(ValueError, match=message):
        TerminationRecord.from_dict(data, clean=_upper)
