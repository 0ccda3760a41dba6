"""Consumes an agent spec (a built-in name, ``module:attr`` or ``exec:COMMAND``), produces an
`Adapter`.

Specs stay strings until the last moment, so options holding them pickle across xdist workers.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from unsolvable._errors import AdapterError
from unsolvable.adapters.base import Adapter, PlainAdapter, as_adapter

__all__ = ["BUILTIN_MODULE", "AgentLike", "adapter_for", "agent_name", "load_agent"]

AgentLike = str | Adapter | Callable[..., Any]
"""What names an agent: a spec string, a callable ``agent(session)`` or an `Adapter`."""
BUILTIN_MODULE = "unsolvable.agents"
"""``unsolvable.agents:contract`` is the built-in ``contract`` under its path (`agent_name`)."""


def agent_name(name: str) -> str:
    """One form for one agent: ``unsolvable.agents:contract`` and ``contract`` are the same agent,
    so a baseline blessed under one spelling gates a run made under the other."""
    from unsolvable.agents import BUILTIN

    module, _, attribute = name.partition(":")
    return attribute if module == BUILTIN_MODULE and attribute in BUILTIN else name


@functools.cache
def load_agent(spec: str, *, isolate_network: bool = False) -> Adapter:
    """``naive``, ``contract``, ``package.module:attribute`` (a callable or an `Adapter`), or
    ``exec:COMMAND ARGS…``, a process in any language (`unsolvable.adapters.process`), which
    ``isolate_network`` runs with loopback only (other specs are left as they are).

    An attribute that is a class or a factory is *not* called: name the agent object itself.
    """
    from unsolvable.adapters.process import EXEC_PREFIX, ProcessAdapter
    from unsolvable.agents import BUILTIN

    if spec.startswith(EXEC_PREFIX):
        process = ProcessAdapter.from_spec(spec, isolate_network=isolate_network)
        process.preflight()
        return process
    if spec in BUILTIN:
        return as_adapter(BUILTIN[spec])  # type: ignore[arg-type]
    from unsolvable.adapters.registry import registered  # names installed packages register

    names = registered()
    spec = names.get(spec, spec)
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        known = ", ".join(sorted({*BUILTIN, *names}))
        raise AdapterError(
            f"agent {spec!r} is neither a registered name ({known}) nor a 'module:attribute' "
            "path; write it as e.g. mypkg.agents:my_agent"
        )
    module = _import(spec, module_name)
    target: object = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AdapterError(
                f"agent {spec!r}: {module_name!r} has no attribute {attribute!r}"
            ) from None
    if isinstance(target, type):
        raise AdapterError(_class_message(spec, target))
    if isinstance(target, Adapter):
        _preflight(target)
        return target
    if not callable(target):
        raise AdapterError(
            f"agent {spec!r} is a {type(target).__name__}, not callable; point at a function "
            "agent(session) or an Adapter"
        )
    return PlainAdapter(target, name=spec)


def adapter_for(agent: AgentLike) -> Adapter:
    """The adapter a run drives: a spec loaded (`load_agent`), a callable through the plain face,
    and an adapter given as an object checked as a loaded one is (`_preflight`), so that
    ``unsolvable.run(ClaudeCodeAdapter(), ...)`` without the CLI fails as the spec does, with its
    one message and before the run, rather than record the run crashed."""
    if isinstance(agent, str):
        return load_agent(agent)
    adapter = as_adapter(agent)
    _preflight(adapter)
    return adapter


def _preflight(adapter: Adapter) -> None:
    """An adapter may check up front what every run of it needs (a coding agent's CLI, network
    namespaces): its ``preflight()`` raises `AdapterError`, and the command line and the plugin
    then stop with that one message before any run, rather than record each run crashed."""
    check = getattr(adapter, "preflight", None)
    if callable(check):
        check()


def _import(spec: str, module_name: str) -> ModuleType:
    """Imports the agent's module from the current directory first, as uvicorn, gunicorn and
    celery do: ``unsolvable run --agent myagent:agent`` beside ``myagent.py`` just works, also
    from the console script, whose ``sys.path`` does not hold the current directory.

    Whatever the import raises is a usage error naming it, not a traceback per run."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        return importlib.import_module(module_name)
    except ImportError as error:
        raise AdapterError(
            f"agent {spec!r}: module {module_name!r} cannot be imported ({error}); "
            "check the spelling and that it is installed, on sys.path or in the current directory"
        ) from error
    except SyntaxError as error:
        raise AdapterError(
            f"agent {spec!r}: module {module_name!r} has a syntax error at "
            f"{error.filename}:{error.lineno}: {error.msg}; fix it and run again"
        ) from None
    except Exception as error:
        raise AdapterError(
            f"agent {spec!r}: importing {module_name!r} raised {type(error).__name__}: {error}; "
            "the module must import without side effects that fail (move them into the agent)"
        ) from error


def _class_message(spec: str, target: type) -> str:
    """An agent is an object: a class would be called with the session as its argument."""
    module = spec.partition(":")[0]
    kind = "an Adapter class" if _has_adapter_methods(target) else "a class"
    return (
        f"agent {spec!r} is {kind} ({target.__qualname__}), not an agent object; instantiate it "
        f"in {module!r}: `adapter = {target.__qualname__}()`, then pass --agent {module}:adapter"
    )


def _has_adapter_methods(target: type) -> bool:
    return callable(getattr(target, "run", None)) and callable(getattr(target, "interpret", None))
