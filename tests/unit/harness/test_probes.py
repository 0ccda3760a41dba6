"""The ground truth of stagnation: each rule (novelty, criteria, budget_spent) at its boundary,
and no rule quietly falling back to another."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests import _builders as b
from unsolvable import PROTOCOL_TOOLS, Stagnation, ToolResult
from unsolvable._probes import StagnationProbe
from unsolvable._scenario import Pricing


class _PlainWorld:
    """A world whose state a test sets by hand; it has no criteria."""

    def __init__(self) -> None:
        self.state, self.failing = "s0", "all"

    def fingerprint(self) -> str:
        return self.state

    def is_complete(self) -> bool:
        return False


class _World(_PlainWorld):
    """A `CriteriaWorld` whose failing criteria a test sets by hand."""

    def criteria(self) -> str:
        return self.failing


PER_TOKEN = Pricing(usd_per_million_input=1000.0, usd_per_million_output=0.0)
"""A thousandth of a dollar per input token: a step begun with ``n`` tokens in has spent
``n / 1000`` dollars."""
OUTPUT_ONLY = Pricing(usd_per_million_input=0.0, usd_per_million_output=0.4)


def _probe(
    rule: Stagnation = Stagnation.NOVELTY, world: object = None, **budget: int
) -> StagnationProbe:
    scenario = b.scenario(stagnation=rule, pricing=PER_TOKEN)
    if budget:
        scenario = scenario.with_overrides(**budget)
    return StagnationProbe(scenario, world or _World())  # type: ignore[arg-type]


def _tool(
    probe: StagnationProbe, step: int, *, name: str = "t", seen: str = "same", asked: bool = True
) -> None:
    world = probe.world
    result = ToolResult(text=seen, observation=seen)
    probe.on_tool(step, name, result, world.fingerprint(), asked=asked)


def test_novelty_is_the_step_after_the_last_new_observation() -> None:
    probe = _probe()
    for step in (1, 2, 3):
        _tool(probe, step)
    assert _stagnant(probe, 0) == 2


def test_novelty_counts_a_new_world_state_with_the_same_observation() -> None:
    world = _World()
    probe = _probe(world=world)
    _tool(probe, 1)
    world.state = "s1"
    _tool(probe, 3)
    _tool(probe, 4)
    assert _stagnant(probe, 0) == 4


def test_novelty_keys_observations_by_tool_name() -> None:
    probe = _probe()
    _tool(probe, 1, name="a")
    _tool(probe, 2, name="b")
    _tool(probe, 3, name="a")
    assert _stagnant(probe, 0) == 3


def test_a_call_that_reached_no_tool_is_neither_news_nor_evidence() -> None:
    """Its error says the call back, new whenever the call is: it moves nothing."""
    probe = _probe()
    _tool(probe, 1)
    for step, name in ((2, "a"), (3, "b")):
        said = f"unknown tool {name!r}"
        result = ToolResult(text=said, observation=said)
        probe.on_tool(step, name, result, probe.world.fingerprint(), reached=False)
    assert _stagnant(probe, 0) == 2


def test_a_run_with_no_tool_call_is_stagnant_from_step_one() -> None:
    assert _stagnant(_probe(), 0) == 1


def test_criteria_is_the_step_after_the_last_criteria_move() -> None:
    world = _World()
    probe = _probe(Stagnation.CRITERIA, world)
    _tool(probe, 1, seen="one")
    world.failing = "some"
    _tool(probe, 2, seen="two")
    world.state = "s9"
    _tool(probe, 3, seen="three")
    assert _stagnant(probe, 0) == 3, "new states and observations move no criterion"


def test_criteria_on_a_world_without_criteria_never_moves() -> None:
    world = _PlainWorld()
    probe = _probe(Stagnation.CRITERIA, world)
    world.state = "s1"
    _tool(probe, 1, seen="new")
    assert _stagnant(probe, 0) == 1


def _spent(tokens: list[int], total: int | None = None, **budget: float) -> StagnationProbe:
    """A budget-spent probe whose steps began with ``tokens`` spent; ``total`` at the end."""
    probe = _probe(Stagnation.BUDGET_SPENT, **budget)  # type: ignore[arg-type]
    for step, spent in enumerate(tokens, 1):
        probe.on_step(spent, spent, 0)  # spent / 1000 dollars
        _tool(probe, step, seen=f"new {step}")
    return probe


def _stagnant(probe: StagnationProbe, total: int) -> int:
    return probe.first_stagnant_step(tokens=total, cost=total / 1000)


def test_budget_spent_is_the_step_whose_spend_reached_the_token_budget() -> None:
    probe = _spent([0, 50, 100, 150], max_steps=9, max_tokens=100)
    assert (_stagnant(probe, 200), probe.steps_past_token_budget()) == (2, 2)
    assert _stagnant(_spent([0, 99, 101], max_steps=9, max_tokens=100), 150) == 2
    assert _stagnant(_spent([0, 100], max_steps=9, max_tokens=101), 101) == 2, "the last step"


def test_budget_spent_without_a_token_budget_is_the_last_step_of_the_step_budget() -> None:
    probe = _spent([0, 500, 900], max_steps=2)
    assert (_stagnant(probe, 1200), probe.steps_past_token_budget()) == (2, 0)


def test_budget_spent_is_the_step_budget_when_tokens_run_out_later() -> None:
    assert _stagnant(_spent([0, 10, 20, 30, 40], max_steps=3, max_tokens=40), 50) == 3


def test_budget_spent_reads_the_dollar_budget_as_the_last_step_it_covers() -> None:
    """$0.01 a step against $0.025: after step 2 ($0.02 spent) the next step, costing at least
    what the last did, would take the spend to $0.03, so step 2 is the last the budget covers."""
    probe = _spent([0, 10, 20, 30], max_steps=9, max_tokens=1000, max_cost_usd=0.025)
    assert _stagnant(probe, 40) == 2
    assert probe.unaffordable_steps(0.04) == 2, "steps 3 and 4 began with $0.005 and less left"


def test_a_step_that_fit_in_the_dollar_budget_was_affordable() -> None:
    """Step 3 began with $0.005 left after a $0.01 step, but cost $0.001: a worker's short
    conversation after the supervisor's long one, which the budget covered."""
    probe = _spent([0, 10, 20, 21], max_steps=9, max_tokens=1000, max_cost_usd=0.025)
    assert probe.unaffordable_steps(0.022) == 0


