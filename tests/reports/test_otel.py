"""``--otel``: OTLP JSON that the OpenTelemetry protobuf schema decodes, one trace per run, the
GenAI span names and attributes, stable bytes, and the finish reasons the conventions propose."""

from __future__ import annotations

import base64
import dataclasses
import json
import shlex
import sys
from typing import Any

import pytest

import unsolvable
from tests._docs import ROOT, TEXTS
from tests.reports._records import library_records, record
from unsolvable import Code, Outcome, ToolTrace, TraceStep, scenarios
from unsolvable.adapters import claude_agent_sdk, claude_code, codex_cli, gemini_cli
from unsolvable.adapters.a2a import A2AAdapter
from unsolvable.adapters.acp import AcpAdapter
from unsolvable.reports._otel import to_otlp_json

json_format = pytest.importorskip("google.protobuf.json_format")
trace_service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
trace = pytest.importorskip("opentelemetry.proto.trace.v1.trace_pb2")
CLIENT, INTERNAL = trace.Span.SPAN_KIND_CLIENT, trace.Span.SPAN_KIND_INTERNAL

IDS = ("traceId", "spanId", "parentSpanId")


def _decode(text: str) -> Any:
    """The request as the SDK's protobuf classes read it. OTLP JSON writes ids in hex where the
    generic protobuf JSON mapping expects base64: that one difference is undone first."""
    data = json.loads(text)
    for span in _spans(data):
        for key in IDS:
            if key in span:
                span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    return json_format.Parse(json.dumps(data), trace_service.ExportTraceServiceRequest())


def _spans(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for r in data["resourceSpans"] for scope in r["scopeSpans"] for s in scope["spans"]]


def _attributes(span: Any) -> dict[str, Any]:
    return {a.key: getattr(a.value, a.value.WhichOneof("value")) for a in span.attributes}


def test_the_sdk_decodes_one_trace_per_run_nested_as_the_steps() -> None:
    records = library_records()
    request = _decode(to_otlp_json(records))
    spans = request.resource_spans[0].scope_spans[0].spans
    roots = [span for span in spans if not span.parent_span_id]
    assert len(roots) == len({span.trace_id for span in spans}) == len(records)
    assert all(len(s.trace_id) == 16 and len(s.span_id) == 8 for s in spans)
    known = {(span.trace_id, span.span_id) for span in spans}
    assert all((s.trace_id, s.parent_span_id) in known for s in spans if s.parent_span_id)
    chats = [span for span in spans if span.name == "chat"]
    assert any(r.observed.steps > len(r.observed.tail) for r in records), "runs longer than a tail"
    assert len(chats) == sum(r.observed.steps for r in records), "every step, not just the tail"
    tools = [span for span in spans if span.name.startswith("execute_tool ")]
    assert len(tools) == sum(r.observed.tool_calls for r in records)


def test_a_record_that_kept_only_its_tail_spans_the_tail() -> None:
    (full,) = [r for r in library_records() if r.observed.steps > len(r.observed.tail)][:1]
    observed = dataclasses.replace(full.observed, trajectory=())
    tail_only = dataclasses.replace(full, observed=observed)
    spans = _spans(json.loads(to_otlp_json([tail_only])))
    assert sum(span["name"] == "chat" for span in spans) == len(full.observed.tail)


def test_the_run_span_carries_the_vocabulary_and_the_lag() -> None:
    run = record(steps=7, stagnant=3, code=Code.NO_PROGRESS, lag_tokens=400)
    (root,) = [s for s in _decode(to_otlp_json([run])).resource_spans[0].scope_spans[0].spans
               if s.name.startswith("invoke_agent")]  # fmt: skip
    attributes = _attributes(root)
    assert attributes["gen_ai.operation.name"] == "invoke_agent"
    assert attributes["gen_ai.agent.name"] == "a"
    assert (attributes["unsolvable.exit"], attributes["unsolvable.code"]) == (
        "abandoned",
        "NO_PROGRESS",
    )
    assert attributes["unsolvable.first_stagnant_step"] == 3
    assert (attributes["unsolvable.lag.steps"], attributes["unsolvable.lag.tokens"]) == (4, 400)
    assert attributes["unsolvable.verdict.passed"] is True
    assert "gen_ai.agent.finish_reason" not in attributes
    assert attributes["unsolvable.finish_reason_note"] == (
        "NO_PROGRESS: no proposed gen_ai.agent.finish_reason value fits"
    )


