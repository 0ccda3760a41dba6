"""Where a recorded run got stuck and which turns it goes round: the importer's inference."""

from __future__ import annotations

from unsolvable.imports._cycle import find_cycle, find_stuck
from unsolvable.imports._trace import Recorded, Turn


def _turn(name: str, result: str, **arguments: object) -> Turn:
    return Turn(text="", calls=(Recorded(name=name, arguments=dict(arguments), result=result),))


def test_the_step_after_the_last_new_observation_is_stagnant() -> None:
    turns = [_turn("read", f'{{"page": {i}}}', page=i) for i in (1, 2)]
    turns += [_turn("search", f'{{"results": [], "request_id": "r-{i}"}}') for i in range(4)]
    stuck = find_stuck(turns)
    assert stuck.first_stagnant_step == 4 and not stuck.by_refusal  # step 3 was new; ids ignored
    cycle = find_cycle(turns, stuck.first_stagnant_step)
    assert (cycle.start, cycle.period) == (2, 1)


def test_a_b_alternation_is_a_cycle_of_two() -> None:
    turns = [_turn("set", f'{{"mode": "{m}"}}', mode=m) for m in "abababa"]
    stuck = find_stuck(turns)
    assert stuck.first_stagnant_step == 3
    assert (find_cycle(turns, 3).start, find_cycle(turns, 3).period) == (0, 2)


def test_perturbed_arguments_loop_over_the_stagnant_tail() -> None:
    turns = [_turn("search", '{"results": []}', offset=i) for i in range(6)]
    cycle = find_cycle(turns, find_stuck(turns).first_stagnant_step)
    assert (cycle.start, cycle.period) == (1, 5)


def test_the_first_denial_is_the_ground_truth_and_names_its_permission() -> None:
    denied = '{"error": {"status": 403, "missing_permission": "reports:publish"}}'
    turns = [_turn("read", "{}"), _turn("publish", denied), _turn("publish", denied)]
    stuck = find_stuck(turns)
    assert (stuck.first_stagnant_step, stuck.refusal, stuck.missing) == (
        2, "denied", ("reports:publish",),
    )  # fmt: skip


def test_a_last_turn_in_words_is_said_again_for_ever() -> None:
    turns = [_turn("search", "{}"), Turn(text="All done!")]
    assert (find_cycle(turns, 2).start, find_cycle(turns, 2).period) == (1, 1)