def test_the_dollar_budget_is_projected_past_a_run_that_stopped_short_of_it() -> None:
    """Stopped at $0.02 after two steps of $0.01: steps 3 and 4 would end at $0.03 and $0.04,
    and only after step 4 would the next one pass $0.045."""
    probe = _spent([0, 10], max_steps=9, max_tokens=1000, max_cost_usd=0.045)
    assert (_stagnant(probe, 20), probe.unaffordable_steps(0.02)) == (4, 0)


def test_the_truth_reads_the_dollar_budget_at_the_runs_cost() -> None:
    probe = _spent([0, 10, 20], max_steps=9, max_tokens=1000, max_cost_usd=0.025)
    assert probe.truth(tokens=30, cost=0.03, sent=30).first_stagnant_step == 2


def test_lag_is_counted_in_tokens_sent_and_rounded_to_a_millionth_of_a_dollar() -> None:
    probe = StagnationProbe(b.scenario(pricing=OUTPUT_ONLY), _World())  # type: ignore[arg-type]
    probe.on_step(0, 100, 0)
    _tool(probe, 1)
    probe.on_step(10, 129, 1)  # 130 tokens sent, $0.0000004 spent
    _tool(probe, 2)
    truth = probe.truth(tokens=25, cost=0.00000123, sent=170)
    assert (truth.first_stagnant_step, truth.lag_tokens, truth.lag_cost_usd) == (2, 40, 0.000001)


