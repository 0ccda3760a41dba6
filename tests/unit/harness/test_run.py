"""Every verdict path of `unsolvable.run`: stop, claim, crash, unstructured, and the ceilings."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import unsolvable
from tests import _builders as b
from unsolvable import Ceilings, Code, Exit, Outcome, Session, Stop
from unsolvable.adapters import _loop

FAST = Ceilings(max_steps=50, max_tool_calls=100, max_wall_seconds=30)
"""Step and tool-call ceilings that bind long before the wall clock, even on a loaded machine."""
SHORT_WALL = Ceilings(max_wall_seconds=0.5)
JOIN_SECONDS = 60.0
"""How long a test waits for a thread it started to end: a guard against one that hangs, far
above what a loaded machine takes, never a wait for something to happen."""


def test_structured_stop_within_bound_passes() -> None:
    record = unsolvable.run(b.steps_then(3, Stop(code=Code.NO_PROGRESS)), b.scenario())
    assert (record.outcome, record.exit, record.code) == (
        Outcome.STOPPED,
        Exit.ABANDONED,
        Code.NO_PROGRESS,
    )
    assert record.verdict.passed
    assert (record.observed.steps, record.observed.first_stagnant_step) == (3, 2)
    assert record.observed.detection_lag == 1


def test_stop_after_the_bound_fails() -> None:
    record = unsolvable.run(b.steps_then(6, Stop(code=Code.NO_PROGRESS)), b.scenario(step_bound=5))
    assert b.messages(record) == ("stopped at step 6, after the bound N=5",)


def test_claiming_success_on_unsolvable_is_a_false_completion() -> None:
    def claims(session: unsolvable.Session) -> Stop:
        session.call_model([], session.tools)
        return Stop(code=Code.COMPLETED, reason="all done")

    record = unsolvable.run(claims, b.claims_scenario())
    assert not record.verdict.passed
    assert record.verdict.broke(unsolvable.Rule.FALSE_COMPLETION)


def test_crash_is_recorded_with_the_exception() -> None:
    def crashes(session: unsolvable.Session) -> None:
        session.call_model([], session.tools)
        raise RuntimeError("tool schema mismatch")

    record = unsolvable.run(crashes, b.scenario())
    assert record.outcome is Outcome.CRASHED
    assert record.observed.error == "RuntimeError: tool schema mismatch"
    assert b.messages(record)[0] == "crashed: RuntimeError: tool schema mismatch"


def test_unstructured_return_is_named_in_the_failure() -> None:
    record = unsolvable.run(b.steps_then(2, None), b.scenario())
    assert record.outcome is Outcome.UNSTRUCTURED and record.returned == "None"
    assert "no structured exit (None)" in b.messages(record)[0]


def test_mapping_return_is_read_as_a_stop() -> None:
    agent = b.steps_then(2, {"code": "NO_PROGRESS", "reason": "same page"})  # type: ignore[arg-type]
    record = unsolvable.run(agent, b.scenario())
    assert record.code is Code.NO_PROGRESS and record.reported is not None
    assert record.reported.reason == "same page"


@pytest.mark.parametrize("agent", [b.forever, b.swallows], ids=["forever", "swallows-exception"])
def test_step_ceiling_ends_runaway_agents(agent: unsolvable.Adapter) -> None:
    record = unsolvable.run(agent, b.scenario(), ceilings=FAST)
    assert record.outcome is Outcome.DID_NOT_STOP
    assert (record.observed.ceiling, record.observed.steps) == ("steps", 50)
    assert b.messages(record) == ("did not stop: harness ceiling steps hit at step 50",)
    assert record.observed.tail, "the trajectory tail is kept"


def test_wall_ceiling_ends_an_agent_that_never_calls_back() -> None:
    record = unsolvable.run(b.busy, b.scenario(), ceilings=SHORT_WALL)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "wall_seconds")


def test_tool_call_ceiling_ends_a_tool_loop() -> None:
    def tools_forever(session: unsolvable.Session) -> None:
        while True:
            session.call_tool("search", {})

    record = unsolvable.run(tools_forever, b.scenario(), ceilings=FAST)
    assert (record.observed.ceiling, record.observed.tool_calls) == ("tool_calls", 100)


def test_async_agent_runs_on_its_own_loop() -> None:
    async def agent(session: unsolvable.Session) -> Stop:
        await asyncio.sleep(0)
        session.call_model([], session.tools)
        return Stop(code=Code.NO_PROGRESS)

    record = unsolvable.run(agent, b.scenario())
    assert record.code is Code.NO_PROGRESS and record.observed.steps == 1


def test_strict_mode_rejects_an_unexpected_code() -> None:
    agent = b.steps_then(5, Stop(code=Code.BUDGET_STEPS, partial=["page 1"]))
    lenient = unsolvable.run(agent, b.scenario())
    strict = unsolvable.run(agent, b.scenario(), strict=True)
    assert lenient.verdict.passed
    assert b.messages(strict) == ("expected NO_PROGRESS, got BUDGET_STEPS",)


@pytest.mark.parametrize("seed", [-3, 2**63])
def test_a_seed_that_is_no_seed_is_refused_before_the_agent_runs(seed: int) -> None:
    """-3 would replay seed 3's random draws, recorded as another seed."""
    with pytest.raises(unsolvable.ScenarioError, match=f"seed={seed}: a seed is a whole number"):
        unsolvable.run(b.forever, b.scenario(), seed=seed)


