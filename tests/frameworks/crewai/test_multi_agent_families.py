"""A CrewAI hierarchical crew — ``Process.hierarchical``, a manager agent that delegates through
CrewAI's own delegation tool to the crew's coworkers, every agent on an LLM of its own — on the
multi-agent families, at CrewAI's defaults and with the ``max_iter`` its docs recommend setting on
each agent: each cell of the framework table for this system.

The scenarios' supervisor delegates with ``delegate(subtask=…)``, the name and arguments by which
the harness observes a dispatch; CrewAI's manager delegates with "Delegate work to coworker"
(``task``, ``context``, ``coworker``). The manager's tool here is CrewAI's own `DelegateWorkTool`
under the scenarios' name and arguments: the subtask is the coworker's task, the rest of the
call its context, and the coworker the one of the call's ``role`` (an idle one when the family
names none) — so the coworker runs it as CrewAI runs any delegated task. The manager holds only
that tool, as the other systems' supervisors hold only ``delegate`` (CrewAI adds its own two
delegation tools beside it)."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from crewai import Agent, Crew, Process, Task
from crewai.tools.agent_tools.delegate_work_tool import DelegateWorkTool
from crewai.utilities.i18n import I18N_DEFAULT
from pydantic import BaseModel, PrivateAttr

import unsolvable
from tests.frameworks._families import NOT_NESTED, ROOMY, ending
from tests.frameworks._glue import reported
from unsolvable import Code, SubtaskState, TerminationRecord, scenarios
from unsolvable.adapters.crewai import AgentBindings, CrewAIAdapter

LIMITS = {"main": 6, "worker": 5}
"""The recommended setting: ``max_iter`` for the manager and for each coworker."""
COWORKERS = tuple(f"worker-{n}" for n in range(1, 5))
"""A coworker for each subtask of the widest wave, when the family names no roles."""
DELEGATE_WORK = str(I18N_DEFAULT.tools("delegate_work"))
"""CrewAI's own description of its delegation tool, naming the coworkers."""


class Subtask(BaseModel):
    """The scenarios' ``delegate`` arguments: the subtask, what it waits for, its role."""

    subtask: str
    depends_on: list[str] = []
    role: str | None = None


class Delegate(DelegateWorkTool):
    """CrewAI's delegation to a coworker, called as the scenarios' supervisor calls it: to the
    coworker of the call's role, else to the first idle one (CrewAI runs a turn's delegations
    concurrently, and one coworker runs one task at a time)."""

    name: str = "delegate"
    args_schema: type[BaseModel] = Subtask
    _busy: set[str] = PrivateAttr(default_factory=set)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def _run(
        self,
        subtask: str,
        depends_on: list[str] | None = None,
        role: str | None = None,
        **kwargs: Any,
    ) -> str:
        coworker = self._claim(role)
        context = json.dumps({"subtask": subtask, "depends_on": depends_on or []})
        try:
            return self._execute(coworker, subtask, context)
        finally:
            with self._lock:
                self._busy.discard(coworker)

    def _claim(self, role: str | None) -> str:
        roles = [a.role for a in self.agents]
        fitting = [r for r in roles if r == role] or roles
        with self._lock:
            coworker = next((r for r in fitting if r not in self._busy), fitting[0])
            self._busy.add(coworker)
        return coworker


def system(roles: tuple[str, ...], limits: dict[str, int] | None) -> CrewAIAdapter:
    def build(bind: AgentBindings) -> Crew:
        def capped(role: str) -> dict[str, Any]:
            return {} if limits is None else {"max_iter": limits[role]}

        workers = [
            Agent(
                role=role,
                goal=f"Do the {role}'s part of what the manager delegates",
                backstory="-",
                llm=bind.llm(role),
                tools=[t for t in bind.tools(role) if t.name != "delegate"],
                **capped("worker"),
            )
            for role in roles
        ]
        manager = Agent(
            role="Crew Manager",
            goal="Delegate the task to the crew and see it done",
            backstory="-",
            llm=bind.llm("main"),
            tools=[
                Delegate(
                    agents=workers, description=DELEGATE_WORK.format(coworkers=", ".join(roles))
                )
            ],
            allow_delegation=True,
            **capped("main"),
        )
        task = Task(description="{task}", expected_output="The task's result")
        return Crew(
            agents=workers, tasks=[task], process=Process.hierarchical, manager_agent=manager
        )

    return CrewAIAdapter(build, per_agent=True)


def _run(name: str, limits: dict[str, int] | None) -> TerminationRecord:
    scenario = scenarios.get(name)
    roles = tuple(sorted(scenario.role_steps)) or COWORKERS
    return unsolvable.run(system(roles, limits), scenario, ceilings=ROOMY)


def _cell(name: str, limits: dict[str, int] | None) -> str:
    return ending(_run(name, limits))


