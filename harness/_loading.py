"""Consumes an agent spec (a built-in name or ``module:attr``), produces an `Adapter`.

Specs stay strings until the last moment, so options holding them pickle across xdist workers.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from harness._errors import AdapterError
from harness.adapters.base import Adapter, PlainAdapter, as_adapter

__all__ = ["AgentLike", "load_agent"]

AgentLike = str | Adapter | Callable[..., Any]
"""What names an agent: a spec string, a callable ``agent(session)`` or an `Adapter`."""


@functools.cache
def load_agent(spec: str) -> Adapter:
    """``naive``, ``contract`` or ``package.module:attribute`` (a callable or an `Adapter`).

    An attribute that is a class or a factory is *not* called: name the agent object itself.
    """
    from harness.agents import BUILTIN

    if spec in BUILTIN:
        return as_adapter(BUILTIN[spec])  # type: ignore[arg-type]
    from harness.adapters.registry import registered  # names installed packages register

    spec = registered().get(spec, spec)
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise AdapterError(
            f"agent {spec!r} is neither a built-in ({', '.join(sorted(BUILTIN))}) nor a "
            "'module:attribute' path; write it as e.g. mypkg.agents:my_agent"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise AdapterError(
            f"agent {spec!r}: module {module_name!r} cannot be imported ({error}); "
            "check the spelling and that it is installed or on sys.path"
        ) from error
    target: object = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AdapterError(
                f"agent {spec!r}: {module_name!r} has no attribute {attribute!r}"
            ) from None
    if isinstance(target, Adapter):
        return target
    if not callable(target):
        raise AdapterError(
            f"agent {spec!r} is a {type(target).__name__}, not callable; point at a function "
            "agent(session) or an Adapter"
        )
    return PlainAdapter(target, name=spec)
