"""The README's table of stop reasons, row by row: each row is what the exports (the OTLP spans,
the ATIF file) write for that ending, and what the ACP and A2A faces read back from it."""

from __future__ import annotations

import json

import pytest

from tests._docs import marked
from tests.reports._records import record
from unsolvable import Code, Outcome
from unsolvable.adapters.a2a import read_task_state
from unsolvable.adapters.acp import read_stop_reason
from unsolvable.reports._atif import to_atif
from unsolvable.reports._otel import to_otlp_json
from unsolvable.reports._stop_reasons import ENDINGS, STOP_REASONS, Fidelity, Said

TABLE = marked("stop-reasons")
ROWS = {
    cells[0].strip("`"): cells[1:]
    for line in TABLE.strip().splitlines()[2:]
    for cells in [[cell.strip() for cell in line.strip("|").split("|")]]
}


def _cell(said: Said, *, a2a: bool = False) -> str:
    """A value as the README writes it, with how faithful it is."""
    if said.fidelity is Fidelity.NONE:
        return "none"
    if said.fidelity is Fidelity.EXACT:
        return f"`{said.value}`"
    if said.fidelity is Fidelity.NEAREST:
        return f"`{said.value}` (nearest)"
    return f"`{said.value}` + code in `metadata`" if a2a else f"`{said.value}` (custom)"


def _ending(value: str) -> Code | Outcome:
    return Code(value) if value in Code.__members__ else Outcome(value)


def test_the_table_has_one_row_per_ending() -> None:
    assert list(ROWS) == [ending.value for ending in ENDINGS]


@pytest.mark.parametrize("ending", ENDINGS, ids=str)
def test_each_row_is_what_the_export_writes(ending: Code | Outcome) -> None:
    said = STOP_REASONS[ending]
    assert ROWS[ending.value] == [_cell(said.acp), _cell(said.a2a, a2a=True), _cell(said.otel)]
    code, outcome = (ending, None) if isinstance(ending, Code) else (None, ending)
    spans = json.loads(to_otlp_json([record(code=code, outcome=outcome)]))
    root = spans["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    written = {a["key"]: a["value"].get("stringValue") for a in root["attributes"]}
    assert written.get("unsolvable.acp.stop_reason") == said.acp.value
    assert written.get("unsolvable.a2a.task_state") == said.a2a.value
    assert written.get("gen_ai.agent.finish_reason") == said.otel.value
    extra = to_atif(record(code=code, outcome=outcome))["extra"]
    assert extra.get("acp_stop_reason") == said.acp.value
    assert extra.get("a2a_task_state") == said.a2a.value
    assert extra.get("finish_reason") == said.otel.value


@pytest.mark.parametrize("code", list(Code), ids=str)
def test_each_code_said_over_acp_and_a2a_is_read_back_as_itself(code: Code) -> None:
    said = STOP_REASONS[code]
    assert said.acp.value is not None and read_stop_reason(said.acp.value) is code
    named = code.value if said.a2a.fidelity is Fidelity.EXTENSION else None
    assert said.a2a.value is not None and read_task_state(said.a2a.value, named) is code


def test_the_harness_s_own_cancel_is_read_as_no_code() -> None:
    said = STOP_REASONS[Outcome.DID_NOT_STOP]
    assert (said.acp.value, said.a2a.value) == ("cancelled", "canceled")
    assert read_stop_reason("cancelled") is None and read_task_state("canceled") is None


def test_what_cannot_be_said_is_left_out_of_the_span() -> None:
    spans = json.loads(to_otlp_json([record(code=None, outcome=Outcome.UNSTRUCTURED)]))
    keys = {a["key"] for a in spans["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"]}
    said = {"unsolvable.acp.stop_reason", "unsolvable.a2a.task_state", "gen_ai.agent.finish_reason"}
    assert not said & keys
