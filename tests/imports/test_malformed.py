"""``unsolvable import`` of a trace that is not in its format's shape: a usage error (exit status
2) naming the file, the format and the field, never a traceback; and whatever Python error a
reader still meets is said the same way."""

from __future__ import annotations

import copy
import functools
import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.imports._traces import anthropic_messages, openai_chat, openhands_log
from unsolvable import run
from unsolvable.agents import naive
from unsolvable.cli import main
from unsolvable.imports import FORMATS, ImportFailed, read_trace
from unsolvable.reports._atif import to_atif
from unsolvable.scenarios import get

Change = Callable[[Any], Any]
"""Edits a well-formed trace in place, or returns what stands for it instead."""


@functools.cache
def _atif() -> dict[str, Any]:
    return to_atif(run(naive, get("missing-permission/retry-403"), seed=1))


def _json(format: str, change: Change, tmp_path: Path) -> Path:
    """A well-formed trace of ``format``, changed, in a file."""
    path = tmp_path / "trace.json"
    if format == "atif":
        data: Any = copy.deepcopy(_atif())
    else:
        made = {"openai-chat": openai_chat, "anthropic-messages": anthropic_messages}[format]
        data = json.loads(made(tmp_path / "made.json").read_text())
    changed = change(data)
    path.write_text(json.dumps(data if changed is None else changed))
    return path


def _openhands(change: Change, tmp_path: Path) -> Path:
    """A well-formed OpenHands folder with its events (0 the system prompt, 1 the task, 2 the
    first action, 3 its observation) changed."""
    folder = openhands_log(tmp_path / "conversation")
    files = sorted((folder / "events").glob("event-*.json"))
    events = [json.loads(file.read_text()) for file in files]
    change(events)
    for file, event in zip(files, events, strict=True):
        file.write_text(json.dumps(event))
    return folder


def _set(at: Callable[[Any], Any], **fields: Any) -> Change:
    return lambda data: at(data).update(fields)


def _replace(index: int, value: Any) -> Change:
    return lambda events: events.__setitem__(index, value)


def _step(i: int) -> Callable[[Any], Any]:
    return lambda t: t["steps"][i]


def _message(i: int) -> Callable[[Any], Any]:
    return lambda t: t["messages"][i]


def _block(i: int, j: int) -> Callable[[Any], Any]:
    return lambda t: t["messages"][i]["content"][j]


def _event(i: int) -> Callable[[Any], Any]:
    return lambda events: events[i]


def _root(t: Any) -> Any:
    return t


