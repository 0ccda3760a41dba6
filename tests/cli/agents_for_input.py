"""Agents the input tests load by ``module:attr``: they leak secrets, or hand back objects whose
default repr holds a memory address."""

from __future__ import annotations

import os

from unsolvable import Code, Session, Stop

SECRET_ENV = "LEAKY_SERVICE_API_KEY"
SK_KEY = "sk-proj-abcdefghijklmnop1234"
BEARER = "eyJhbGciOiJIUzI1NiJ9.payload.signature"
URL_PASSWORD = "hunter2-password"


def _secrets() -> str:
    return (
        f"key={os.environ[SECRET_ENV]} openai={SK_KEY} Authorization: Bearer {BEARER} "
        f"via https://deploy:{URL_PASSWORD}@example.com/api"
    )


def leaky(session: Session) -> Stop:
    """Puts every secret into a tool call's arguments, its reason and its partial results."""
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    session.call_tool(session.tools[0].name, {"query": _secrets()})
    return Stop(code=Code.BUDGET_STEPS, reason=_secrets(), partial={"notes": [_secrets()]})


def leaky_crash(session: Session) -> Stop:
    """Raises with every secret in its message."""
    session.call_model([{"role": "user", "content": session.task}], session.tools)
    raise RuntimeError(f"upstream refused {_secrets()}")


class Answer:
    """An object with the default repr, ``<...Answer object at 0x7f…>``."""


def returns_an_object(session: Session) -> object:
    return Answer()


def raises_an_object(session: Session) -> object:
    raise RuntimeError(Answer())


def partial_object(session: Session) -> Stop:
    return Stop(code=Code.BUDGET_STEPS, reason=f"gave {Answer()}", partial=Answer())