def test_a_run_that_stopped_short_of_the_budget_is_projected_at_its_last_steps_spend() -> None:
    probe = _spent([0, 10, 20], max_steps=99, max_tokens=100)  # 10 tokens a step
    assert _stagnant(probe, 30) == 10
    assert _stagnant(_spent([0, 10, 20], max_steps=99, max_tokens=31), 30) == 4
    assert _stagnant(_spent([0, 10, 20], max_steps=6, max_tokens=100), 30) == 6, "steps bind"
    assert _stagnant(_spent([], max_steps=6, max_tokens=100), 0) == 6, "nothing to project from"


def test_lag_in_tokens_and_dollars_is_signed_like_lag_in_steps() -> None:
    late = _spent([0, 10, 25, 45], max_steps=9, max_tokens=20).truth(tokens=70, cost=0.07, sent=70)
    assert (late.first_stagnant_step, late.lag_tokens, late.lag_cost_usd) == (2, 60, 0.06)
    early = _spent([0, 10], max_steps=9, max_tokens=50).truth(tokens=20, cost=0.02, sent=20)
    # stopped after step 2; the budget runs out in step 5: steps 3 and 4 skipped, 10 tokens each
    assert (early.first_stagnant_step, early.lag_tokens, early.lag_cost_usd) == (5, -20, -0.02)
    on_the_spot = _spent([0, 10], max_steps=9, max_tokens=20).truth(tokens=20, cost=0.02, sent=20)
    assert (on_the_spot.first_stagnant_step, on_the_spot.lag_tokens) == (2, 10)


def test_a_control_has_no_stagnant_step_and_no_lag() -> None:
    probe = StagnationProbe(b.scenario(solvable=True), _World())  # type: ignore[arg-type]
    _tool(probe, 1)
    truth = probe.truth(tokens=10, cost=0.1, sent=10)
    assert (truth.first_stagnant_step, truth.lag_tokens, truth.lag_cost_usd) == (None,) * 3


@given(limit=st.integers(1, 1000), spends=st.lists(st.integers(1, 300), min_size=1, max_size=30))
def test_budget_spent_is_where_the_observed_spend_first_reached_the_budget(
    limit: int, spends: list[int]
) -> None:
    totals = [sum(spends[:i]) for i in range(len(spends))]
    probe = _spent(totals, max_steps=100, max_tokens=limit)
    assert probe.steps_past_token_budget() == len([t for t in totals if t >= limit])
    ends = [sum(spends[:i]) for i in range(1, len(spends) + 1)]
    reached = [i for i, end in enumerate(ends, 1) if end >= limit]
    stagnant = _stagnant(probe, ends[-1])
    assert stagnant == reached[0] if reached else len(spends) < stagnant <= 100


@pytest.mark.parametrize("rule", [Stagnation.CRITERIA, Stagnation.BUDGET_SPENT])
def test_rules_other_than_novelty_ignore_novelty(rule: Stagnation) -> None:
    world = _World()
    probe = _probe(rule, world, max_steps=5)
    for step in (1, 2):
        world.state = f"s{step}"
        _tool(probe, step, seen=f"new {step}")
    assert _stagnant(probe, 0) == {Stagnation.CRITERIA: 1, Stagnation.BUDGET_SPENT: 5}[rule]


def test_first_refusal_is_the_step_of_the_first_refused_call_else_novelty() -> None:
    probe = _probe(Stagnation.FIRST_REFUSAL)
    _tool(probe, 1, seen="one")
    _tool(probe, 2, seen="two")
    assert _stagnant(probe, 0) == 3, "nothing refused yet: the novelty rule"
    for step in (3, 4):
        refused = ToolResult(text="403", observation=f"403 {step}", refusal="denied")
        probe.on_tool(step, "t", refused, probe.world.fingerprint())
    assert (_stagnant(probe, 0), dict(probe.refusals)) == (3, {"denied": 2})


