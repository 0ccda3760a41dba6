"""Scripts: each policy moves at the step it names and not one off, perturbations change bytes
but not meaning, plans start where they say, and the model's text varies step by step."""

from __future__ import annotations

import dataclasses
import json
import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests import _builders as b
from tests import _strategies as strategies
from unsolvable import (
    JSON,
    Call,
    Claim,
    ClaimSuccess,
    Cycle,
    FanOut,
    GiveUp,
    ModelRequest,
    Repeat,
    Shared,
    Steps,
    TodoSpawn,
)
from unsolvable._scripts import PERTURBATIONS, TODO_TOPICS, Alternate, Perturbed, Until, restyle

A, B, C = (Call(name=name) for name in ("a", "b", "c"))
SEARCH = Call(name="search", arguments={"query": "the report", "offset": 3})


def _names(script: object, steps: int) -> list[str]:
    return [reply.tool_calls[0].name for reply in b.replies(script, steps)]  # type: ignore[arg-type]


def _perturbed(kind: str) -> Perturbed:
    field = {"offset": "offset", "synonym": "query", "case": "query"}.get(kind, "")
    return Perturbed(call=SEARCH, kind=kind, field=field, synonyms=("report", "summary", "doc"))


def test_repeat_makes_the_same_call_with_an_id_of_its_step() -> None:
    replies = b.replies(Repeat(call=SEARCH), 3)
    assert [r.tool_calls[0].arguments for r in replies] == [SEARCH.arguments] * 3
    assert [r.tool_calls[0].id for r in replies] == ["call_1_0", "call_2_0", "call_3_0"]


def test_the_model_text_varies_with_the_step() -> None:
    said = [r.content for r in b.replies(Repeat(call=Call(name="a", text="Checking")), 2)]
    assert said == ["Checking (attempt 1)", "Checking (attempt 2)"]
    assert [r.content for r in b.replies(Repeat(call=A), 2)] == ["Attempt 1.", "Attempt 2."]


def test_offset_starts_at_the_call_and_moves_one_per_step() -> None:
    offsets = [args["offset"] for args in b.arguments(_perturbed("offset"), 4)]
    assert offsets == [3, 4, 5, 6]


def test_synonyms_rotate_through_every_one_in_order() -> None:
    queries = [args["query"] for args in b.arguments(_perturbed("synonym"), 4)]
    assert queries == ["report", "summary", "doc", "report"]


def test_case_perturbation_walks_the_restyle_variants() -> None:
    queries = [args["query"] for args in b.arguments(_perturbed("case"), 6)]
    assert queries == [restyle("the report", i) for i in range(6)]
    assert queries[5] == queries[0] == "the report"


def test_volatile_ids_are_fresh_per_step_and_the_same_per_seed() -> None:
    ids = [args["request_id"] for args in b.arguments(_perturbed("volatile-id"), 3)]
    rng = random.Random(0)
    assert ids == [f"req-{rng.getrandbits(32):08x}" for _ in range(3)]
    assert len(set(ids)) == 3
    assert [a["request_id"] for a in b.arguments(_perturbed("volatile-id"), 3)] == ids
    assert [a["request_id"] for a in b.arguments(_perturbed("volatile-id"), 3, seed=1)] != ids


@given(kind=st.sampled_from(PERTURBATIONS), step=st.integers(1, 50))
def test_every_perturbation_changes_the_bytes_and_keeps_the_meaning(kind: str, step: int) -> None:
    script, rng = _perturbed(kind), random.Random(0)
    before = script.reply(b.request(step), rng).tool_calls[0].arguments
    after = script.reply(b.request(step + 1), rng).tool_calls[0].arguments
    assert json.dumps(before, sort_keys=True) != json.dumps(after, sort_keys=True)
    changed = {k for k in {*before, *after} if before.get(k) != after.get(k)}
    assert changed == {"request_id" if kind == "volatile-id" else script.field}
    if kind == "case":
        assert before["query"].casefold().split() == after["query"].casefold().split()
    if kind == "offset":
        assert after["offset"] - before["offset"] == 1


# Words of two letters or more: for one-letter words, title case is upper case.
WORDS = st.lists(st.text("abcdefgh", min_size=2, max_size=8), min_size=2, max_size=4)


