"""The session's accounting at its edges: lag measured from the right step, ceilings checked on
every call and kept, results handed to the right step, tokens charged for what was offered."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import pytest

import unsolvable
from tests import _builders as b
from unsolvable import (
    JSON,
    Call,
    Ceilings,
    GiveUp,
    ModelResponse,
    Repeat,
    Session,
    Setup,
    Stagnation,
    ToolResult,
    ToolSpec,
    ToolTrace,
    TraceStep,
    scenarios,
)
from unsolvable._dispatch import canonical_arguments, parse_arguments
from unsolvable._errors import CeilingHit
from unsolvable._model import estimate_tokens
from unsolvable._offered import offered_tools
from unsolvable._session import end_at_ceiling
from unsolvable._text import cut
from unsolvable._trajectory import TEXT_CUT
from unsolvable.fake_tools import FakeWorld, Tool, ToolRouter


def _session(scenario: unsolvable.Scenario | None = None, **ceilings: float) -> unsolvable.Session:
    scenario = scenario or b.scenario(step_bound=50)
    return unsolvable.Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings(**ceilings))


def _step(session: unsolvable.Session, *tools: str, agent: str = "main") -> unsolvable.JSON:
    reply = session.call_model([{"role": "user", "content": "go"}], ["search"], agent=agent)
    for name in tools:
        session.call_tool(name, {}, agent=agent)
    return reply


def test_lag_tokens_and_cost_are_spent_from_the_first_stagnant_step_on() -> None:
    session = _session()
    usages = [_step(session, "search")["usage"] for _ in range(4)]
    observed = session.finish()
    assert observed.first_stagnant_step == 2
    assert observed.lag_tokens == sum(u["total_tokens"] for u in usages[1:])
    pricing = b.scenario().pricing
    later = [(u["prompt_tokens"], u["completion_tokens"]) for u in usages[1:]]
    expected = sum(pricing.cost(i, o) for i, o in later)
    assert observed.lag_cost_usd == round(expected, 6)
    total = pricing.cost(observed.input_tokens, observed.output_tokens)
    assert observed.cost_usd == round(total, 6) and observed.cost_usd > observed.lag_cost_usd
    assert observed.detection_lag == 2


def test_a_stop_before_the_stagnant_step_has_negative_lag_in_tokens_and_dollars() -> None:
    session = _session(b.scenario(stagnation=Stagnation.BUDGET_SPENT, step_bound=50))
    usage = [_step(session, "search")["usage"] for _ in range(2)][-1]
    observed = session.finish()
    # the step budget's last step is 50: steps 3..49 skipped, projected at step 2's spend
    cost = b.scenario().pricing.cost(usage["prompt_tokens"], usage["completion_tokens"])
    assert (observed.first_stagnant_step, observed.detection_lag) == (50, -48)
    assert observed.lag_tokens == -47 * usage["total_tokens"]
    assert observed.lag_cost_usd == round(-47 * cost, 6)


def test_a_control_has_no_stagnant_step_and_no_lag_in_the_record() -> None:
    session = _session(b.scenario(solvable=True, step_bound=50))
    _step(session, "search")
    observed = session.finish()
    assert (observed.first_stagnant_step, observed.detection_lag) == (None, None)
    assert (observed.lag_tokens, observed.lag_cost_usd) == (None, None)


def test_the_step_ceiling_lets_exactly_max_steps_model_calls_through() -> None:
    session = _session(max_steps=3)
    for _ in range(3):
        _step(session)
    with pytest.raises(CeilingHit, match="ceiling steps"):
        _step(session)
    assert (session.ceiling, session.finish().steps) == ("steps", 3)


def test_the_tool_call_ceiling_lets_exactly_max_tool_calls_through() -> None:
    session = _session(max_tool_calls=2)
    _step(session, "search", "search")
    with pytest.raises(CeilingHit, match="ceiling tool_calls"):
        session.call_tool("search", {})
    assert (session.ceiling, session.finish().tool_calls) == ("tool_calls", 2)


@pytest.mark.parametrize("call", ["model", "tool"])
def test_the_wall_ceiling_is_checked_inside_every_call(call: str) -> None:
    session = _session(max_wall_seconds=0.05)
    time.sleep(0.06)
    with pytest.raises(CeilingHit, match="wall_seconds"):
        _step(session) if call == "model" else session.call_tool("search", {})
    assert session.ceiling == "wall_seconds"


def test_a_hit_ceiling_is_kept_and_raised_on_every_later_call() -> None:
    session = _session(max_steps=1)
    _step(session)
    for _ in range(2):
        with pytest.raises(CeilingHit, match="ceiling steps"):
            _step(session)
        with pytest.raises(CeilingHit, match="ceiling steps"):
            session.call_tool("search", {})
    end_at_ceiling(session, "wall_seconds")
    assert (session.ceiling, session.finish().ceiling) == ("steps", "steps")


def test_each_step_sees_only_the_results_of_its_own_agent_since_its_last_step() -> None:
    scenario = b.scenario(step_bound=50)
    setup = scenario.build(0)
    session = unsolvable.Session(scenario, setup, seed=0, ceilings=Ceilings())

    def results(agent: str = "main") -> tuple[str, ...]:
        _step(session, agent=agent)
        return setup.model.last_request.results  # type: ignore[attr-defined, no-any-return]

    results()
    main = (session.call_tool("search", {}), session.call_tool("search", {}))
    worker = (session.call_tool("search", {}, agent="worker"),)
    assert (results(), results(), results("worker")) == (main, (), worker)


def test_input_tokens_charge_only_the_tools_that_were_offered() -> None:
    session, messages = _session(), [{"role": "user", "content": "go"}]
    spec = [b.SEARCH.to_openai()]
    offered = session.call_model(messages, ["search"])["usage"]["prompt_tokens"]
    unknown = session.call_model(messages, ["nothing-like-it"])["usage"]["prompt_tokens"]
    assert offered == estimate_tokens(messages) + estimate_tokens(spec)
    assert unknown == estimate_tokens(messages)


def test_output_tokens_are_the_reply_message_and_add_up() -> None:
    session = _session()
    reply = session.call_model([], ["search"])
    usage, message = reply.pop("usage"), reply
    assert usage["completion_tokens"] == estimate_tokens([message])
    observed = session.finish()
    assert (observed.input_tokens, observed.output_tokens) == (
        usage["prompt_tokens"],
        usage["completion_tokens"],
    )
    assert observed.tokens == usage["total_tokens"]


@pytest.mark.parametrize(
    ("calls", "most"),
    [
        ([("search", {}), ("search", {}), ("search", {"q": 1})], 2),
        ([("search", {"q": 1}), ("search", {"q": 2}), ("search", {"q": 3})], 1),
        ([("search", {}), ("other", {})], 1),
        ([("search", '{"q": 1, "p": 2}'), ("search", {"p": 2, "q": 1})], 2),
    ],
)
def test_max_repeated_action_is_keyed_by_name_and_canonical_arguments(
    calls: list[tuple[str, object]], most: int
) -> None:
    session = _session()
    for name, arguments in calls:
        session.call_tool(name, arguments)  # type: ignore[arg-type]
    assert session.finish().max_repeated_action == most


def _on_threads(worker: Callable[[str], None], workers: int) -> None:
    """Runs ``worker`` on ``workers`` threads at once, named ``w0``, ``w1``, …, until all end."""
    threads = [threading.Thread(target=worker, args=(f"w{i}",)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_concurrent_workers_get_one_step_number_each() -> None:
    scenario = b.scenario(step_bound=50)
    session = _session(scenario, max_steps=400)
    seen: list[str] = []

    def worker(name: str) -> None:
        for _ in range(50):
            seen.append(_step(session, agent=name)["tool_calls"][0]["id"])

    _on_threads(worker, 4)
    observed = session.finish()
    assert sorted(seen) == sorted(f"call_{step}_0" for step in range(1, 201))
    assert observed.steps_by_agent == {f"w{i}": 50 for i in range(4)}


def _cost(session: unsolvable.Session, reply: unsolvable.JSON) -> float:
    usage = reply["usage"]
    return session.pricing.cost(usage["prompt_tokens"], usage["completion_tokens"])


def test_workers_steps_the_dollar_budget_covered_are_affordable_after_a_longer_one() -> None:
    """Two workers on threads, each admitted by its own short conversation's cost, call the
    model at once after the supervisor's long step left less than that step cost: both steps
    fit, so neither is one the budget could not cover."""
    long = [{"role": "user", "content": "read all of it " * 500}]
    short = [{"role": "user", "content": "go"}]
    measuring = _session()
    costs = [
        _cost(measuring, measuring.call_model(m, ["search"], agent=a))
        for m, a in ((long, "s"), (short, "w"))
    ]
    budget = costs[0] + 2.5 * costs[1]
    session = _session(b.scenario(step_bound=9).with_overrides(max_cost_usd=budget))
    session.call_model(long, ["search"], agent="supervisor")
    admitted = threading.Barrier(2)

    def worker(name: str) -> None:
        admitted.wait()  # both admitted on what is left before either step is charged
        session.call_model(short, ["search"], agent=name)

    _on_threads(worker, 2)
    observed = session.finish()
    assert (observed.overshoot_cost_usd, observed.unaffordable_steps) == (0, 0)


def test_a_tool_call_counts_at_its_own_agents_step_whatever_another_agent_did_since() -> None:
    scenario = scenarios.get("missing-permission/retry-403")
    session = Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings())
    opening = [{"role": "user", "content": session.task}]
    first = session.call_model(opening, session.tools, agent="a")
    second = session.call_model(opening, session.tools, agent="b")
    for agent, reply in (("a", first), ("b", second)):
        call = reply["tool_calls"][0]["function"]
        session.call_tool(call["name"], call["arguments"], agent=agent)
    observed = session.finish()
    refused = [step.step for step in observed.trajectory if step.tools]
    assert refused == [1, 2] and observed.refusals == {"denied": 2}
    assert observed.first_stagnant_step == 1, "the step of a's refused call, as traced"


def test_give_up_step_final_answers_and_transport_attempts_are_counted() -> None:
    script = GiveUp(after=2, reason="no", before=Repeat(call=Call(name="search")))
    session = _session(b.scenario(script=script))
    for _ in range(4):
        _step(session)
    session.call_model([], None)
    session.call_model([], [])
    _step(session)
    session.count_transport_attempt()
    observed = session.finish()
    with pytest.raises(unsolvable.SessionClosed):  # the run is over: nothing more is counted
        session.call_model([], None)
    assert (observed.gave_up_at_step, observed.final_answer_calls) == (3, 2)
    assert session.finish().final_answer_calls == 2
    assert (observed.transport_attempts, observed.steps_by_agent) == (1, {"main": 7})


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [(None, {}), ("", {}), ("  ", {}), ('{"b": 1, "a": 2}', {"a": 2, "b": 1})],
)
def test_arguments_are_parsed_and_canonical(raw: str | None, parsed: unsolvable.JSON) -> None:
    assert parse_arguments(raw) == parsed
    assert canonical_arguments(raw) == json.dumps(parsed, sort_keys=True)


@pytest.mark.parametrize("raw", ["not json", "[1, 2]", "3"])
def test_arguments_that_are_no_json_object_are_refused_and_traced_as_given(raw: str) -> None:
    with pytest.raises(ValueError, match="arguments are not a JSON object"):
        parse_arguments(raw)
    assert canonical_arguments(raw) == raw


def test_tools_are_named_from_every_shape_an_agent_offers() -> None:
    tools = [b.SEARCH, b.SEARCH.to_openai(), {"name": "plain"}, "bare"]
    assert [tool.name for tool in offered_tools([*tools, {"description": "no name"}])] == [
        "search",
        "search",
        "plain",
        "bare",
        "",
    ]
    assert offered_tools(None) == ()


def test_text_is_cut_to_one_readable_line() -> None:
    assert cut("x" * TEXT_CUT, TEXT_CUT) == "x" * TEXT_CUT
    assert cut("x" * (TEXT_CUT + 1), TEXT_CUT) == "x" * (TEXT_CUT - 1) + "…"


def test_values_json_cannot_encode_become_their_text() -> None:
    assert canonical_arguments({"at": object}) == json.dumps({"at": str(object)})


def test_the_tail_shows_what_the_model_said_and_asked_and_what_the_agent_did() -> None:
    session = _session()
    session.call_model([], ["search"])
    text = session.call_tool("search", {"q": 1})
    world = session._setup.world.fingerprint()
    asked = ToolTrace(name="search", arguments="{}", result="")
    done = ToolTrace(name="search", arguments='{"q": 1}', result=text, world=world)
    assert session.finish().tail == (
        TraceStep(step=1, said="Attempt 1.", calls=(asked,), tools=(done,)),
    )


def test_tool_calls_before_any_step_and_silent_models_are_traced_too() -> None:
    scenario = b.scenario()
    setup = scenario.build(0)

    class Silent:
        name = "silent"

        def respond(self, request: object) -> ModelResponse:
            return ModelResponse()

    setup = Setup(world=setup.world, toolbox=setup.toolbox, model=Silent())
    session = unsolvable.Session(scenario, setup, seed=0, ceilings=Ceilings())
    session.call_tool("search", {})
    session.call_model([], ["search"])
    tail = session.finish().tail
    assert [(step.step, step.said, len(step.tools)) for step in tail] == [(0, "", 1), (1, "", 0)]


def test_a_stop_on_the_stagnant_step_spends_that_step_as_lag() -> None:
    session = _session()
    _step(session, "search")
    last = _step(session, "search")["usage"]["total_tokens"]
    observed = session.finish()
    assert (observed.first_stagnant_step, observed.steps, observed.lag_tokens) == (2, 2, last)


def test_no_tool_call_means_no_repeated_action() -> None:
    session = _session()
    _step(session)
    assert session.finish().max_repeated_action == 0


def test_sleep_waits_on_the_session_clock_at_once_and_is_recorded() -> None:
    session = _session()
    before = time.monotonic()
    session.sleep(30)
    session.sleep(-5)  # no time travel
    assert time.monotonic() - before < 30 and session.clock >= 30 > session.elapsed  # no wait
    assert session.finish().slept_seconds == 30
    with pytest.raises(unsolvable.SessionClosed):
        session.sleep(1)


def test_waits_made_at_once_by_workers_on_threads_add_up_on_the_one_clock() -> None:
    """Which of two waits made at once comes first is the threads' choice: a clock that let them
    overlap would not give the same record twice, so four waits of 60 s spend 240 s."""
    session = _session()
    ready = threading.Barrier(4)

    def worker() -> None:
        ready.wait()
        session.sleep(60)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert session.finish().slept_seconds == 240


def test_an_agent_that_honours_retry_after_literally_does_not_run_out_of_wall_time() -> None:
    def literal(session: unsolvable.Session) -> unsolvable.Stop:
        messages = [{"role": "user", "content": session.task}]
        while session.clock < (session.budget.max_wall_seconds or 0):
            reply = session.call_model(messages, session.tools)
            if not reply.get("tool_calls"):
                return unsolvable.Stop(code=unsolvable.Code.COMPLETED)
            for call in reply["tool_calls"]:
                function = call["function"]
                result = json.loads(session.call_tool(function["name"], function["arguments"]))
                session.sleep(result.get("error", {}).get("retry_after", 0))
        return unsolvable.Stop(code=unsolvable.Code.BUDGET_TIME, partial={"waited": session.clock})

    record = unsolvable.run(literal, scenarios.get("slow-dependency/fails-5"))
    assert record.verdict.passed and record.observed.slept_seconds == 5


def test_a_tool_that_edits_its_arguments_does_not_edit_the_next_calls() -> None:
    """The tool gets its own copy of the arguments every call."""
    seen: list[JSON] = []

    def edits(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        seen.append(json.loads(json.dumps(arguments)))
        assert isinstance(arguments, dict)
        arguments["query"] = "edited"
        arguments.setdefault("nested", []).append(1)
        return ToolResult(text="ok", observation="ok")

    scenario = b.scenario()
    setup = scenario.build(0)
    tool = Tool(spec=ToolSpec(name="edit", description="."), handler=edits)
    assert isinstance(setup.world, FakeWorld)
    setup = dataclasses.replace(setup, toolbox=ToolRouter(setup.world, [tool]))
    session = unsolvable.Session(scenario, setup, seed=0, ceilings=Ceilings())
    for raw in ['{"query": "a"}', '{"query": "a"}', '{"nested": [0]}', '{"nested": [0]}']:
        session.call_tool("edit", raw)
    assert seen == [{"query": "a"}, {"query": "a"}, {"nested": [0]}, {"nested": [0]}]
    assert session.finish().max_repeated_action == 2


def test_a_conversation_whose_last_known_message_changed_is_counted_afresh() -> None:
    """Its first message is the same, so only the last one it shares with the conversation
    counted before tells it is another conversation."""
    session = _session()
    task = {"role": "user", "content": "find the invoice"}
    counted = [task, {"role": "user", "content": "a short one"}]
    session.call_model(counted, None)
    other = [task, {"role": "user", "content": "another, much longer last message " * 4}]
    assert session.call_model(other, None)["usage"]["prompt_tokens"] == estimate_tokens(other)


def test_the_reply_echoed_back_counts_what_it_was_charged() -> None:
    session = _session()
    task = {"role": "user", "content": "go"}
    answer = session.call_model([task], None)
    echoed = {k: v for k, v in answer.items() if k != "usage"}
    usage = session.call_model([task, echoed], None)["usage"]
    charged = answer["usage"]["completion_tokens"]
    assert usage["prompt_tokens"] == estimate_tokens([task]) + charged
    assert charged == estimate_tokens([echoed])


def test_a_call_after_the_run_says_it_is_not_counted_and_what_to_do() -> None:
    session = _session()
    session.finish()
    message = (
        "unsolvable: the run of test/constant (seed 0) has ended; a call made after it (from a "
        "thread or callback the agent left running) is not counted: join your threads before "
        "the agent returns"
    )
    for call in (
        lambda: session.call_model([], None),
        lambda: session.call_tool("search", {}),
        lambda: session.sleep(1),
        session.count_transport_attempt,
    ):
        with pytest.raises(unsolvable.SessionClosed) as raised:
            call()
        assert str(raised.value) == message


def test_a_run_without_a_model_call_has_no_overhead_and_totals_are_rounded() -> None:
    quiet = _session().finish()
    assert (quiet.overhead_tokens, quiet.uncharged_tokens, quiet.cost_usd) == (0, 0, 0.0)
    cheap = unsolvable.Pricing(usd_per_million_input=0.15, usd_per_million_output=0.6)
    session = _session(b.scenario(pricing=cheap))
    session.sleep(0.12345678)
    session.call_model([{"role": "user", "content": "x" * 997}], None)
    observed = session.finish()
    exact = cheap.cost(observed.input_tokens, observed.output_tokens)
    assert exact != round(exact, 6) and observed.cost_usd == round(exact, 6)
    assert observed.slept_seconds == 0.123457


def test_the_budget_spent_truth_reads_the_charged_tokens_at_the_end() -> None:
    """An agent's own prompt is not charged: with one or without, the token budget runs out at
    the same (projected) step."""
    scenario = b.scenario(stagnation=Stagnation.BUDGET_SPENT, step_bound=50)
    scenario = scenario.with_overrides(max_steps=50, max_tokens=400)

    def stagnant(prompt: list[unsolvable.JSON]) -> tuple[int | None, int]:
        session = _session(scenario)
        for step in range(3):
            session.call_model([*prompt, {"role": "user", "content": f"go {step}"}], ["search"])
        observed = session.finish()
        return observed.first_stagnant_step, observed.uncharged_tokens

    system = {"role": "system", "content": "You are a careful agent. " * 20}
    bare, prompted = stagnant([]), stagnant([system])
    assert prompted[1] > bare[1] > 0
    assert bare[0] == prompted[0] and bare[0] is not None and bare[0] > 3