def test_overrides_replace_bound_and_budget() -> None:
    record = unsolvable.run(
        b.steps_then(1, Stop(code=Code.NO_PROGRESS)), b.scenario(), step_bound=9
    )
    assert record.step_bound == 9
    with pytest.raises(unsolvable.ScenarioError, match="unknown override"):
        unsolvable.run(b.forever, b.scenario(), max_stepz=3)


@pytest.mark.parametrize(
    ("scenario", "said"),
    [
        ("constant-return/repeat", "str ('constant-return/repeat'), not a Scenario; for a "
         "scenario by name, pass scenarios.get('constant-return/repeat') (from unsolvable "
         "import scenarios)"),
        (None, "NoneType (None), not a Scenario; pass one, e.g. "),
    ],
)  # fmt: skip
def test_a_scenario_that_is_no_scenario_is_a_type_error_saying_what_to_pass(
    scenario: object, said: str
) -> None:
    """A scenario given by name, as the command line and the fixture take it, failed on
    ``'str' object has no attribute 'with_overrides'``."""
    with pytest.raises(TypeError) as raised:
        unsolvable.run(b.forever, scenario)  # type: ignore[arg-type]
    assert str(raised.value).startswith(f"unsolvable.run(agent, scenario): scenario is a {said}")


@pytest.mark.parametrize(
    ("keywords", "said"),
    [
        ({"strict": "yes"}, "unsolvable.run(..., strict='yes'): give True or False"),
        ({"ceilings": 30}, "unsolvable.run(..., ceilings=30): give unsolvable.Ceilings("),
        ({"ceilings": {"max_steps": 3}}, "ceilings={'max_steps': 3}): give unsolvable.Ceilings("),
    ],
)
def test_strict_or_ceilings_of_the_wrong_kind_are_refused_before_the_agent_runs(
    keywords: dict[str, object], said: str
) -> None:
    """Ceilings that are none were recorded as the agent's crash, with a traceback of the
    harness's watchdog; a ``strict`` that is no bool failed once the run was over."""
    ran: list[Session] = []
    with pytest.raises(TypeError) as raised:
        unsolvable.run(ran.append, b.scenario(), **keywords)  # type: ignore[arg-type]
    assert said in str(raised.value) and not ran


def test_the_agent_runs_on_the_calling_thread() -> None:
    """Stop logic that acts only on the main thread (signals, agent-watchdog) acts here too."""
    seen: list[threading.Thread] = []

    def agent(session: unsolvable.Session) -> Stop:
        seen.append(threading.current_thread())
        return Stop(code=Code.NO_PROGRESS)

    unsolvable.run(agent, b.scenario())
    assert seen == [threading.current_thread()]


def test_a_blocking_sleep_is_interrupted_at_the_wall_ceiling() -> None:
    slept: list[bool] = []

    def sleeper(session: unsolvable.Session) -> None:
        session.call_model([], session.tools)
        time.sleep(60)
        slept.append(True)

    record = unsolvable.run(sleeper, b.scenario(), ceilings=SHORT_WALL)
    assert (record.outcome, record.observed.ceiling, slept) == (
        Outcome.DID_NOT_STOP,
        "wall_seconds",
        [],
    )


