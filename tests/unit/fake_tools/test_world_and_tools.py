"""The fake world's fingerprint and the tool families' answers."""

from __future__ import annotations

import functools
import json

import pytest

from unsolvable import ToolSpec
from unsolvable.fake_tools import (
    Criterion,
    FakeWorld,
    ModelSteps,
    PermissionDenied,
    Tool,
    ToolRouter,
    append_tool,
    check_tool,
    constant_tool,
    denied_tool,
    pages_tool,
    requires,
    search_tool,
    sections_tool,
    setting_tool,
    settle_tool,
    staged_tool,
    unavailable_tool,
    writer_tool,
)

SPEC = ToolSpec(name="t", description="a tool")


def _world() -> FakeWorld:
    return FakeWorld(failing=requires("done", "not done"), seed=1)


def test_fingerprint_ignores_audit_fields_case_and_spacing() -> None:
    world = _world()
    world.put("doc", "Hello  World")
    before = world.fingerprint()
    world.get("doc")
    world.put("doc", "hello world")
    assert world.fingerprint() == before and world.accesses["doc"] == 3


def test_a_value_judged_as_an_earlier_one_is_the_same_state_and_still_stored() -> None:
    world = _world()
    world.put("doc", "first draft", judged_as=["too long"])
    before = world.fingerprint()
    world.put("doc", "second draft", judged_as=["too long"])
    assert world.fingerprint() == before and world.peek("doc") == "second draft"
    world.put("doc", "second draft")
    assert world.fingerprint() != before


def _answered(router: ToolRouter, call: dict[str, object]) -> tuple[str, str | None]:
    """The world's fingerprint after ``call`` and the observation it gave."""
    observation = router.call("t", call).observation
    return router.world.fingerprint(), observation


WRITES = [
    (writer_tool(SPEC, key="doc", field="text", criteria=[Criterion(name="c", holds=bool)]),
     [{"text": f"draft {n}"} for n in range(4)]),
    (setting_tool(SPEC, key="mode", field="mode", symptoms={"on": "fails", "off": "fails too"}),
     [{"mode": f"made-up-{n}"} for n in range(4)]),
    (sections_tool(SPEC, key="doc", total=2),
     [{"number": 1, "text": "one"}, {"number": 1, "text": "again"}, {"number": 9, "text": "x"}]),
    (search_tool(SPEC, field="p", found={"hit": ["a.py:1"]}, scanned=3, seconds=1.0),
     [{"p": f"miss-{n}"} for n in range(4)]),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "calls"), WRITES, ids=["writer", "setting", "sections", "search"])
def test_new_values_the_checks_judge_alike_are_one_state_and_one_observation(
    tool: Tool, calls: list[dict[str, object]]
) -> None:
    """A write or search counts by what the world's checks say of it, and the agent's own input
    said back is no news: after the first, new values add no new state or observation."""
    router = ToolRouter(_world(), [tool])
    first = _answered(router, calls[0])
    assert all(_answered(router, call) == first for call in calls[1:])


def test_completion_predicate_reads_the_world() -> None:
    world = _world()
    assert not world.is_complete()
    world.put("done", True)
    assert world.is_complete()


def test_constant_tool_varies_only_its_request_id() -> None:
    router = ToolRouter(_world(), [constant_tool(SPEC, {"results": []})])
    first, second = router.call("t", {"q": 1}), router.call("t", {"q": 2})
    assert first.text != second.text and first.observation == second.observation
    assert router["t"].called and len(router["t"].calls) == 2


def test_denied_tool_names_the_permission_as_text_or_raises() -> None:
    text = ToolRouter(_world(), [denied_tool(SPEC, "a:b")]).call("t", {})
    assert (
        json.loads(text.text)["error"]["missing_permission"] == "a:b" and text.refusal == "denied"
    )
    raised = ToolRouter(_world(), [denied_tool(SPEC, "a:b", raises=True)]).call("t", {})
    assert isinstance(raised.error, PermissionDenied) and raised.error.permission == "a:b"