MALFORMED = [
    pytest.param("atif", _set(_step(1), observation="x"),
                 "steps[1].observation is a string ('x'), not an object", id="atif-observation"),
    pytest.param("atif", _set(_step(1), observation={"results": "x"}),
                 "steps[1].observation.results is a string ('x'), not a list",
                 id="atif-results"),
    pytest.param("atif", _set(_step(1), observation={"results": [5]}),
                 "steps[1].observation.results[0] is not an object", id="atif-result"),
    pytest.param("atif", _set(_step(1), extra="x"),
                 "steps[1].extra is a string ('x'), not an object", id="atif-step-extra"),
    pytest.param("atif", _set(_step(1), extra={"worlds": 5}),
                 "steps[1].extra.worlds is a whole number (5), not a list", id="atif-worlds"),
    pytest.param("atif", _set(_step(1), tool_calls="x"),
                 "steps[1].tool_calls is a string ('x'), not a list", id="atif-tool-calls"),
    pytest.param("atif", _set(_root, extra="x"),
                 "extra is a string ('x'), not an object", id="atif-extra"),
    pytest.param("atif", lambda t: t["extra"].update(seed="x"),
                 "extra.seed is a string ('x'); the seed of the run is a whole number",
                 id="atif-seed"),
    pytest.param("atif", _set(_root, subagent_trajectories=5),
                 "subagent_trajectories is a whole number (5), not a list", id="atif-subagents"),
    pytest.param("openai-chat", _set(_root, choices=5),
                 "choices is a whole number (5), not a list", id="openai-choices"),
    pytest.param("openai-chat", _set(_message(3), tool_call_id=["a"]),
                 "messages[3].tool_call_id is a list (['a']), not a string",
                 id="openai-tool-call-id"),
    pytest.param("openai-chat", _set(_message(2), tool_calls=["x"]),
                 "messages[2].tool_calls[0] is a string ('x'), not an object",
                 id="openai-tool-call"),
    pytest.param("openai-chat", _set(_message(2), tool_calls=5),
                 "messages[2].tool_calls is a whole number (5), not a list",
                 id="openai-tool-calls"),
    pytest.param("openai-chat", lambda t: t["messages"][2]["tool_calls"][0].update(function="x"),
                 "messages[2].tool_calls[0].function is a string ('x'), not an object",
                 id="openai-function"),
    pytest.param("openai-chat",
                 lambda t: t["messages"][2]["tool_calls"][0]["function"].__delitem__("name"),
                 "messages[2].tool_calls[0].function.name is missing", id="openai-call-name"),
    pytest.param("anthropic-messages", _set(_block(1, 1), name=""),
                 "messages[1].content[1].name is a string (''), not a name",
                 id="anthropic-call-name"),
    pytest.param("openhands", _set(_event(2), tool_name=5),
                 "tool_name in event-00002-a0.json is a whole number (5), not a name",
                 id="openhands-call-name"),
    pytest.param("openai-chat", lambda t: t["tools"][0]["function"].__delitem__("name"),
                 "tools[0].function.name is missing", id="openai-tool-name"),
    pytest.param("openai-chat", _set(_root, tools=5),
                 "tools is a whole number (5), not a list", id="openai-tools"),
    pytest.param("anthropic-messages", _set(_message(1), content=5),
                 "messages[1].content is a whole number (5), not a string or a list",
                 id="anthropic-content"),
    pytest.param("anthropic-messages", _set(_block(2, 0), tool_use_id=["a"]),
                 "messages[2].content[0].tool_use_id is a list (['a']), not a string",
                 id="anthropic-tool-use-id"),
    pytest.param("anthropic-messages", _set(_block(1, 1), input=[1, 2]),
                 "messages[1].content[1].input is a list ([1, 2]), not an object",
                 id="anthropic-input-list"),
    pytest.param("anthropic-messages", _set(_block(1, 1), input="ab"),
                 "messages[1].content[1].input is a string ('ab'), not an object",
                 id="anthropic-input-string"),
    pytest.param("anthropic-messages", _set(_root, tools=5),
                 "tools is a whole number (5), not a list", id="anthropic-tools"),
    pytest.param("openhands", _replace(3, 5),
                 "event-00003-o0.json holds a whole number (5), not an event object",
                 id="openhands-event"),
    pytest.param("openhands", _set(_event(3), observation="x"),
                 "observation in event-00003-o0.json is a string ('x'), not an object",
                 id="openhands-observation"),
    pytest.param("openhands", _set(_event(3), tool_call_id=["x"]),
                 "tool_call_id in event-00003-o0.json is a list (['x']), not a string",
                 id="openhands-tool-call-id"),
    pytest.param("openhands", _set(_event(2), tool_call="x"),
                 "tool_call in event-00002-a0.json is a string ('x'), not an object",
                 id="openhands-tool-call"),
    pytest.param("openhands", _set(_event(1), llm_message="x"),
                 "llm_message in event-00001-e1.json is a string ('x'), not an object",
                 id="openhands-message"),
    pytest.param("openhands", _set(_event(0), tools=5),
                 "tools in event-00000-e0.json is a whole number (5), not a list",
                 id="openhands-tools"),
]  # fmt: skip


def _import_error(format: str, trace: Path, tmp_path: Path, capsys: Any) -> str:
    """What ``unsolvable import`` says of ``trace``, which it must refuse with status 2."""
    out = tmp_path / "scenario.json"
    status = main(["import", str(trace), "--format", format, "--name", "incidents/x",
                   "-o", str(out)])  # fmt: skip
    err: str = capsys.readouterr().err
    assert status == 2, err
    assert err.startswith("unsolvable: error: ")
    assert "Traceback" not in err and not out.exists()
    return err


