"""Consumes judged termination records, produces `Metrics`: per agent, family and scenario, the
detection-lag distribution (steps, tokens, cost), stops against the bound, exit codes, false stops
on controls, premature stops, false completions, did_not_stop, pass^k and the calibrated step
cap an agent must beat.

Lag is measured on unsolvable scenarios only (a run whose worker was lost before its first step
has none: `has_lag`)
and false stops on solvable controls only: an agent that stops at step 1 everywhere has no lag,
and only the controls (and the premature-stop count) show what that costs. Lag is signed, and
its percentiles run over the signed values, so a guess before the first stagnant step pulls p50
below zero instead of hiding at 0.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from unsolvable._observed import CONTEXT_WINDOW
from unsolvable._record import TerminationRecord
from unsolvable._rules import Rule
from unsolvable._spent import JUDGED_EXHAUSTION, budget_of, could_cover_next_step
from unsolvable._stop import Exit, Outcome

__all__ = [
    "ALL",
    "Distribution",
    "GroupMetrics",
    "Metrics",
    "Number",
    "RunId",
    "StepCap",
    "calibrated_step_cap",
    "counted_lags",
    "ending",
    "had_the_evidence",
    "has_lag",
    "is_blind_stop",
    "is_budget_spent",
    "is_counted_false_stop",
    "is_false_completion",
    "is_false_stop",
    "is_premature_stop",
    "is_stop_decision",
    "is_unreported_finish",
    "lag",
    "lag_cost_usd",
    "lag_tokens",
    "measure",
    "percentile",
    "stopped_step",
    "where",
]

ALL = "all"
"""The name of an agent's group over every run it made."""
RATE_DIGITS = 4
"""Rates are rounded so that JSON stays byte-stable: 1/3 is 0.3333 on every machine."""
COST_DIGITS = 6
"""Dollar amounts keep a millionth of a dollar, as the records do."""

Number = int | float


class RunId(NamedTuple):
    """One run of one agent: what names it across a run and the baseline it is gated against."""

    agent: str
    scenario: str
    seed: int


def percentile(values: Sequence[Number], q: int) -> Number:
    """Nearest-rank percentile: the ``ceil(q·n/100)``-th smallest of the ``n`` values.

    Always a value that was observed (a lag in steps stays a whole step), computed in integers
    so the same runs give the same number on every machine; ``q=100`` is the maximum.
    """
    if not values:
        raise ValueError("percentile() of no values; a group with no runs has no distribution")
    if not 0 < q <= 100:
        raise ValueError(f"percentile(q={q!r}): q must be a whole percent in 1..100")
    rank = (q * len(values) + 99) // 100
    return sorted(values)[rank - 1]


@dataclass(frozen=True, kw_only=True)
class Distribution:
    """p50, p95 and max of one quantity over a group's runs (nearest-rank percentiles)."""

    count: int
    """How many runs the distribution is over."""
    p50: Number
    p95: Number
    max: Number

    @classmethod
    def of(cls, values: Sequence[Number]) -> Distribution:
        return cls(
            count=len(values),
            p50=percentile(values, 50),
            p95=percentile(values, 95),
            max=percentile(values, 100),
        )

    def rounded(self, digits: int) -> Distribution:
        """The same percentiles rounded to ``digits``: the same as those of the rounded values,
        since rounding keeps their order."""
        p50, p95, most = (round(value, digits) for value in (self.p50, self.p95, self.max))
        return dataclasses.replace(self, p50=p50, p95=p95, max=most)


def ending(record: TerminationRecord) -> str:
    """The code the agent stopped with, else the harness's outcome (``did_not_stop``, ...)."""
    return str(record.code) if record.code is not None else str(record.outcome)


def is_false_stop(record: TerminationRecord) -> bool:
    """A control that the agent ended (stopped, returned or raised) without completing it.

    ``did_not_stop`` is counted apart: the agent made no stop decision at all.
    """
    ended = record.outcome is not Outcome.DID_NOT_STOP
    return record.solvable and ended and record.exit is not Exit.COMPLETE


