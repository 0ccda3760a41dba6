"""Which calls the model asked for, by agent and tool, and which it asked for in vain."""

from __future__ import annotations

from unsolvable._asked import Asked, Unmade


def test_each_asked_call_is_taken_once_and_the_rest_are_unmade_at_the_next_step() -> None:
    asked = Asked()
    assert asked.ask("main", 1, [("search", "{}"), ("search", '{"q":"a"}'), ("read", "{}")]) == []
    taken = [asked.take("main", "search", '{"q":"a"}') for _ in range(3)]
    assert taken == [True, True, False]
    assert asked.ask("main", 2, [("search", "{}")]) == [Unmade(1, "read", "{}")]


def test_a_call_made_with_other_arguments_takes_an_asked_call_of_its_tool() -> None:
    """A framework may fill in defaults: the call is still the one its model asked for."""
    asked = Asked()
    asked.ask("main", 1, [("search", '{"q":"a"}'), ("search", '{"q":"b"}')])
    assert asked.take("main", "search", '{"limit":10,"q":"b"}')
    assert asked.close() == [Unmade(1, "search", '{"q":"b"}')]


def test_agents_are_asked_apart_and_the_end_of_the_run_closes_every_one() -> None:
    asked = Asked()
    asked.ask("main", 1, [("delegate_x", "{}")])
    asked.ask("worker-1", 2, [("lookup", "{}")])
    assert not asked.take("main", "lookup", "{}") and not asked.take("other", "lookup", "{}")
    assert sorted(asked.close()) == [Unmade(1, "delegate_x", "{}"), Unmade(2, "lookup", "{}")]
    assert asked.close() == []