def test_a_refusal_of_a_call_the_model_did_not_ask_for_is_no_first_refusal() -> None:
    """An agent can have a call of its own refused whenever it likes (an order it made up):
    it is counted among the refusals, and marks no stagnant step."""
    probe = _probe(Stagnation.FIRST_REFUSAL)
    _tool(probe, 1, seen="one")
    refused = ToolResult(text="404", observation="404", refusal="not_found")
    probe.on_tool(1, "t", refused, probe.world.fingerprint(), asked=False)
    _tool(probe, 2, seen="two")
    assert (_stagnant(probe, 0), dict(probe.refusals)) == (3, {"not_found": 1})


@pytest.mark.parametrize("tool", sorted(PROTOCOL_TOOLS))
def test_the_harness_s_own_tools_never_move_the_first_stagnant_step(tool: str) -> None:
    probe = _probe()
    _tool(probe, 1)
    _tool(probe, 2, name=tool, seen='{"complete": false}')
    assert _stagnant(probe, 0) == 2, "re-reading the world is evidence, not progress"


def test_evidence_within_the_last_productive_step_counts() -> None:
    probe = _probe()
    for seen in ("error", "error", "error"):
        _tool(probe, 1, seen=seen)
    truth = probe.truth(tokens=0, cost=0.0, sent=0)
    assert (truth.first_stagnant_step, truth.evidence_step) == (2, 1)


def test_a_repeat_the_model_did_not_ask_for_is_no_evidence_within_its_step() -> None:
    """An agent can always repeat a call to hear nothing new: only the model's own calls tell
    that nothing new is left."""
    probe = _probe()
    _tool(probe, 1)
    _tool(probe, 1, asked=False)
    truth = probe.truth(tokens=0, cost=0.0, sent=0)
    assert (truth.first_stagnant_step, truth.evidence_step) == (2, 2)


def test_an_asked_call_left_unmade_keeps_its_step_productive_until_its_tool_repeats() -> None:
    probe = _probe()
    probe.on_unmade(1, "t")
    assert _stagnant(probe, 0) == 2, "nothing read: progress was possible for all it knew"
    _tool(probe, 2)
    _tool(probe, 3)
    probe.on_unmade(4, "t")
    assert _stagnant(probe, 0) == 3, "the tool already answered nothing new: evidence"
    probe.on_unmade(5, "other")
    assert _stagnant(probe, 0) == 6


@pytest.mark.parametrize("rule", [Stagnation.NOVELTY, Stagnation.CRITERIA])
def test_a_step_that_offered_no_tools_is_carried_over_until_a_step_brings_nothing(
    rule: Stagnation,
) -> None:
    """The model can ask for nothing at a step that offered it no tool: the step right after
    the last one that could still bring news is no evidence, one after a step that brought
    nothing is."""
    world = _World()
    probe = _probe(rule, world)
    for offered in (True, False, False):  # steps 1 to 3
        probe.on_step(0, 0, 0, offered=offered)
    world.failing = "some"
    _tool(probe, 1, seen="news")
    assert _stagnant(probe, 0) == 4
    for offered in (True, False):  # steps 4 and 5
        probe.on_step(0, 0, 0, offered=offered)
    _tool(probe, 4, seen="news")
    assert _stagnant(probe, 0) == 4


def test_an_end_that_is_no_guess_is_open_only_where_it_saw_news_or_was_cut_short() -> None:
    """A run a ceiling ended, or a stop its spent budget chose, is no guess for a step offering
    no tool, or calls left unmade, to excuse: only calls still asked for when a ceiling came,
    which it may have cut short, keep their step open."""
    probe = _probe()
    for offered in (True, True, False, True):  # steps 1 to 4
        probe.on_step(0, 0, 0, offered=offered)
    _tool(probe, 1, seen="news")
    probe.on_unmade(2, "t")
    truth = probe.truth(tokens=0, cost=0.0, sent=0, may_guess=False)
    assert (_stagnant(probe, 0), truth.first_stagnant_step) == (4, 2)
    probe.on_unmade(4, "t", pending=True)
    assert probe.truth(tokens=0, cost=0.0, sent=0, may_guess=False).first_stagnant_step == 5