def is_counted_false_stop(record: TerminationRecord) -> bool:
    """A false stop the metrics count as one: unreported finishes are counted apart."""
    return is_false_stop(record) and not is_unreported_finish(record)


def is_unreported_finish(record: TerminationRecord) -> bool:
    """Finished, reported otherwise: a control the world shows finished that the agent ended
    without claiming it complete — with a non-complete code (the verdict's
    `Rule.UNREPORTED_FINISH`), with plain text or by crashing (which the verdict fails as
    `unstructured` and `crashed`). The task was not stopped too early and the report is wrong:
    counted apart from false stops, because the fix is in reporting, not in stopping. A control
    whose world the harness never read (a lost run's) is not known to be finished: it stays a
    false stop."""
    return is_false_stop(record) and record.observed.world_complete is True


def is_stop_decision(record: TerminationRecord) -> bool:
    """The agent decided to end the run short of a claim: a structured non-complete stop or an
    unstructured return. A crash decided nothing, a ceiling ended a run that did not stop, and a
    claim of completion is judged as a claim (`is_false_completion`)."""
    ended = record.outcome in (Outcome.STOPPED, Outcome.UNSTRUCTURED)
    return ended and record.exit is not Exit.COMPLETE


def is_blind_stop(record: TerminationRecord) -> bool:
    """A stop decision made before reading anything: no model call, or no tool result — neither
    one the harness's tools answered nor one the agent's framework made for a call it rejected
    and sent the model (`Observed.read_a_result`) — the model's own ``give_up`` aside, and a
    model that refused every request, over its context window: that refusal is what there was to
    read. Whatever the scenario, such a stop detected nothing."""
    observed = record.observed
    if not is_stop_decision(record):
        return False
    read = (
        observed.tool_calls
        or observed.read_a_result
        or observed.gave_up_at_step is not None
        or CONTEXT_WINDOW in (observed.refusals or {})
    )
    return observed.steps == 0 or not read


def is_budget_spent(record: TerminationRecord) -> bool:
    """A step or cost budget stop (`JUDGED_EXHAUSTION`) whose budget could not cover another
    step: its steps all used, or its tokens or dollars short of the next step's, estimated from
    the run's own growth — a ledger that admits each step before it dispatches it stops there.
    Another code names another budget, which this does not say anything about."""
    if record.code not in JUDGED_EXHAUSTION:
        return False
    return not could_cover_next_step(record.observed, budget_of(record.budget))


def had_the_evidence(record: TerminationRecord) -> bool:
    """The agent had received the evidence of stagnation when it stopped (within a step counts:
    `Observed.evidence_step`)."""
    evidence = record.observed.evidence_step
    return evidence is not None and record.observed.steps >= evidence


def _counts_from_zero(record: TerminationRecord) -> bool:
    """A stop whose lag counts at least 0: the agent had the evidence, or the budget could not
    cover another step."""
    return had_the_evidence(record) or is_budget_spent(record)


def _never_below_zero(record: TerminationRecord) -> bool:
    """A lag that counts at least 0: a stop the evidence or the budget chose, or a run that did
    not stop, wherever a ceiling found it."""
    return _counts_from_zero(record) or record.outcome is Outcome.DID_NOT_STOP


def stopped_step(record: TerminationRecord) -> int:
    """The step a run counts as stopped at: its last step, but at least one step past its bound
    N for a run that did not stop, which is what the verdict calls it — a ceiling that found it
    earlier (wall time, tool calls) cut it short there, and the step it found it at says
    nothing of when it would have stopped."""
    steps = record.observed.steps
    return max(steps, record.step_bound + 1) if record.outcome is Outcome.DID_NOT_STOP else steps


def lag_tokens(record: TerminationRecord) -> int | None:
    """The record's lag in tokens, counted as `lag` counts steps (a run that did not stop at 0
    at least: the spend it would have made is not known); ``None`` without a lag (`has_lag`)."""
    tokens = record.observed.lag_tokens
    return None if tokens is None else max(tokens, 0) if _never_below_zero(record) else tokens


