"""Which calls the model asked for, by agent and tool, and which it asked for in vain."""

from __future__ import annotations

from unsolvable._asked import Asked, Taken, Unmade


def test_each_asked_call_is_taken_once_and_the_rest_are_unmade_at_the_next_step() -> None:
    asked = Asked()
    assert asked.ask("main", 1, [("search", "{}"), ("search", '{"q":"a"}'), ("read", "{}")]) == []
    taken = [asked.take("main", "search", '{"q":"a"}') for _ in range(3)]
    # the step that asked for it, and whose conversation did; none for an unasked call
    assert taken == [Taken(1, "main"), Taken(1, "main"), None]
    assert asked.ask("main", 2, [("search", "{}")]) == [Unmade(1, "read", "{}")]


def test_a_call_with_defaults_filled_in_takes_the_asked_call_it_fills_in() -> None:
    """A framework may fill in defaults: the call is still the one its model asked for."""
    asked = Asked()
    asked.ask("main", 1, [("search", '{"q":"a"}'), ("search", '{"q":"b"}')])
    assert asked.take("main", "search", '{"limit":10,"q":"b"}')
    assert asked.close() == [Unmade(1, "search", '{"q":"a"}')]


def test_a_call_that_changes_an_asked_argument_takes_no_asked_call() -> None:
    """An agent that makes an earlier call of the tool in place of the one asked (the offset
    it read before, whose answer it knows) makes a call of its own accord; ``true`` is not
    ``1``."""
    asked = Asked()
    asked.ask("main", 2, [("search", '{"offset":1,"q":"a"}'), ("flag", '{"on":true}')])
    assert asked.take("main", "search", '{"offset":0,"q":"a"}') is None
    assert asked.take("main", "flag", '{"on":1}') is None
    assert len(asked.close()) == 2


def test_agents_are_asked_apart_and_the_end_of_the_run_closes_every_one() -> None:
    """An agent's call takes its own conversation's asked call first; made under a name whose
    conversations asked for none like it, it takes another agent's, whose work it is."""
    asked = Asked()
    asked.ask("main", 1, [("delegate_x", "{}"), ("lookup", '{"q":"a"}')])
    asked.ask("worker-1", 2, [("lookup", '{"q":"a"}'), ("lookup", "{}")])
    # main's conversation asked for the same call at step 1, and it was not made there
    assert asked.take("worker-1", "lookup", '{"q":"a"}') == Taken(2, "worker-1", since=1)
    assert asked.take("main", "lookup", "{}") == Taken(2, "worker-1")
    assert asked.take("other", "lookup", "{}") is None
    assert sorted(asked.close()) == [
        Unmade(1, "delegate_x", "{}"),
        Unmade(1, "lookup", '{"q":"a"}'),
    ]
    assert asked.close() == []


def test_the_conversations_of_one_agent_are_asked_apart() -> None:
    """A runtime that runs every worker under one name, at once: each worker's model asks before
    any call is made, and each call made is the one its own conversation asked for, at its step,
    none of them left unmade by another's next step."""
    asked = Asked()
    assert asked.ask("worker", 6, [("file", '{"n":1}')], subtask="S-1") == []
    assert asked.ask("worker", 7, [("file", '{"n":2}')], subtask="S-2") == []
    taken = [asked.take("worker", "file", f'{{"n":{n}}}') for n in (2, 1)]
    assert taken == [Taken(7, "worker"), Taken(6, "worker")]
    assert asked.ask("worker", 8, [("read", "{}")], subtask="S-1") == []
    assert asked.close() == [Unmade(8, "read", "{}")]


def test_a_call_made_after_it_was_passed_over_says_since_when() -> None:
    """The same call asked at step 1 and 2, passed over, then made at step 3: taken there, since
    step 1; made again after it is asked once more, since no step."""
    asked = Asked()
    for step in (1, 2, 3):
        asked.ask("main", step, [("publish", "{}")])
    assert asked.take("main", "publish", "{}") == Taken(3, "main", since=1)
    asked.ask("main", 4, [("publish", "{}")])
    assert asked.take("main", "publish", "{}") == Taken(4, "main")


def test_a_call_still_asked_in_another_conversation_was_not_made_there() -> None:
    """Each step a fresh conversation under a new name asks for the same call, none passed over:
    the call made in the last is taken since the first."""
    asked = Asked()
    for step in (1, 2, 3):
        asked.ask(f"asker-{step}", step, [("publish", "{}")])
    assert asked.take("asker-3", "publish", "{}") == Taken(3, "asker-3", since=1)


def test_a_call_of_a_tool_that_refuses_every_call_stands_for_any_other_of_them() -> None:
    """Lookups of what does not exist under a new spelling each step, passed over until the
    third: every one of them would have been refused, so the third's refusal dates at the first
    lookup asked; a tool that answers by its arguments dates only the same call back."""
    lookups = [
        ("find_order", '{"id":"A-1"}'),
        ("find_customer", "{}"),
        ("find_order", '{"id":"a1"}'),
    ]
    dated = []
    for refusing in (frozenset({"find_order", "find_customer"}), frozenset()):
        asked = Asked(refusing=refusing)
        for step, call in enumerate(lookups, start=1):
            asked.ask("main", step, [call])
        dated.append(asked.take("main", *lookups[-1]))
    assert dated == [Taken(3, "main", since=1), Taken(3, "main")]