def test_at_the_wall_ceiling_a_conversation_on_its_own_thread_ends_before_the_run_does() -> None:
    """The protocol faces (ACP, A2A) talk on a thread of their own (`on_thread`) while the
    harness's thread waits; the watchdog's interruptions land in that wait, which must still
    last until the conversation has ended, its cancel sent and answered: the agent is killed
    only after that."""
    talked_to_the_end = threading.Event()
    went_on = threading.Event()
    seen: list[bool] = []

    async def talk(stop: _loop.Stop) -> None:
        await _loop.waited(asyncio.get_running_loop().create_future(), stop)  # until the ceiling
        # The cancel's round trip, which the run must wait for: it ends once the run has gone
        # on, or after half a second.
        await asyncio.to_thread(went_on.wait, 0.5)
        talked_to_the_end.set()

    def agent(session: unsolvable.Session) -> None:
        try:
            _loop.on_thread(session, talk, name="unsolvable-test-conversation")
        finally:
            seen.append(talked_to_the_end.is_set())
            went_on.set()

    record = unsolvable.run(agent, b.scenario(), ceilings=SHORT_WALL)
    assert (record.outcome, record.observed.ceiling) == (Outcome.DID_NOT_STOP, "wall_seconds")
    assert seen == [True], "the run went on while the conversation was still under way"


def test_calls_from_a_thread_left_running_are_refused_and_never_counted() -> None:
    refused: list[BaseException] = []
    release = threading.Event()

    def stray(session: unsolvable.Session) -> None:
        release.wait()
        try:
            session.call_model([], session.tools)
        except BaseException as error:
            refused.append(error)

    strays: list[threading.Thread] = []

    def agent(session: unsolvable.Session) -> Stop:
        session.call_model([], session.tools)
        strays.append(threading.Thread(target=stray, args=(session,)))
        strays[0].start()
        return Stop(code=Code.NO_PROGRESS)

    record = unsolvable.run(agent, b.scenario())
    release.set()
    (thread,) = strays
    thread.join(JOIN_SECONDS)
    assert not thread.is_alive(), "the refused call never returned"
    assert record.observed.steps == 1
    assert [type(e) for e in refused] == [unsolvable.SessionClosed]
    assert "has ended" in str(refused[0])


def test_an_agent_raising_system_exit_is_recorded_crashed() -> None:
    def quits(session: unsolvable.Session) -> None:
        session.call_model([], session.tools)
        raise SystemExit(4)

    record = unsolvable.run(quits, b.scenario())
    assert (record.outcome, record.observed.error) == (Outcome.CRASHED, "SystemExit: 4")


class _MainThreadWatchdog:
    """Stop logic like agent-watchdog's: it halts at once on the main thread and otherwise only
    notes the halt for later, the way production code often does."""

    def __init__(self) -> None:
        self.halted_at: int | None = None

    def on_step(self, step: int, repeats: int) -> None:
        if repeats >= 3 and self.halted_at is None:
            self.halted_at = step
            if threading.current_thread() is threading.main_thread():
                raise RuntimeError(f"halt at step {step}")


def _watched_agent(session: unsolvable.Session) -> Stop:
    watchdog, seen = _MainThreadWatchdog(), 0
    try:
        for step in range(1, 30):
            session.call_model([], session.tools)
            seen += 1
            watchdog.on_step(step, seen)
    except RuntimeError as halt:
        return Stop(code=Code.NO_PROGRESS, reason=str(halt))
    return Stop(code=Code.BUDGET_STEPS, reason="ran to its own cap", partial=[seen])


def test_stop_logic_that_acts_only_on_the_main_thread_stops_where_it_would_in_production() -> None:
    assert threading.current_thread() is threading.main_thread()
    scenario = b.scenario(step_bound=30)
    direct = Session(scenario, scenario.build(0), seed=0, ceilings=Ceilings())
    expected = _watched_agent(direct)  # production: the agent's own main thread
    record = unsolvable.run(_watched_agent, scenario, seed=0)
    assert (record.code, record.observed.steps) == (expected.code, direct.finish().steps)
    assert record.code is Code.NO_PROGRESS and record.observed.steps == 3
