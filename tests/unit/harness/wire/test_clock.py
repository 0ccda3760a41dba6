"""The session clock on the loopback server: an agent in another process reads it and waits on
it as an in-process agent does with `Session.clock` and `Session.sleep`."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from unsolvable import Session
from unsolvable.wire import Wire


def test_a_wait_posted_to_the_clock_is_slept_on_the_session_clock(session: Session) -> None:
    with Wire(session) as wire, wire.serve() as server:
        before = httpx.get(server.clock_url).json()["clock"]
        waited = httpx.post(f"{server.clock_url}/sleep", json={"seconds": 60}).json()["clock"]
        again = httpx.post(f"{server.clock_url}/sleep", json={"seconds": 0.5}).json()["clock"]
        attempts = [(a.kind, a.route, a.status) for a in wire.attempts]
    assert before < 60 <= waited - before < 60.5 <= again - before
    assert session.finish().slept_seconds == 60.5
    assert attempts == [
        ("clock", "/clock", 200),
        ("clock", "/clock/sleep", 200),
        ("clock", "/clock/sleep", 200),
    ]


def test_the_clock_is_one_for_every_agent_of_the_run(session: Session) -> None:
    with Wire(session) as wire, wire.serve() as server:
        httpx.post(f"{server.agents_url}/worker-1/clock/sleep", json={"seconds": 30})
        httpx.post(f"{server.agents_url}/worker-2/clock/sleep", json={"seconds": 30})
        read = httpx.get(f"{server.agents_url}/worker-1/clock").json()["clock"]
    assert read >= 60 and session.finish().slept_seconds == 60


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ({"seconds": "60"}, "give the wait as a number of seconds, not '60'"),
        ({"seconds": True}, "give the wait as a number of seconds, not True"),
        ({}, "give the wait as a number of seconds, not None"),
        ({"seconds": -1}, "give a finite number of seconds, 0 or more, not -1"),
        ([60], "the body is not a JSON object"),
    ],
)
def test_a_wait_that_is_no_number_of_seconds_is_refused_and_not_slept(
    session: Session, body: Any, why: str
) -> None:
    with Wire(session) as wire, wire.serve() as server:
        reply = httpx.post(f"{server.clock_url}/sleep", json=body)
    assert reply.status_code == 400
    message = reply.json()["error"]["message"]
    assert message.startswith(f"unsolvable: /clock/sleep: {why}")
    assert 'POST /clock/sleep with {"seconds": 60} waits on it' in message
    assert session.finish().slept_seconds == 0


def test_an_infinite_wait_is_refused(session: Session) -> None:
    with Wire(session) as wire, wire.serve() as server:
        reply = httpx.post(f"{server.clock_url}/sleep", content=b'{"seconds": Infinity}')
    assert reply.status_code == 400 and "not inf" in reply.json()["error"]["message"]


@pytest.mark.parametrize(
    ("method", "path", "allowed"), [("POST", "", "GET, HEAD"), ("GET", "/sleep", "POST")]
)
def test_the_clock_answers_another_method_405_naming_the_one_it_serves(
    session: Session, method: str, path: str, allowed: str
) -> None:
    with Wire(session) as wire, wire.serve() as server:
        reply = httpx.request(method, f"{server.clock_url}{path}")
    assert (reply.status_code, reply.headers["allow"]) == (405, allowed)
    assert reply.json()["error"]["message"].startswith(f"unsolvable: {method} /clock{path} is not")


def test_a_wait_after_the_agent_returned_is_refused_as_any_late_call(session: Session) -> None:
    with Wire(session) as wire, wire.serve() as server:
        session.returned()
        reply = httpx.post(f"{server.clock_url}/sleep", json={"seconds": 60})
    assert reply.status_code == 410 and session.finish().slept_seconds == 0
    assert session.late_call == "a sleep on the session clock"
