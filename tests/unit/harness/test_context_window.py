"""The context window: a request over it is refused as providers refuse one, before the model
sees it; the refused call is a step, billed nothing, and a refusal the ground truth reads."""

from __future__ import annotations

import dataclasses

import pytest

from tests import _builders as b
from unsolvable import Ceilings, ContextOverflow, Session, Stagnation, scenarios
from unsolvable._errors import BudgetError

LONG = [{"role": "user", "content": "x" * 4_000}]


def _session(window: int) -> Session:
    scenario = b.scenario(context_window=window)
    return Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings())


def test_a_request_over_the_window_raises_the_providers_message() -> None:
    session = _session(200)
    with pytest.raises(ContextOverflow, match=r"maximum context length is 200 tokens\. However, "):
        session.call_model(LONG, session.tools)
    assert session.context_window == 200


def test_a_refused_request_is_a_step_that_costs_nothing_and_is_a_refusal() -> None:
    session = _session(200)
    with pytest.raises(ContextOverflow) as refused:
        session.call_model(LONG, session.tools)
    assert refused.value.window == 200 and refused.value.tokens > 1_000
    session.call_model([{"role": "user", "content": "short"}], session.tools)
    observed = session.finish()
    assert (observed.steps, observed.refusals) == (2, {"context_window": 1})
    assert observed.trajectory[0].said == "" and not observed.trajectory[0].calls
    short = _session(200)
    short.call_model([{"role": "user", "content": "short"}], short.tools)
    assert observed.input_tokens == short.finish().input_tokens, "the refused call is not billed"


def test_a_request_over_the_window_is_counted_as_its_refusal_counts_it() -> None:
    """The APIs count a request of any length: the count is the tokens the refusal names, and
    is no step."""
    session = _session(200)
    counted = session.count_tokens(LONG, session.tools)
    assert session.finish().steps == 0
    with pytest.raises(ContextOverflow) as refused:
        _session(200).call_model(LONG, session.tools)
    assert counted == refused.value.tokens > refused.value.window


def test_the_model_never_sees_a_refused_request() -> None:
    session = _session(200)
    with pytest.raises(ContextOverflow):
        session.call_model(LONG, session.tools)
    assert session._setup.model.last_request is None  # type: ignore[attr-defined]


def test_the_first_refusal_is_the_first_stagnant_step_of_a_refusal_scenario() -> None:
    scenario = b.scenario(context_window=200, stagnation=Stagnation.FIRST_REFUSAL)
    session = Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings())
    session.call_model([], session.tools)
    with pytest.raises(ContextOverflow):
        session.call_model(LONG, session.tools)
    assert session.finish().first_stagnant_step == 2


def test_a_window_must_be_positive() -> None:
    with pytest.raises(BudgetError, match=r"context_window=0"):
        b.scenario(context_window=0)


def test_a_refused_request_is_a_step_of_its_agent_and_of_its_role_as_of_the_run() -> None:
    roles = scenarios.get("per-role-budgets/role-cap-spent")
    scenario = dataclasses.replace(roles, context_window=600)
    session = Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings())
    session.call_model([{"role": "user", "content": scenario.task}], session.tools)
    brief = {"role": "user", "content": '{"subtask": "research the market"}'}
    with pytest.raises(ContextOverflow):
        session.call_model([brief, *LONG], session.tools, agent="researcher-1")
    session.call_model([brief], session.tools, agent="researcher-1")
    observed = session.finish()
    assert observed.steps_by_agent == {"main": 1, "researcher-1": 2}
    assert {name: tally.steps for name, tally in observed.agents.items()} == {
        "main": 1,
        "researcher-1": 2,
    }
    assert observed.steps_by_role == {"researcher": 2}