@pytest.mark.parametrize(
    ("code", "outcome", "reason"),
    [
        (Code.COMPLETED, None, "completed"),
        (Code.BUDGET_STEPS, None, "max_iterations"),
        (Code.BUDGET_COST, None, "max_tokens"),
        (Code.BUDGET_IDLE, None, "time_budget"),
        (None, Outcome.CRASHED, "error"),
        (None, Outcome.DID_NOT_STOP, "cancelled"),
    ],
)
def test_the_closest_proposed_finish_reason(
    code: Code | None, outcome: Outcome | None, reason: str
) -> None:
    request = _decode(to_otlp_json([record(code=code, outcome=outcome)]))
    root = request.resource_spans[0].scope_spans[0].spans[0]
    assert _attributes(root)["gen_ai.agent.finish_reason"] == reason


def test_the_same_runs_give_the_same_bytes_and_wall_time_only_when_volatile() -> None:
    records = library_records()
    text = to_otlp_json(records)
    assert text == to_otlp_json(records)
    assert '"startTimeUnixNano": "1767225600000000000"' in text
    volatile = _decode(to_otlp_json(records, volatile=True)).resource_spans[0].scope_spans[0]
    assert _attributes(volatile.spans[0])["unsolvable.synthetic_time"] is False


def test_a_case_run_twice_in_a_session_keeps_two_traces() -> None:
    spans = _decode(to_otlp_json([record(), record()])).resource_spans[0].scope_spans[0].spans
    assert len({span.trace_id for span in spans}) == 2
    assert len({span.span_id for span in spans}) == len(spans)


def test_a_multi_agent_run_has_one_invoke_agent_span_per_agent_and_its_handoff() -> None:
    record = unsolvable.run("contract", scenarios.get("mixed-fan-out/one-denied"))
    spans = json.loads(to_otlp_json([record]))["resourceSpans"][0]["scopeSpans"][0]["spans"]
    agents = [s for s in spans if s["name"].startswith("invoke_agent ")]
    assert len(agents) == len(record.observed.agents)
    worker = next(s for s in agents if s["name"] == "invoke_agent worker-call_1_3")
    attributes = {a["key"]: a["value"] for a in worker["attributes"]}
    assert attributes["unsolvable.handoff.from"]["arrayValue"]["values"] == [
        {"stringValue": "main"}
    ]
    chats = [s for s in spans if s["name"] == "chat" and s["parentSpanId"] == worker["spanId"]]
    assert len(chats) == record.observed.agents["worker-call_1_3"].steps


def _spans_of(request: Any) -> list[Any]:
    return [s for r in request.resource_spans for scope in r.scope_spans for s in scope.spans]


def _raises(session: unsolvable.Session) -> None:
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    raise LookupError("no such invoice")


def test_every_agent_and_chat_span_names_its_provider_and_every_tool_span_its_type() -> None:
    """``gen_ai.provider.name`` is required on both; ``gen_ai.tool.type`` is recommended."""
    run = unsolvable.run("contract", scenarios.get("mixed-fan-out/one-denied"))
    spans = _spans_of(_decode(to_otlp_json([run])))
    operations = {_attributes(span)["gen_ai.operation.name"] for span in spans}
    assert operations == {"invoke_agent", "chat", "execute_tool"}, "a kind of span is missing"
    for span in spans:
        attributes = _attributes(span)
        operation = attributes["gen_ai.operation.name"]
        if operation in ("invoke_agent", "chat"):
            assert attributes["gen_ai.provider.name"] == "unsolvable", span.name
        else:
            assert attributes["gen_ai.tool.type"] == "function", span.name


def test_a_crashed_run_says_its_error_type_beside_the_error_status() -> None:
    run = unsolvable.run(_raises, scenarios.get("constant-return/plain"))
    assert run.outcome is Outcome.CRASHED
    (root,) = [s for s in _spans_of(_decode(to_otlp_json([run]))) if not s.parent_span_id]
    assert root.status.code == root.status.STATUS_CODE_ERROR
    assert root.status.message == "LookupError: no such invoice"
    assert _attributes(root)["error.type"] == "LookupError"


def test_an_error_that_names_no_type_is_of_the_fallback_type() -> None:
    crashed = record(code=None, outcome=Outcome.CRASHED)
    lost = dataclasses.replace(crashed.observed, error="the worker process exited with status 3")
    root = _spans_of(_decode(to_otlp_json([dataclasses.replace(crashed, observed=lost)])))[0]
    assert _attributes(root)["error.type"] == "_OTHER"