def lag_cost_usd(record: TerminationRecord) -> float | None:
    """The record's lag in dollars, counted as `lag_tokens` counts tokens; ``None`` without a
    lag (`has_lag`)."""
    cost = record.observed.lag_cost_usd
    return None if cost is None else max(cost, 0.0) if _never_below_zero(record) else cost


def has_lag(record: TerminationRecord) -> bool:
    """An unsolvable run with a stagnant step, so a lag: every one but a run whose worker
    process was lost (killed, or died) before its first step, of which the harness observed
    nothing — its record has no stagnant step and no lag, as a control has none. A run lost
    later has the stagnant step and the lag as they stood after its last call, and counts as a
    stop there would have. Every lag figure is over these runs."""
    return not record.solvable and record.observed.detection_lag is not None


def lag(record: TerminationRecord) -> int:
    """The signed detection lag the metrics and tables count, of an unsolvable run: the
    record's, except that it counts at least 0 for a stop the agent had the evidence for by then
    (evidence within the step before the first stagnant one) and for a stop on a budget that
    could not cover another step — the budget chose that step, not a guess — and from its
    `stopped_step`, 0 at least, for a run that did not stop. Raises `ValueError` on a run with no
    stagnant step (`has_lag`): a control, or a run lost before its first step."""
    signed = record.observed.detection_lag
    stagnant = record.observed.first_stagnant_step
    if signed is None or stagnant is None or not has_lag(record):
        kind = (
            "a solvable control" if record.solvable else "a lost run that showed no stagnant step"
        )
        raise ValueError(f"lag() of {record.scenario}, {kind}: it has no lag")
    if record.outcome is Outcome.DID_NOT_STOP:
        return max(stopped_step(record) - stagnant, 0)
    return max(signed, 0) if _counts_from_zero(record) else signed


def counted_lags(record: TerminationRecord) -> tuple[int, int | None, float | None] | None:
    """The lag in steps, tokens and dollars as every report counts it (`lag`, `lag_tokens`,
    `lag_cost_usd`), for the faces that give one run's figures; ``None`` without a lag."""
    if not has_lag(record):
        return None
    return lag(record), lag_tokens(record), lag_cost_usd(record)


def is_premature_stop(record: TerminationRecord) -> bool:
    """An unsolvable run the agent ended before its first stagnant step (negative lag), or a
    blind stop decision: a guess, not a detection. A crash ends the run as early as a stop
    would, so one before the stagnant step counts too, as a crash on a control counts as a
    false stop; a ceiling and a claim of completion are counted as what they are."""
    if record.solvable:
        return False
    ended = is_stop_decision(record) or record.outcome is Outcome.CRASHED
    return (ended and has_lag(record) and lag(record) < 0) or is_blind_stop(record)


def is_false_completion(record: TerminationRecord) -> bool:
    """``complete`` claimed on an unsolvable scenario, or where the world says otherwise: the
    verdict's rule, so that every count agrees with what the tests failed on."""
    return record.verdict.broke(Rule.FALSE_COMPLETION)


def where(level: str, name: str) -> str:
    """How messages name a group: ``family constant-return``, or ``all runs``."""
    return "all runs" if level == "agent" else f"{level} {name}"


def _passed(record: TerminationRecord) -> bool:
    return record.verdict.passed