def test_unavailable_tool_answers_503() -> None:
    result = ToolRouter(_world(), [unavailable_tool(SPEC, "billing")]).call("t", {})
    assert json.loads(result.text)["error"]["status"] == 503 and result.refusal == "unavailable"


def test_unknown_tool_is_an_error_text_listing_the_tools() -> None:
    result = ToolRouter(_world(), [constant_tool(SPEC, {})]).call("nope", {})
    assert json.loads(result.text)["error"]["available"] == ["t"]


def test_duplicate_tool_names_are_rejected() -> None:
    with pytest.raises(ValueError, match=r"\['t'\] given twice"):
        ToolRouter(_world(), [constant_tool(SPEC, {}), constant_tool(SPEC, {})])


def test_a_scoped_check_reads_one_subtask_and_names_the_known_ones_when_asked_another() -> None:
    world = FakeWorld(failing=lambda w: ["a not done", "b not done"], seed=0)
    scopes = {"a": lambda w: [] if w.peek("a") else ["a not done"], "b": lambda w: ["b not done"]}
    router = ToolRouter(world, [check_tool(SPEC, subtasks=scopes)])
    world.put("a", True)
    asked = ({"subtask": "a"}, {}, {"subtask": "c"}, {"subtask": ["a"]})
    answers = [json.loads(router.call("t", args).text) for args in asked]
    assert (answers[0]["complete"], answers[1]["failing"]) == (True, ["a not done", "b not done"])
    assert answers[2]["error"] == {"message": "unknown subtask 'c'", "subtasks": ["a", "b"]}
    assert answers[3]["error"] == {"message": "unknown subtask ['a']", "subtasks": ["a", "b"]}


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        (pages_tool(SPEC, key="read", lines_per_page=2), {"page": "next"}),
        (pages_tool(SPEC, key="read", lines_per_page=2), {"page": None}),
        (append_tool(SPEC, key="todos", field="items"), {"items": "write the tests"}),
        (append_tool(SPEC, key="todos", field="items"), {"items": 3}),
    ],
)
def test_arguments_of_the_wrong_type_are_a_400_that_leaves_the_world_as_it_was(
    tool: Tool, arguments: dict[str, object]
) -> None:
    """A model's badly typed argument is its own mistake to see, never a tool that raises into
    the agent (or a string added to a list one character at a time)."""
    world = _world()
    before = world.fingerprint()
    result = ToolRouter(world, [tool]).call("t", arguments)
    assert json.loads(result.text)["error"]["status"] == 400
    assert world.fingerprint() == before


def test_settling_a_made_up_item_is_one_answer_that_never_names_it() -> None:
    tool = settle_tool(
        SPEC, field="invoice", items=frozenset({"INV-1"}), key="done", done="paid", missing="no"
    )
    router = ToolRouter(_world(), [tool])
    start = router.world.fingerprint()
    made_up = {_answered(router, {"invoice": name}) for name in ("INV-2", "INV-3")}
    assert made_up == {(start, json.dumps({"error": {"message": "no", "status": 404}}))}
    assert json.loads(router.call("t", {"invoice": "INV-1"}).text)["status"] == "paid"
    assert router.world.is_complete() and router.world.peek("done") == "INV-1"


def test_a_staged_tool_answers_as_its_first_tool_until_its_step() -> None:
    world, steps = FakeWorld(failing=lambda w: []), ModelSteps()
    tool = staged_tool(
        constant_tool(SPEC, {"n": 0}),
        constant_tool(SPEC, {"n": 1}),
        begun=functools.partial(steps.has_reached, 3),
    )
    answers = []
    for step in (1, 2, 3, 4):
        steps.step = step
        answers.append(json.loads(tool.handler(world, {}).text)["n"])
    assert answers == [0, 0, 1, 1]


def test_a_staged_tool_of_two_specs_is_refused() -> None:
    """Both tools are offered as one: an agent would read the one spec and be answered by the
    other's handler."""
    other = ToolSpec(name="u", description="another tool")
    with pytest.raises(ValueError, match="'t' and 'u' are offered as one tool"):
        staged_tool(constant_tool(SPEC, {}), constant_tool(other, {}), begun=lambda: True)
