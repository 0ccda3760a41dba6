"""Which calls the model asked for, by agent and tool, and which it asked for in vain."""

from __future__ import annotations

from unsolvable._asked import Asked


def test_each_asked_call_is_taken_once_and_the_rest_are_unmade_at_the_next_step() -> None:
    asked = Asked()
    assert asked.ask("main", 1, ["search", "search", "read"]) == []
    assert [asked.take("main", "search") for _ in range(3)] == [True, True, False]
    assert asked.ask("main", 2, ["search"]) == [(1, "read")]


def test_agents_are_asked_apart_and_the_end_of_the_run_closes_every_one() -> None:
    asked = Asked()
    asked.ask("main", 1, ["delegate_x"])
    asked.ask("worker-1", 2, ["lookup"])
    assert not asked.take("main", "lookup") and not asked.take("other", "lookup")
    assert sorted(asked.close()) == [(1, "delegate_x"), (2, "lookup")]
    assert asked.close() == []
