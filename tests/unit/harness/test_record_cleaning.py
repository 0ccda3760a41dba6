"""What a record does to what the agent handed it: every string the agent wrote is redacted in
every part of its stop, a single missing item stays one item, and a wrong code names the fix."""

from __future__ import annotations

import re

import pytest

import harness
from harness import Code, Stop
from tests import _builders as b

SECRET = "Bearer abcdefghijklmnop1234567890"


def test_a_secret_is_redacted_from_the_reason_the_partial_and_the_missing_items() -> None:
    stop = Stop(code=Code.NEEDS_HUMAN, reason=SECRET, partial={"token": SECRET}, missing=(SECRET,))
    record = harness.run(b.steps_then(1, stop), b.scenario())
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
        "(harness.Code, or its string value)"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        Stop(code="STUCK")  # type: ignore[arg-type]


def test_a_failure_given_its_rule_by_name_holds_the_rule() -> None:
    failure = harness.Failure(rule="false_completion", message="m")  # type: ignore[arg-type]
    assert failure.rule is harness.Rule.FALSE_COMPLETION