@pytest.mark.parametrize(("format", "change", "message"), MALFORMED)
def test_a_malformed_trace_is_a_usage_error_naming_the_field(
    format: str, change: Change, message: str, tmp_path: Path, capsys: Any
) -> None:
    """Every format names the file, the flag that read it and the field, in the same words."""
    if format == "openhands":
        trace = _openhands(change, tmp_path)
    else:
        trace = _json(format, change, tmp_path)
    err = _import_error(format, trace, tmp_path, capsys)
    assert f"{str(trace)!r} is not a valid --format {format} trace: {message}" in err
    assert "; correct the file there, or pass the --format it is written in" in err


@pytest.mark.parametrize(
    ("format", "what", "fix"),
    [
        ("openai-chat", "an OpenAI Chat Completions transcript", "give a JSON list of messages"),
        (
            "anthropic-messages",
            "an Anthropic Messages transcript",
            'give an object with "messages"',
        ),
        ("atif", "an ATIF trajectory", "the file holds no JSON object"),
    ],
)
def test_a_file_of_no_trace_at_all_is_named_with_its_format_and_what_the_format_is(
    format: str, what: str, fix: str, tmp_path: Path, capsys: Any
) -> None:
    trace = _json(format, lambda t: 5, tmp_path)
    err = _import_error(format, trace, tmp_path, capsys)
    assert f"{str(trace)!r} is not {what} (--format {format}): {fix}" in err
    assert err.rstrip().endswith("; or pass the --format it is written in")


def test_the_fields_named_are_read_when_well_formed(tmp_path: Path) -> None:
    """The shapes refused above are refused for what they hold, not because the bases are bad."""
    for format in ("atif", "openai-chat", "anthropic-messages"):
        assert read_trace(_json(format, lambda data: None, tmp_path), format).turns
    assert read_trace(_openhands(lambda events: None, tmp_path), "openhands").turns


READERS = {
    "atif": ("unsolvable.imports._atif", "read_atif"),
    "openhands": ("unsolvable.imports._openhands", "read_openhands"),
    "record": ("unsolvable.imports._records", "read_records"),
    "openai-chat": ("unsolvable.imports._openai_chat", "read_openai_chat"),
    "anthropic-messages": ("unsolvable.imports._anthropic_messages", "read_anthropic_messages"),
}


@pytest.mark.parametrize("format", FORMATS)
@pytest.mark.parametrize(
    ("error", "said"),
    [
        (AttributeError("'str' object has no attribute 'get'"), "AttributeError: 'str' object"),
        (TypeError("'int' object is not iterable"), "TypeError: 'int' object is not iterable"),
        (KeyError("name"), "a field it needs, 'name', is missing"),
        (ValueError("invalid literal for int()"), "ValueError: invalid literal for int()"),
    ],
    ids=["AttributeError", "TypeError", "KeyError", "ValueError"],
)
def test_any_error_a_reader_meets_is_said_naming_the_format(
    format: str, error: Exception, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The backstop: a shape no reader checks still ends as the importer's usage error."""

    def reader(*args: Any, **kwargs: Any) -> Any:
        raise error

    module, name = READERS[format]
    monkeypatch.setattr(importlib.import_module(module), name, reader)
    trace = tmp_path / "trace.json"
    trace.write_text("{}")
    path = tmp_path if format == "openhands" else trace
    with pytest.raises(ImportFailed) as caught:
        read_trace(path, format)
    message = str(caught.value)
    assert f"{str(path)!r} is not a valid --format {format} trace: " in message
    assert said in message and "pass the --format it is written in" in message


def test_an_import_failed_of_a_reader_is_said_as_it_is(tmp_path: Path) -> None:
    """Only Python's own errors are reworded: a reader's own message already names the fix."""
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({"records": []}))
    with pytest.raises(ImportFailed) as caught:
        read_trace(trace, "record")
    assert "is not a valid --format" not in str(caught.value)
    assert "pick one with --record N" in str(caught.value)