@given(text=WORDS.map(" ".join), index=st.integers(0))
def test_restyle_keeps_the_words_and_cycles_five_distinct_variants(text: str, index: int) -> None:
    assert restyle(text, index).casefold().split() == text.split()
    assert restyle(text, index) == restyle(text, index + 5)
    assert len({restyle(text, i) for i in range(5)}) == 5


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"kind": "shuffle", "field": "query"},
            f"unknown perturbation 'shuffle'; use one of {PERTURBATIONS}",
        ),
        ({"kind": "synonym", "field": "query"}, "Perturbed(kind='synonym') needs synonyms=[...]"),
        (
            {"kind": "offset", "field": "page"},
            f"Perturbed(field='page') is not an argument of {SEARCH}",
        ),
        ({"kind": "case", "field": ""}, f"Perturbed(field='') is not an argument of {SEARCH}"),
        (
            {"kind": "offset", "field": "query"},
            "Perturbed(kind='offset') adds the step to a whole number, and query is "
            "'the report': perturb a whole-number argument, or text with kind='case'",
        ),
        (
            {"kind": "case", "field": "offset"},
            "Perturbed(kind='case') restyles text, and offset is 3: perturb a text argument, or "
            "a whole number with kind='offset'",
        ),
    ],
)
def test_a_perturbation_that_cannot_apply_is_refused(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        Perturbed(call=SEARCH, **kwargs)  # type: ignore[arg-type]


def test_volatile_ids_need_no_field() -> None:
    assert Perturbed(call=Call(name="a"), kind="volatile-id").field == ""


@pytest.mark.parametrize("restyled", [False, True])
def test_alternate_starts_with_plan_a_and_switches_every_step(restyled: bool) -> None:
    plans = (Call(name="a", arguments={"t": "x y", "n": 1}), Call(name="b", arguments={"t": "z"}))
    args = b.arguments(Alternate(plans=plans, restyled=restyled), 4)
    assert _names(Alternate(plans=plans, restyled=restyled), 4) == ["a", "b", "a", "b"]
    assert [a["t"] for a in args] == (
        ["x y", "z", "X Y", "Z"] if restyled else ["x y", "z", "x y", "z"]
    )
    assert args[2]["n"] == 1


def test_claim_success_follows_its_plan_for_exactly_after_steps() -> None:
    replies = b.replies(ClaimSuccess(after=2, before=_perturbed("volatile-id"), claim="Done."), 4)
    assert [len(r.tool_calls) for r in replies] == [1, 1, 0, 0]
    assert [r.content for r in replies[2:]] == ["Done.", "Done."]


def test_claim_says_done_with_no_call_every_time() -> None:
    assert [(r.content, r.tool_calls) for r in b.replies(Claim(text="ok"), 2)] == [("ok", ())] * 2


def test_give_up_follows_its_plan_for_exactly_after_steps_then_gives_its_reason() -> None:
    replies = b.replies(GiveUp(after=2, reason="no access", before=_perturbed("volatile-id")), 4)
    assert [r.tool_calls[0].name for r in replies] == ["search", "search", "give_up", "give_up"]
    assert replies[2].tool_calls[0].arguments == {"reason": "no access"}
    assert replies[2].content == "I cannot do this (attempt 3)"


def test_steps_makes_its_calls_in_order_then_counts_the_next_plan_from_one() -> None:
    script = Steps(calls=[A, B], then=Perturbed(call=SEARCH, kind="offset", field="offset"))
    replies = b.replies(script, 4)
    assert [r.tool_calls[0].name for r in replies] == ["a", "b", "search", "search"]
    assert [r.tool_calls[0].arguments["offset"] for r in replies[2:]] == [3, 4]
    assert replies[2].tool_calls[0].id == "call_3_0", "ids keep the run's step"


def test_steps_claims_done_by_default_when_its_calls_run_out() -> None:
    assert b.replies(Steps(calls=[A]), 2)[1].content == Claim().text


def test_cycle_goes_round_every_call_in_order() -> None:
    assert _names(Cycle(calls=[A, B, C]), 7) == ["a", "b", "c", "a", "b", "c", "a"]


def test_shared_gives_each_agent_the_turn_the_conversation_is_at() -> None:
    """Two agents taking turns: each one's own first step is not the script's first move."""
    rng, script = random.Random(0), Steps(calls=[A, B, C])
    turns = [("reviewer", 1, 1), ("producer", 2, 1), ("reviewer", 3, 2)]
    own = [script.reply(b.request(s, agent=a, agent_step=o), rng) for a, s, o in turns]
    shared = [
        Shared(script=script).reply(b.request(s, agent=a, agent_step=o), rng) for a, s, o in turns
    ]
    assert [r.tool_calls[0].name for r in own] == ["a", "a", "b"]
    assert [r.tool_calls[0].name for r in shared] == ["a", "b", "c"]


def test_todo_spawn_writes_fresh_items_of_its_step_and_keeps_the_other_arguments() -> None:
    call = Call(name="write", arguments={"path": "todo.md", "items": []})
    args = b.arguments(TodoSpawn(call=call, field="items"), 2)
    assert args[1]["path"] == "todo.md"
    assert args[1]["items"] == [f"follow-up 2.{i}: {t}" for i, t in enumerate(TODO_TOPICS, 1)]
    assert args[0]["items"][0] == "follow-up 1.1: re-verify the findings"


def _until() -> Until:
    then = Steps(calls=[B, C], then=Perturbed(call=A, kind="volatile-id"))
    return Until(call=A, marker="ready", then=then)


def test_until_repeats_its_call_until_a_result_carries_the_marker() -> None:
    script, rng = _until(), random.Random(0)
    seen = [
        script.reply(b.request(step, results=results), rng).tool_calls[0].name
        for step, results in [(1, ()), (2, ("not yet",)), (3, ("now ready",)), (4, ()), (5, ())]
    ]
    assert seen == ["a", "a", "b", "c", "a"]


def test_until_moves_on_for_the_agent_that_saw_the_marker_and_no_other() -> None:
    """Each agent sees only its own calls' results and counts its own steps: another agent,
    fewer steps in, keeps making the call until it sees the marker itself."""
    script, rng = _until(), random.Random(0)
    seen = [
        script.reply(b.request(step, agent=agent, agent_step=own, results=results), rng)
        .tool_calls[0]
        .name
        for step, agent, own, results in [
            (1, "x", 1, ()),
            (2, "x", 2, ()),
            (3, "x", 3, ()),
            (4, "x", 4, ("now ready",)),
            (5, "y", 1, ()),
            (6, "x", 5, ()),
            (7, "y", 2, ("now ready",)),
            (8, "y", 3, ()),
        ]
    ]
    assert seen == ["a", "a", "a", "b", "a", "c", "b", "c"]


def test_fan_out_hands_every_subtask_to_a_worker_in_one_step() -> None:
    delegate = Call(name="delegate", arguments={"depth": 1})
    worker = Perturbed(call=A, kind="volatile-id")
    script = FanOut(delegate=delegate, field="task", subtasks="xyz", worker=worker)
    reply = script.reply(b.request(4), random.Random(0))
    calls = reply.tool_calls
    assert reply.content == "Attempt 4."
    assert [c.arguments for c in calls] == [{"depth": 1, "task": t} for t in ("x", "y", "z")]
    assert [c.id for c in calls] == ["call_4_0", "call_4_1", "call_4_2"]
    worked = script.reply(b.request(5, agent="w1"), random.Random(0)).tool_calls[0]
    assert (worked.name, worked.arguments["request_id"][:4]) == ("a", "req-")


def _in_conversation(step: int, replies: int, agent: str = "w1") -> ModelRequest:
    """A worker's request at run step ``step``, its conversation holding ``replies`` of its
    own replies; its agent name has made as many calls again, in other conversations."""
    said: JSON = {"role": "assistant", "content": "a reply"}
    request = b.request(step, agent=agent, agent_step=2 * replies + 1)
    return dataclasses.replace(request, messages=(*request.messages, *[said] * replies))


def test_worker_scripts_are_driven_by_the_steps_of_the_workers_own_conversation() -> None:
    worker = Steps(calls=[A, B], then=Perturbed(call=SEARCH, kind="offset", field="offset"))
    script = FanOut(delegate=C, field="task", subtasks=["x"], worker=worker)
    rng = random.Random(0)
    moves = [
        script.reply(_in_conversation(step, own), rng) for step, own in [(2, 0), (5, 1), (9, 2)]
    ]
    assert [m.tool_calls[0].name for m in moves[:2]] == ["a", "b"]
    assert moves[2].tool_calls[0].arguments["offset"] == 3, "the worker's own third step"


def test_fan_out_reads_first_delegates_for_its_rounds_then_follows_then() -> None:
    script = FanOut(delegate=C, field="task", subtasks=["x"], worker=Repeat(call=A), before=[B],
                    rounds=1, then=Claim(text="all done"))  # fmt: skip
    moves = b.replies(script, 4)
    assert [m.tool_calls[0].name for m in moves[:2]] == ["b", "c"]
    assert [m.content for m in moves[2:]] == ["all done", "all done"]


def test_a_worker_follows_the_script_of_the_subtask_its_conversation_names() -> None:
    per_subtask = {"audit S-1": Repeat(call=A), "audit S-10": Repeat(call=B)}
    script = FanOut(delegate=C, field="task", subtasks=list(per_subtask), worker=Repeat(call=C),
                    per_subtask=per_subtask)  # fmt: skip

    def worker(said: str) -> str:
        request = dataclasses.replace(b.request(2, agent="w"), messages=({"content": said},))
        return script.reply(request, random.Random(0)).tool_calls[0].name

    assert [worker("do audit S-1"), worker("do audit S-10"), worker("?")] == ["a", "b", "c"]


def test_fan_out_makes_its_before_calls_in_order_then_hands_its_own_steps_to_then() -> None:
    then = Steps(calls=[A, SEARCH], then=Perturbed(call=B, kind="volatile-id"))
    script = FanOut(delegate=C, field="task", subtasks=["x"], worker=Repeat(call=A),
                    before=[B, SEARCH], rounds=2, then=then)  # fmt: skip
    names = [m.tool_calls[0].name for m in b.replies(script, 7)]
    assert names == ["b", SEARCH.name, "c", "c", "a", SEARCH.name, "b"]


def test_the_longest_subtask_a_worker_names_wins_not_the_last_in_order() -> None:
    per_subtask = {"x-1": Repeat(call=A), "B x-1": Repeat(call=B)}
    script = FanOut(delegate=C, field="task", subtasks=list(per_subtask), worker=Repeat(call=C),
                    per_subtask=per_subtask)  # fmt: skip
    request = dataclasses.replace(b.request(2, agent="w"), messages=({"content": "do B x-1"},))
    assert script.reply(request, random.Random(0)).tool_calls[0].name == "b"


json_values = strategies.json_values(max_leaves=8)


@given(st.dictionaries(st.text(), json_values, max_size=4))
def test_every_step_sends_a_calls_arguments_as_their_sorted_json(
    arguments: dict[str, object],
) -> None:
    call = Call(name="search", arguments=arguments)
    scripts = [
        Repeat(call=call),
        Cycle(calls=[call, A]),
        Steps(calls=[call, call]),
        TodoSpawn(call=call, field="items"),
        *(_perturbed(kind) for kind in PERTURBATIONS),
    ]
    for script in scripts:
        for reply in b.replies(script, 3):  # type: ignore[arg-type]
            for made in reply.tool_calls:
                sent = made.to_openai()["function"]["arguments"]
                assert sent == json.dumps(made.arguments, sort_keys=True)


def test_arguments_edited_after_the_call_was_made_are_sent_as_edited() -> None:
    call = Call(name="search", arguments={"query": "the report", "filters": {"year": 2024}})
    (first,) = b.replies(Repeat(call=call), 1)[0].tool_calls
    first.arguments["query"] = "another report"  # a model wrapper editing the script's call
    call.arguments["filters"]["year"] = 2025  # or the template itself, after its first use
    (later,) = b.replies(Repeat(call=call), 1)[0].tool_calls
    for made in (first, later):
        assert made.to_openai()["function"]["arguments"] == json.dumps(
            made.arguments, sort_keys=True
        )


def test_a_flat_template_edited_after_its_first_use_is_sent_as_edited() -> None:
    call = Call(name="search", arguments={"query": "the report", "offset": 0})
    b.replies(Repeat(call=call), 1)
    call.arguments["offset"] = 10  # a template of scalars is kept by a shallow copy
    (later,) = b.replies(Repeat(call=call), 1)[0].tool_calls
    assert later.to_openai()["function"]["arguments"] == '{"offset": 10, "query": "the report"}'


def test_arguments_that_are_not_json_are_refused_when_the_call_is_made() -> None:
    """Before any run starts, naming the call and what its arguments may hold."""
    with pytest.raises(ValueError, match=r"Call\(name='search'\): arguments must be JSON"):
        Call(name="search", arguments={"tags": {"a", "b"}})