@dataclass(frozen=True, kw_only=True)
class GroupMetrics:
    """The metrics of one agent over one group of runs: all of them, a family, or a scenario."""

    agent: str
    level: str
    """``agent`` (all its runs), ``family`` or ``scenario``."""
    name: str
    """The family or scenario name; `ALL` at the agent level."""
    runs: int
    passed: int
    """Runs whose verdict passed."""
    scenarios: int
    """Distinct scenarios among the runs."""
    seeds: tuple[int, ...]
    """Distinct seeds among the runs, sorted: what a baseline gate needs to compare like with
    like, since the same stop logic lags otherwise on another seed's runs."""
    k: int
    """Most seeded runs of one scenario: the k of pass^k. A scenario run on fewer seeds (one
    that has only one) is passed on those; the pass^k line names each k it counted under."""
    pass_k: int
    """Scenarios whose every seeded run passed, however many seeds each had."""
    lag_steps: Distribution | None
    """Detection lag in steps over the unsolvable runs that have one (`has_lag`: runs lost
    before their first step left out); ``None`` for a group with none, a group of controls say."""
    lag_tokens: Distribution | None
    lag_cost_usd: Distribution | None
    steps: Distribution
    """The stopped step, over every run."""
    steps_per_bound: Distribution
    """The stopped step (`stopped_step`) divided by the bound N: above 1 means stopped too late.
    Exact, so that a report rounds it once (the JSON to `RATE_DIGITS`, as it does rates)."""
    over_bound: int
    """Runs whose stopped step (`stopped_step`) is past the bound N, every did_not_stop
    included; a lost run at the steps the harness admitted before it lost the worker
    (`unsolvable._seen`)."""
    over_budget: int
    """Runs that went past their token or dollar budget at all (`Observed.overshoot_tokens`)."""
    overshoot_tokens: Distribution
    """Tokens charged past the token budget, over every run (0 for a run within it)."""
    overshoot_cost_usd: Distribution
    """Dollars past the budget, over every run."""
    exits: dict[str, int]
    """How runs ended: the code, or the harness outcome when the agent gave none."""
    controls: int
    """Runs on solvable controls."""
    false_stops: int
    """Controls ended without completing, unreported finishes left out."""
    false_stop_rate: float | None
    """False stops per control run; ``None`` when the group has no controls."""
    unreported_finishes: int
    """Controls finished in the world but not reported complete (`is_unreported_finish`)."""
    premature_stops: int
    """Unsolvable runs stopped before their first stagnant step, or blind (`is_premature_stop`)."""
    blind_stops: int
    """The premature stops made blind, with no model call or no result read (`is_blind_stop`)."""
    step_cap: StepCap | None
    """The calibrated step cap over the same runs; ``None`` unless the group has both unsolvable
    runs and controls."""
    false_completions: int
    did_not_stop: int

    @property
    def key(self) -> tuple[str, str, str]:
        """What identifies the group across runs (and in a baseline)."""
        return (self.level, self.name, self.agent)


@dataclass(frozen=True, kw_only=True)
class StepCap:
    """The best single step cap over a group: the smallest cap that false-stops no more controls
    than the agent did, the lag it would have had on the unsolvable runs, and whether the
    agent's stop logic beats it.

    Computed from the records alone: an unsolvable run's first stagnant step (as `lag` counts
    it), and a control's needed steps — the step during which its world became complete,
    whatever the agent reported (`Observed.completed_at_step`); its bound N when it never did.
    A stop logic worth its code beats this at the same false-stop count.
    """

    cap: int
    lag_steps: Distribution
    """Signed, as the agent's: negative where the cap stops before the first stagnant step."""
    false_stops: int
    premature_stops: int
    """Unsolvable runs the cap would stop before their first stagnant step."""
    lag_p95: Number
    """The cap's lag p95 counted from 0: a stop before the stagnant step is a premature stop,
    counted apart, never a shorter lag."""
    agent_lag_p95: Number
    """The agent's, counted the same way."""
    shortfalls: tuple[str, ...]
    """Why the agent does not beat the cap, one reason each (none when it does)."""
    beaten: bool
    """Whether the agent beats the cap: every run of the group passed its verdict, and it has no
    more false stops, no more premature stops and a lag p95 no larger, one of them strictly. A
    group whose verdicts fail beats nothing: its stop logic is not the one being compared."""


def _needed_steps(record: TerminationRecord) -> int:
    """The steps a control needs: where its world became complete, else (not known) its N."""
    completed = record.observed.completed_at_step
    return record.step_bound if completed is None else completed