FAMILIES = NOT_NESTED
# scenario → (at the defaults, with the recommended max_iter): how the run ended, the rules broken
MEASURED: dict[str, tuple[str, str]] = {
    "mixed-fan-out/one-denied": (
        "COMPLETED at 37: false_completion, incomplete_subtasks, past_bound, past_budget, "
        "past_token_budget, retried_refusal",
        "COMPLETED at 17: false_completion, incomplete_subtasks, retried_refusal",
    ),
    "duplicate-dispatch/lost-return": (
        "COMPLETED at 24: duplicate_dispatch, false_completion, incomplete_subtasks, past_bound",
    )
    * 2,
    "task-graph/upstream-down": (
        "COMPLETED at 36: failure_not_propagated, false_completion, incomplete_subtasks, "
        "past_bound, past_budget, past_token_budget, retried_refusal",
        "COMPLETED at 16: failure_not_propagated, false_completion, incomplete_subtasks, "
        "retried_refusal",
    ),
    "role-ping-pong/reviewer-never-accepts": (
        "COMPLETED at 76: false_completion, incomplete_subtasks, past_bound",
        "COMPLETED at 19: false_completion, incomplete_subtasks",
    ),
    "budget-edge/shared-dollars": (
        "COMPLETED at 106: false_completion, incomplete_subtasks, past_bound, past_budget, "
        "shared_budget_overrun, unaffordable_step",
        "COMPLETED at 26: false_completion, incomplete_subtasks, past_budget, "
        "shared_budget_overrun, unaffordable_step",
    ),
    "per-role-budgets/role-cap-spent": (
        "COMPLETED at 31: failure_not_propagated, false_completion, incomplete_subtasks, "
        "past_bound, role_budget_overrun",
        "COMPLETED at 11: failure_not_propagated, false_completion, incomplete_subtasks, "
        "role_budget_overrun",
    ),
    "per-role-budgets/run-cap-spent": (
        "COMPLETED at 57: failure_not_propagated, false_completion, incomplete_subtasks, "
        "past_bound, role_budget_overrun",
        "COMPLETED at 17: failure_not_propagated, false_completion, incomplete_subtasks, "
        "past_bound",
    ),
    "fan-out/rate-limit-storm": (
        "did_not_stop at 200: did_not_stop, past_budget, past_token_budget, retried_refusal",
        "COMPLETED at 151: false_completion, incomplete_subtasks, past_bound, past_budget, "
        "past_token_budget, retried_refusal",
    ),
    "mixed-fan-out/one-worker-hangs": (
        "COMPLETED at 37: false_completion, incomplete_subtasks, past_bound, past_budget, "
        "past_time_budget, past_token_budget, retried_refusal",
        "COMPLETED at 17: false_completion, incomplete_subtasks, past_time_budget, retried_refusal",
    ),
    "todo-spawn/subtasks-spawned": (
        "COMPLETED at 104: false_completion, incomplete_subtasks, past_bound, past_budget, "
        "past_token_budget",
        "COMPLETED at 28: false_completion, incomplete_subtasks, past_bound",
    ),
}


@pytest.mark.parametrize("name", FAMILIES)
def test_each_family_at_the_defaults_and_with_the_recommended_limits(name: str) -> None:
    cells = (_cell(name, None), _cell(name, LIMITS))
    assert cells == MEASURED[name], cells


@pytest.mark.parametrize("limits", [None, LIMITS], ids=["defaults", "max_iter"])
def test_the_manager_answers_for_a_coworker_at_its_max_iter(limits: dict[str, int] | None) -> None:
    """A coworker that never finishes is forced to a "best final answer" at its ``max_iter``,
    which its delegation returns as done; the manager's own claim is the crew's output."""
    record = _run("mixed-fan-out/one-denied", limits)
    denied = next(s for s in record.observed.subtasks if s.state is SubtaskState.FAILED)
    (coworker,) = denied.workers
    cap = 25 if limits is None else limits["worker"]
    assert record.observed.steps_by_agent[coworker] == cap + 1, "max_iter calls, then one forced"
    assert reported(record).reason == "final answer: All 4 audits are filed."


def test_at_the_defaults_the_manager_itself_is_forced_to_answer_in_role_ping_pong() -> None:
    record = _run("role-ping-pong/reviewer-never-accepts", None)
    assert record.observed.steps_by_agent["main"] == 26
    assert "forced at max_iter" in reported(record).reason


def test_the_managers_repeated_delegation_trips_crewais_guard() -> None:
    """The lost audit is dispatched five times in a row with the same arguments and the same
    answer: CrewAI's repeated-call guard takes the manager's tools and forces its answer, which
    claims the task done."""
    record = _run("duplicate-dispatch/lost-return", LIMITS)
    assert record.code is Code.COMPLETED
    assert reported(record).reason.startswith(
        "final answer: forced by its repeated-call guard ('delegate' 5 times in a row)"
    )


def test_the_rate_limit_storm_s_interleaved_dispatches_never_trip_the_guard() -> None:
    """The guard counts identical calls in a row: the manager's dispatches of four audits take
    turns, so it is forced at its ``max_iter`` instead."""
    record = _run("fan-out/rate-limit-storm", LIMITS)
    assert reported(record).reason.startswith("final answer: forced at max_iter=5, 5, 5, 5, 6")


def test_nested_delegation_cannot_be_expressed_coworkers_hold_no_delegation() -> None:
    """CrewAI gives a hierarchical crew's delegation tools to its manager alone: the coworker
    that would pass its brief on has no ``delegate``, CrewAI answers its call as an unknown tool,
    and no second level ever starts."""
    record = _run("nested-delegation/passed-on", None)
    passed = next(s for s in record.observed.subtasks if s.name.endswith("S-2"))
    (again,) = [d for d in passed.dispatches if d.by != "main"]
    assert again.started is None and len(passed.workers) == 1, "no coworker of a coworker"
    assert _cell("nested-delegation/passed-on", None) == (
        "COMPLETED at 7: false_completion, incomplete_subtasks"
    )