def test_runs_whose_labels_join_alike_keep_their_own_trace_and_span_ids() -> None:
    runs = [record(agent="a|b", scenario="c/d"), record(agent="a", scenario="b|c/d")]
    spans = _spans_of(_decode(to_otlp_json(runs)))
    assert len({span.trace_id for span in spans}) == 2
    assert len({span.span_id for span in spans}) == len(spans)


def test_a_nameless_agent_or_tool_gives_the_operation_alone_as_the_span_name() -> None:
    step = TraceStep(step=1, said="", tools=(ToolTrace(name="", arguments="{}", result="{}"),))
    run = record(agent="", steps=1)
    run = dataclasses.replace(run, observed=dataclasses.replace(run.observed, tail=(step,)))
    names = [span.name for span in _spans_of(_decode(to_otlp_json([run])))]
    assert names == ["invoke_agent", "chat", "execute_tool"]


def test_a_tail_of_a_sub_agents_steps_hangs_them_under_its_own_span() -> None:
    whole = unsolvable.run("naive", scenarios.get("fan-out/plain"))
    tail = dataclasses.replace(whole, observed=dataclasses.replace(whole.observed, trajectory=()))
    spans = json.loads(to_otlp_json([tail]))["resourceSpans"][0]["scopeSpans"][0]["spans"]
    (worker,) = [s for s in spans if s["name"] == "invoke_agent worker-8"]
    chats = [s for s in spans if s["name"] == "chat"]
    assert len(chats) == 6 and all(s["parentSpanId"] == worker["spanId"] for s in chats)


def test_an_agent_in_a_process_of_its_own_is_invoked_as_a_client_one_in_the_harness_within() -> (
    None
):
    """The conventions' ``invoke_agent`` span kind: CLIENT for an agent reached over a process
    boundary (an ``exec:`` program, run here for real), INTERNAL for one in the harness's own
    process, and for the sub-agents a system invokes within itself."""
    remote = unsolvable.run(
        f"exec:{shlex.quote(sys.executable)} -c pass", scenarios.get("constant-return/plain")
    )
    here = unsolvable.run("contract", scenarios.get("mixed-fan-out/one-denied"))
    spans = _spans_of(_decode(to_otlp_json([remote, here])))
    kinds = {s.name: s.kind for s in spans if s.name.startswith("invoke_agent ")}
    assert kinds.pop(f"invoke_agent {remote.agent}") == CLIENT
    assert kinds.pop("invoke_agent contract") == INTERNAL
    assert len(kinds) == len(here.observed.agents or ()) - 1 > 0, "the sub-agents"
    assert set(kinds.values()) == {INTERNAL}


def _run_span(agent: str) -> Any:
    """The ``invoke_agent`` span of a run of ``agent``: its trace's root."""
    spans = _spans_of(_decode(to_otlp_json([record(agent=agent)])))
    (root,) = [span for span in spans if not span.parent_span_id]
    return root


@pytest.mark.parametrize(
    "agent",
    [
        AcpAdapter(["gemini", "--experimental-acp"]).name,
        A2AAdapter(["python", "serve.py"]).name,
        claude_code.adapter.name,
        codex_cli.adapter.name,
        gemini_cli.adapter.name,
        claude_agent_sdk.adapter.name,
    ],
)
def test_every_remote_agent_is_named_as_its_adapter_labels_it(agent: str) -> None:
    """The record keeps the label its spec or adapter gave the agent, and the label tells."""
    root = _run_span(agent)
    assert (root.name, root.kind) == (f"invoke_agent {agent}", CLIENT)


@pytest.mark.parametrize("agent", ["naive", "mypkg.agents:my_agent", "my-agent", "exec"])
def test_any_other_label_is_an_agent_in_the_same_process(agent: str) -> None:
    """A label no remote spec or adapter gives, an ``exec:`` agent renamed ``NAME=SPEC`` too:
    the record does not say the agent ran elsewhere, and the docs say how it is read."""
    assert _run_span(agent).kind == INTERNAL


def test_the_metrics_page_names_every_attribute_of_the_run_span() -> None:
    """A reader querying the spans finds each key the run's span carries on the exports page,
    whole or as the page shortens a family of them (``.tokens`` after ``unsolvable.lag.steps``)."""
    page = TEXTS[ROOT / "docs" / "metrics.md"]
    data = json.loads(to_otlp_json(library_records()))
    keys = {
        a["key"] for span in _spans(data) if "parentSpanId" not in span for a in span["attributes"]
    }
    unnamed = [
        key
        for key in sorted(keys)
        if f"`{key}`" not in page
        and f"`.{key.rpartition('.')[2]}`" not in page
        and f"/`{key.rpartition('.')[2]}`" not in page
    ]
    assert unnamed == []