def _stagnant(record: TerminationRecord) -> int:
    """The first stagnant step as `lag` counts it: a stop on a budget that ran out, or with the
    evidence in hand, was at it. Of a run with a lag (`has_lag`)."""
    stagnant, steps = record.observed.first_stagnant_step, record.observed.steps
    assert stagnant is not None
    return min(stagnant, steps) if _counts_from_zero(record) else stagnant


def _shortfalls(
    records: Sequence[TerminationRecord],
    mine: tuple[int, int, Number],
    cap: tuple[int, int, Number],
) -> tuple[str, ...]:
    """Why ``mine`` (false stops, premature stops, lag p95 of the agent) does not beat ``cap``."""
    failed = sum(not r.verdict.passed for r in records)
    reasons = [f"{failed} of {len(records)} runs failed their verdicts"] if failed else []
    names = ("false stops", "premature stops", "lag p95")
    reasons += [f"{n} {a:g} vs {b:g}" for n, a, b in zip(names, mine, cap, strict=True) if a > b]
    if not reasons and mine == cap:
        reasons.append("no better on either axis: the same false stops, premature stops and lag")
    return tuple(reasons)


def calibrated_step_cap(records: Sequence[TerminationRecord]) -> StepCap | None:
    """The `StepCap` of ``records``; ``None`` without both unsolvable runs that have a lag
    (`has_lag`) and controls."""
    unsolvable = [r for r in records if not r.solvable]
    lagged = [r for r in unsolvable if has_lag(r)]
    stagnant = [_stagnant(r) for r in lagged]
    needed = [_needed_steps(r) for r in records if r.solvable]
    if not stagnant or not needed:
        return None
    allowed = sum(map(is_counted_false_stop, records))
    # A cap of the most steps any control needs stops none of them; a cap is one step at least,
    # even where every control was finished before the agent's first step.
    most = max(*needed, 1)
    cap = next(c for c in range(1, most + 1) if sum(n > c for n in needed) <= allowed)
    theirs = (
        sum(n > cap for n in needed),
        sum(cap < s for s in stagnant),
        percentile([max(cap - s, 0) for s in stagnant], 95),
    )
    mine = (
        allowed,
        sum(map(is_premature_stop, unsolvable)),
        percentile([max(lag(r), 0) for r in lagged], 95),
    )
    shortfalls = _shortfalls(records, mine, theirs)
    return StepCap(
        cap=cap,
        lag_steps=Distribution.of([cap - s for s in stagnant]),
        false_stops=theirs[0],
        premature_stops=theirs[1],
        lag_p95=theirs[2],
        agent_lag_p95=mine[2],
        shortfalls=shortfalls,
        beaten=not shortfalls,
    )


def _optional(values: Sequence[Number]) -> Distribution | None:
    """``None`` for no values: a group of controls has no lag."""
    return Distribution.of(values) if values else None


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, RATE_DIGITS) if whole else None


def _pass_k(records: Sequence[TerminationRecord]) -> tuple[int, int, int]:
    """Distinct scenarios, k, and how many scenarios passed on every seed."""
    by_scenario: dict[str, list[bool]] = {}
    for record in records:
        by_scenario.setdefault(record.scenario, []).append(_passed(record))
    k = max(len(results) for results in by_scenario.values())
    return len(by_scenario), k, sum(all(results) for results in by_scenario.values())


