"""What a record does to what the agent handed it: every string the agent wrote is redacted in
every part of its stop, a single missing item stays one item, and a wrong code names the fix."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

import unsolvable
from tests import _builders as b
from tests.reports import _records as records
from unsolvable import Code, Stop, TerminationRecord
from unsolvable._redact import Redactor
from unsolvable._run import redacted_data

SECRET = "Bearer abcdefghijklmnop1234567890"


def test_a_secret_is_redacted_from_the_reason_the_partial_and_the_missing_items() -> None:
    stop = Stop(code=Code.NEEDS_HUMAN, reason=SECRET, partial={"token": SECRET}, missing=(SECRET,))
    record = unsolvable.run(b.steps_then(1, stop), b.scenario())
    assert record.reported is not None
    assert "abcdefghijklmnop" not in record.to_json(volatile=True)
    assert record.reported.missing == ("Bearer [redacted]",)
    assert record.reported.reason == "Bearer [redacted]"
    assert record.reported.partial == {"token": "Bearer [redacted]"}


def test_one_missing_item_given_as_a_string_stays_one_item() -> None:
    assert Stop(code=Code.BLOCKED_INPUT, missing="the API key").missing == ("the API key",)  # type: ignore[arg-type]


def test_an_unknown_code_lists_the_valid_ones_and_how_to_pass_them() -> None:
    codes = ", ".join(code.value for code in Code)
    message = (
        f"Stop(code='STUCK'): not a termination code; use one of {codes} "
        "(unsolvable.Code, or its string value)"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        Stop(code="STUCK")  # type: ignore[arg-type]


def test_a_failure_given_its_rule_by_name_holds_the_rule() -> None:
    failure = unsolvable.Failure(rule="false_completion", message="m")  # type: ignore[arg-type]
    assert failure.rule is unsolvable.Rule.FALSE_COMPLETION


def test_a_secret_is_redacted_from_every_trace_field_the_error_and_the_failures() -> None:
    """Each string of the trajectory and its tail (the model's text, the calls it asked for,
    the tools' arguments and results), the error, the return value, the output and the failure
    messages: the whole record is cleaned as it leaves the run."""
    tool = unsolvable.ToolTrace(name="t", arguments=SECRET, result=SECRET, world="w")
    asked = unsolvable.ToolTrace(name="t", arguments=SECRET, result="")
    step = unsolvable.TraceStep(step=1, said=SECRET, calls=(asked,), tools=(tool,))
    base = records.record()
    observed = dataclasses.replace(base.observed, tail=(step,), trajectory=(step,), error=SECRET)
    failure = unsolvable.Failure(rule=unsolvable.Rule.FALSE_COMPLETION, message=SECRET)
    verdict = dataclasses.replace(base.verdict, passed=False, failures=(failure,))
    leaky = dataclasses.replace(
        base, observed=observed, verdict=verdict, returned=SECRET, output=SECRET
    )
    cleaned = unsolvable.TerminationRecord.from_dict(redacted_data(leaky, Redactor({})))
    redacted = "Bearer [redacted]"
    clean_tool = unsolvable.ToolTrace(name="t", arguments=redacted, result=redacted, world="w")
    clean_asked = unsolvable.ToolTrace(name="t", arguments=redacted, result="")
    expected = unsolvable.TraceStep(
        step=1, said=redacted, calls=(clean_asked,), tools=(clean_tool,)
    )
    assert cleaned.observed.tail == cleaned.observed.trajectory == (expected,)
    assert (cleaned.observed.error, cleaned.returned, cleaned.output) == (redacted,) * 3
    assert cleaned.verdict.failures == (dataclasses.replace(failure, message=redacted),)
    assert "abcdefghijklmnop" not in cleaned.to_json(volatile=True)


def test_a_partial_result_json_cannot_write_with_sorted_keys_is_kept_as_its_repr() -> None:
    """Keys of mixed types cannot be sorted: the record keeps the repr and still writes."""
    mixed = {1: "a", "b": 2}
    record = unsolvable.run(
        b.steps_then(1, Stop(code=Code.NO_PROGRESS, partial=mixed)), b.scenario()
    )
    assert record.reported is not None and record.reported.partial == repr(mixed)
    assert json.loads(record.to_json())["reported"]["partial"] == repr(mixed)
    plain = {"b": [1, {"c": None}], "a": 2.5}
    kept = unsolvable.run(b.steps_then(1, Stop(code=Code.NO_PROGRESS, partial=plain)), b.scenario())
    assert kept.reported is not None and kept.reported.partial == plain


def test_a_secret_that_is_a_field_name_is_redacted_where_the_agent_wrote_it_and_nowhere_else() -> (
    None
):
    """The record's own keys are its schema and stay; a key the agent chose (in its partial
    result) is the agent's text and is cleaned like any other, whatever its name."""
    stop = Stop(code=Code.NO_PROGRESS, partial={"input_tokens": 1, "other": "input_tokens"})
    record = unsolvable.run(b.steps_then(1, stop), b.scenario())
    data = redacted_data(record, Redactor({"LEAKED_TOKEN": "input_tokens"}))
    assert data["reported"]["partial"] == {"[redacted]": 1, "other": "[redacted]"}
    assert data["observed"]["input_tokens"] == record.observed.input_tokens > 0
    assert TerminationRecord.from_dict(data).observed == record.observed