def test_a_step_that_offered_no_tools_follows_evidence_within_a_step_as_evidence() -> None:
    probe = _probe()
    for offered in (True, False):
        probe.on_step(0, 0, 0, offered=offered)
    for _ in range(2):
        _tool(probe, 1, seen="same")
    assert _stagnant(probe, 0) == 2, "a repeat the model asked for within step 1 told it"


def test_a_new_answer_after_a_repeat_in_the_same_step_is_still_news() -> None:
    probe = _probe()
    _tool(probe, 1, seen="a")
    _tool(probe, 1, seen="a")
    _tool(probe, 1, seen="b")
    truth = probe.truth(tokens=0, cost=0.0, sent=0)
    assert (truth.first_stagnant_step, truth.evidence_step) == (2, 2)


def test_a_model_call_that_carries_a_tool_result_is_a_result_read() -> None:
    probe = _probe()
    probe.on_reply(["c"])
    probe.on_request([{"role": "user", "content": "go"}])
    assert not probe.read_a_result
    probe.on_request([{"role": "tool", "tool_call_id": "c", "content": "rejected"}])
    assert probe.read_a_result


def test_a_tool_result_that_answers_no_call_of_the_model_reads_nothing() -> None:
    """A result the agent wrote into its own conversation, answering no call the model asked
    for, would make a stop made before reading anything look read."""
    probe = _probe()
    probe.on_reply(["c", None])
    for answered in ("made-up", ["c"], None):
        probe.on_request([{"role": "tool", "tool_call_id": answered, "content": "{}"}])
    assert not probe.read_a_result


def test_the_next_step_is_estimated_from_its_conversation_s_own_growth() -> None:
    probe = _probe()
    for step, inputs in enumerate((0, 100, 250)):  # steps of 100, 150 and (by the totals) 200
        probe.on_step(inputs, inputs, 0, continues=step)
    overrun = probe.overrun(tokens=450, cost=0.45, sent=450)
    assert overrun.next_step_tokens == 250, "the last step, 200, plus what it grew by, 50"


def test_another_conversation_s_step_is_no_step_before() -> None:
    """A one-message step of another conversation just before the last is no measure of the
    last one's growth: its own conversation's step before is."""
    probe = _probe()
    for continues, inputs in ((0, 0), (1, 100), (0, 250), (2, 260)):  # 100, 150, 10, 200
        probe.on_step(inputs, inputs, 0, continues=continues)
    overrun = probe.overrun(tokens=460, cost=0.46, sent=460)
    assert overrun.next_step_tokens == 250, "200, plus what it grew by over step 2, 50"
    assert probe.overrun(tokens=460, cost=0.46, sent=460).next_step_cost_usd == 0.25


def test_a_step_that_carries_on_no_conversation_is_estimated_at_its_own_spend() -> None:
    """No growth is known of a fresh conversation: the next step costs at least the last."""
    probe = _probe()
    for inputs in (0, 100, 250):
        probe.on_step(inputs, inputs, 0)
    assert probe.overrun(tokens=450, cost=0.45, sent=450).next_step_tokens == 200


def test_a_run_past_its_token_budget_is_measured_in_tokens_and_dollars() -> None:
    probe = _probe(max_tokens=400)
    overrun = probe.overrun(tokens=450, cost=0.9, sent=500)
    assert (overrun.overshoot_tokens, overrun.overshoot_cost_usd) == (50, 0.09)


def test_a_refused_step_before_is_no_measure_of_growth() -> None:
    """A request refused over the context window spends nothing: the step that carries it on
    would otherwise seem to have grown by all it cost."""
    probe = _probe()
    for continues, inputs in ((0, 0), (1, 100), (2, 100)):  # 100, refused, 200
        probe.on_step(inputs, inputs, 0, continues=continues)
    assert probe.overrun(tokens=300, cost=0.3, sent=300).next_step_tokens == 200