def _group(level: str, name: str, agent: str, records: Sequence[TerminationRecord]) -> GroupMetrics:
    unsolvable = [r for r in records if not r.solvable]
    lagged = [r for r in unsolvable if has_lag(r)]
    lags = [lag(r) for r in lagged]
    tokens = [t for t in map(lag_tokens, lagged) if t is not None]
    dollars = [round(c, COST_DIGITS) for c in map(lag_cost_usd, lagged) if c is not None]
    controls = [r for r in records if r.solvable]
    false_stops = sum(map(is_counted_false_stop, controls))
    scenarios, k, pass_k = _pass_k(records)
    return GroupMetrics(
        agent=agent,
        level=level,
        name=name,
        runs=len(records),
        passed=sum(map(_passed, records)),
        scenarios=scenarios,
        seeds=tuple(sorted({record.seed for record in records})),
        k=k,
        pass_k=pass_k,
        lag_steps=_optional(lags),
        lag_tokens=_optional(tokens),
        lag_cost_usd=_optional(dollars),
        steps=Distribution.of([r.observed.steps for r in records]),
        steps_per_bound=Distribution.of([stopped_step(r) / r.step_bound for r in records]),
        over_bound=sum(stopped_step(r) > r.step_bound for r in records),
        over_budget=sum(
            r.observed.overshoot_tokens > 0 or r.observed.overshoot_cost_usd > 0 for r in records
        ),
        overshoot_tokens=Distribution.of([r.observed.overshoot_tokens for r in records]),
        overshoot_cost_usd=Distribution.of(
            [round(r.observed.overshoot_cost_usd, COST_DIGITS) for r in records]
        ),
        exits=dict(sorted(Counter(map(ending, records)).items())),
        controls=len(controls),
        false_stops=false_stops,
        false_stop_rate=_rate(false_stops, len(controls)),
        unreported_finishes=sum(map(is_unreported_finish, controls)),
        premature_stops=sum(map(is_premature_stop, records)),
        blind_stops=sum(map(is_blind_stop, unsolvable)),
        step_cap=calibrated_step_cap(records),
        false_completions=sum(map(is_false_completion, records)),
        did_not_stop=sum(r.outcome is Outcome.DID_NOT_STOP for r in records),
    )


def _grouped(
    records: Sequence[TerminationRecord], level: str, name_of: Callable[[TerminationRecord], str]
) -> tuple[GroupMetrics, ...]:
    """One group per name × agent, names and agents in the order the records first show them."""
    groups: dict[tuple[str, str], list[TerminationRecord]] = {}
    for record in records:
        groups.setdefault((name_of(record), record.agent), []).append(record)
    return tuple(_group(level, name, agent, members) for (name, agent), members in groups.items())


@dataclass(frozen=True, kw_only=True)
class Metrics:
    """Every group's metrics: per agent over all its runs, per family, per scenario."""

    agents: tuple[GroupMetrics, ...] = ()
    families: tuple[GroupMetrics, ...] = ()
    scenarios: tuple[GroupMetrics, ...] = ()
    runs: int = 0
    lost: tuple[RunId, ...] = ()
    """The unsolvable runs whose worker was lost before their first step, so that have no lag
    (`has_lag`): no lag figure counts them, and the baseline gate names them, since their lag
    is compared with nothing."""

    @cached_property
    def by_key(self) -> dict[tuple[str, str, str], GroupMetrics]:
        """Every group by `GroupMetrics.key`."""
        return {group.key: group for group in self}

    def __iter__(self) -> Iterator[GroupMetrics]:
        """Agents, then families, then scenarios."""
        return iter((*self.agents, *self.families, *self.scenarios))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data; the same records always give the same data."""
        groups = {"agents": self.agents, "families": self.families, "scenarios": self.scenarios}
        data: dict[str, Any] = {
            level: [_group_data(group) for group in members] for level, members in groups.items()
        }
        data["runs"] = self.runs
        return data


def _group_data(group: GroupMetrics) -> dict[str, Any]:
    """One group as plain data, its step/N ratios rounded to `RATE_DIGITS` like its rates."""
    data = dataclasses.asdict(group)
    data["steps_per_bound"] = dataclasses.asdict(group.steps_per_bound.rounded(RATE_DIGITS))
    return data


def measure(records: Sequence[TerminationRecord]) -> Metrics:
    """The metrics of ``records``: groups appear in the order the records first show them."""
    agents = _grouped(records, "agent", lambda _: ALL)
    families = _grouped(records, "family", lambda record: record.family)
    scenarios = _grouped(records, "scenario", lambda record: record.scenario)
    lost = tuple(
        RunId(agent=r.agent, scenario=r.scenario, seed=r.seed)
        for r in records
        if not r.solvable and not has_lag(r)
    )
    return Metrics(
        agents=agents, families=families, scenarios=scenarios, runs=len(records), lost=lost
    )
