"""Consumes an agent spec (a built-in name, ``module:attr`` or ``exec:COMMAND``, optionally
``NAME=SPEC``), produces an `Adapter` whose ``name`` is the run's label.

Specs stay strings until the last moment, so options holding them pickle across xdist workers.
The label is what the user controls and not where they ran from: the ``NAME`` of
``NAME=SPEC``, else the agent's own ``name``, else the spec as given; so a snapshot blessed
from the agent's folder (``my=myagent:agent``) matches a run from the repository's root
(``my=agents.myagent:agent``).
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import importlib
import os
import re
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

from unsolvable._errors import AdapterError, docs_page
from unsolvable._exits import ExitedAtLoad, exit_refused
from unsolvable._interrupts import SignalArrivals
from unsolvable._redact import Redactor
from unsolvable._remote import A2A_PREFIX, ACP_PREFIX, EXEC_PREFIX
from unsolvable._text import slug
from unsolvable._warnings_state import keep_imported_warnings
from unsolvable.adapters.base import Adapter, NamedAdapter, PlainAdapter, as_adapter, own_name

__all__ = [
    "BUILTIN_MODULE",
    "LOAD_SECONDS",
    "AgentLike",
    "adapter_for",
    "agent_name",
    "imported_as",
    "load_agent",
    "load_agents",
    "split_spec",
]

AgentLike = str | Adapter | Callable[..., Any]
"""What names an agent: a spec string, a callable ``agent(session)`` or an `Adapter`."""
BUILTIN_MODULE = "unsolvable.agents"
"""``unsolvable.agents:contract`` is the built-in ``contract`` under its path (`agent_name`)."""
NAMED = re.compile(r"([A-Za-z0-9][A-Za-z0-9_.-]{0,63})=(.+)", re.DOTALL)
"""``NAME=SPEC``: a name of letters, digits, ``_``, ``.`` and ``-`` (at most 64), as a folder and
a test id can hold it. No spec begins so: a module path holds no ``=``, and an ``exec:``
command's ``:`` comes before any ``=`` it has."""
LOAD_SECONDS = 300.0
"""How long loading an agent may take (importing its module, its adapter's preflight), in the
harness's own process and in each worker: a heavy framework's import on a loaded machine takes
seconds, never minutes, so only a load that hangs reaches it."""


def split_spec(text: str) -> tuple[str | None, str]:
    """``NAME=SPEC`` as its name and spec; any other spec with no name."""
    named = NAMED.fullmatch(text)
    return (named[1], named[2]) if named else (None, text)


def imported_as(spec: str) -> str:
    """The module loading ``spec`` (or a registered name) imports, under which what its import
    set up is kept (`unsolvable._warnings_state`): two agents of one module are one import,
    made for the first. A command (``exec:``, ``acp:``) imports nothing here, and is its own."""
    _, spec = split_spec(spec)
    if spec.startswith((EXEC_PREFIX, ACP_PREFIX)):
        return spec
    from unsolvable.adapters.registry import registered

    return registered().get(spec, spec).partition(":")[0]


def agent_name(name: str) -> str:
    """One form for one agent: ``unsolvable.agents:contract`` and ``contract`` are the same agent.
    Runs label the built-ins by their own names; records and baselines written before that did
    label them by their path, and still gate and are gated as the same agent."""
    from unsolvable.agents import BUILTIN

    module, _, attribute = name.partition(":")
    return attribute if module == BUILTIN_MODULE and attribute in BUILTIN else name


@functools.cache
def load_agent(spec: str, *, isolate_network: bool = False) -> Adapter:
    """``naive``, ``contract``, ``package.module:attribute`` (a callable or an `Adapter`),
    ``exec:COMMAND ARGS…``, a process in any language (`unsolvable.adapters.process`), or
    ``acp:COMMAND ARGS…``, an Agent Client Protocol agent (`unsolvable.adapters.acp`); both of the
    last run with loopback only under ``isolate_network`` (other specs are left as they are).
    Each may be given a name, ``NAME=SPEC``, which labels its runs (`split_spec`). The label is
    redacted (`Redactor`): an ``exec:`` command line that hands the agent a key is its label,
    and every form and folder a run writes carries its label.

    An attribute that is a class or a factory is *not* called: name the agent object itself.
    """
    name, spec = split_spec(spec)
    with _redacted_errors():
        adapter = _load(spec, isolate_network=isolate_network)
    keep_imported_warnings(imported_as(spec))
    label = Redactor().text(str(adapter.name) if name is None else name)
    if label == adapter.name:
        return adapter
    return NamedAdapter(adapter, name=label)


def load_agents(specs: Sequence[str], *, flag: str, isolate_network: bool = False) -> list[Adapter]:
    """Each of ``specs`` loaded (`load_agent`) in the harness's own process before any run, as
    the faces do to check them, and no two sharing a label (`_check_labels`; ``flag`` is the
    face's own option for an agent): a load that outlasts `LOAD_SECONDS` (a module that connects
    at import to what never answers) is an `AdapterError` naming it, not a command that hangs, and
    so is one that raises what derives from `BaseException` alone (``pytest.importorskip``), which
    `load_agent` lets through, so that in a test it ends the test as pytest means it to; and so is
    one that calls ``os._exit`` (`unsolvable._exits`), which would end this process with its
    status, 0 reading as a clean run, and one that raises `KeyboardInterrupt` itself; a signal
    that arrives meanwhile (Ctrl-C, a CI service's SIGTERM) ends the session as it would."""
    adapters = []
    for spec in specs:
        interrupts = SignalArrivals()
        try:
            with interrupts, _within_load_allowance(), _silenced(), exit_refused():
                adapters.append(load_agent(spec, isolate_network=isolate_network))
        except _LoadHung:
            with _redacted_errors():
                raise AdapterError(
                    f"agent {spec!r} was not loaded within {LOAD_SECONDS:g} s: importing its "
                    "module or its adapter's preflight waits on something that does not answer "
                    "(a connection made at import?); move that work into the agent, or give it "
                    "a timeout"
                ) from None
        except ExitedAtLoad as exited:
            with _redacted_errors():
                raise AdapterError(
                    f"agent {spec!r}: loading it called os._exit({exited.status}), which would "
                    "have ended this command there with that status, as if it had run; its module "
                    "must not end the process as it is imported (move that into the agent, or "
                    "under if __name__ == '__main__':)"
                ) from None
        except AdapterError:
            raise
        except BaseException as error:  # pytest's skip, a cancellation: no face would catch it
            if isinstance(error, KeyboardInterrupt) and interrupts.arrived:
                raise  # a person's Ctrl-C, or a CI service's SIGTERM: the session ends
            with _redacted_errors():
                raise AdapterError(
                    f"agent {spec!r}: loading it raised {type(error).__name__}: {error}; its "
                    "module must import without side effects that fail (move them into the agent)"
                ) from error
    with _redacted_errors():
        _check_labels(specs, adapters, flag=flag)
    return adapters


@contextlib.contextmanager
def _redacted_errors() -> Iterator[None]:
    """An `AdapterError` raised within it again with its secrets redacted (`Redactor`): the faces
    print it to a CI log, and it may quote an ``exec:`` command line that hands the agent a key,
    or what an agent's module raised on import naming its key. One with no secret is left as it
    is, with the error it came from."""
    try:
        yield
    except AdapterError as error:
        message = Redactor().text(str(error))
        if message == str(error):
            raise
        raise AdapterError(message) from None


@contextlib.contextmanager
def _silenced() -> Iterator[None]:
    """What an agent's module prints as it is loaded here, through Python or past it, goes to
    ``/dev/null``, as it does in a worker (`unsolvable._worker`): it is the agent's own output,
    which may name its key, and this process's stdout is the table. The warnings the load gives
    (an adapter's about its configuration) are shown after it, redacted. A stream that is
    closed has nothing to protect."""
    _flush()
    saved = {}
    for descriptor in (1, 2):
        with contextlib.suppress(OSError):
            saved[descriptor] = os.dup(descriptor)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        with warnings.catch_warnings(record=True) as given:
            for descriptor in saved:
                os.dup2(null, descriptor)
            yield
    finally:
        _flush()  # what the module left in Python's buffers goes where it was written
        for descriptor, copy in saved.items():
            os.dup2(copy, descriptor)
            os.close(copy)
        os.close(null)
    for warning in given:
        text = Redactor().text(str(warning.message))
        warnings.warn_explicit(text, warning.category, warning.filename, warning.lineno)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # replaced by the module, or closed
            stream.flush()


class _LoadHung(BaseException):
    """Raised into a load that outlasted `LOAD_SECONDS`: a `BaseException`, as an interruption
    is, so that the module's own ``except Exception`` around what hangs does not swallow it."""


@contextlib.contextmanager
def _within_load_allowance() -> Iterator[None]:
    """Interrupts what runs within it with `_LoadHung` after `LOAD_SECONDS`, by an alarm: the
    import must stay on the main thread (a framework may install signal handlers as it is
    imported), where only a signal reaches code that waits. Off the main thread, or with a
    timer already set (pytest-timeout's), it runs unguarded: that timer is its owner's."""
    if (
        threading.current_thread() is not threading.main_thread()
        or not hasattr(signal, "setitimer")
        or signal.getitimer(signal.ITIMER_REAL)[0]
    ):
        yield
        return

    def hung(signum: int, frame: FrameType | None) -> None:
        raise _LoadHung

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, LOAD_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _check_labels(specs: Sequence[str], adapters: Sequence[Adapter], *, flag: str) -> None:
    """Two agents of one run (``specs``, loaded as ``adapters``) never share a label: their
    records, metrics, snapshots and baseline groups would merge into one agent's. An
    `AdapterError` names both and how to name them apart with ``flag``; the same agent given
    twice is refused too, as its runs would be twins."""
    # The spec that has each label, by the folder name the label becomes: two labels that
    # differ only in characters a folder cannot hold would share a snapshot folder.
    seen: dict[str, str] = {}
    for index, (spec, adapter) in enumerate(zip(specs, adapters, strict=True)):
        if spec in specs[:index]:
            raise AdapterError(f"agent {spec!r} is given twice; give it once")
        label = adapter.name
        other = seen.setdefault(slug(label), spec)
        if other == spec:
            continue
        raise AdapterError(
            f"agents {other!r} and {spec!r} would both be labelled {label!r}, and their "
            "runs counted as one agent's; name each with NAME=SPEC (e.g. "
            f"{flag} {_example(other, 'first')} {flag} {_example(spec, 'second')}), or "
            "give the agent or adapter a name of its own (name=...)"
        )


def _example(spec: str, name: str) -> str:
    """``spec`` under ``name``, quoted for a shell if it needs it."""
    import shlex

    return shlex.quote(f"{name}={split_spec(spec)[1]}")


def _load(spec: str, *, isolate_network: bool) -> Adapter:
    from unsolvable.adapters.acp import AcpAdapter
    from unsolvable.adapters.process import ProcessAdapter
    from unsolvable.agents import BUILTIN

    if spec.startswith(EXEC_PREFIX):
        process = ProcessAdapter.from_spec(spec, isolate_network=isolate_network)
        process.preflight()
        return process
    if spec.startswith(ACP_PREFIX):
        adapter = AcpAdapter.from_spec(spec, isolate_network=isolate_network)
        adapter.preflight()
        return adapter
    if spec.startswith(A2A_PREFIX):
        raise AdapterError(
            f"agent {spec!r}: an A2A agent has no spec of its own ({A2A_PREFIX} only labels its "
            "runs); in a module, write agent = A2AAdapter([...]) with its server's command "
            "(from unsolvable.adapters.a2a), and give --agent module:attribute. See "
            f"{docs_page('processes', 'agents-served-over-a2a')}"
        )
    if spec in BUILTIN:
        return as_adapter(BUILTIN[spec])  # type: ignore[arg-type]
    from unsolvable.adapters.registry import registered  # names installed packages register

    names = registered()
    given, spec = spec, names.get(spec, spec)
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        known = sorted({*BUILTIN, *names})
        raise AdapterError(
            f"agent {spec!r} is neither a registered name ({', '.join(known)}) nor a "
            f"'module:attribute' path; {_spec_hint(spec, known)}"
        )
    module = _import(spec, module_name, registered_as=given if given in names else None)
    target: object = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AdapterError(
                f"agent {spec!r}: {module_name!r} has no attribute {attribute!r}; check its "
                "spelling, and that the module defines it when imported"
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
    return PlainAdapter(target, name=own_name(target) or spec)


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


def _spec_hint(spec: str, known: Sequence[str]) -> str:
    """How to write ``spec``, which is no spec: a file's path (``myagent.py``, what a newcomer
    tries first) as its module beside the agent it defines, a near miss of a name as that name."""
    if spec.endswith(".py"):
        module = Path(spec).stem
        return (
            f"a file is named by its module and the agent it defines, e.g. {module}:my_agent, "
            f"run from the folder that holds {Path(spec).name} (a spec imports from there first)"
        )
    close = difflib.get_close_matches(spec, known, n=1)
    return f"did you mean {close[0]}?" if close else "write it as e.g. mypkg.agents:my_agent"


def _import(spec: str, module_name: str, *, registered_as: str | None = None) -> ModuleType:
    """Imports the agent's module from the current directory first, as uvicorn, gunicorn and
    celery do: ``unsolvable run --agent myagent:agent`` beside ``myagent.py`` just works, also
    from the console script, whose ``sys.path`` does not hold the current directory.

    Whatever the import raises is a usage error naming it, not a traceback per run; for a
    registered name (``registered_as``), the name given, whose spelling is right: what its
    module lacks is a package, which its own error names (a framework's extra)."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        return importlib.import_module(module_name)
    except ImportError as error:
        if registered_as is not None:
            raise AdapterError(
                f"agent {registered_as!r} (registered as {spec!r}) cannot be loaded: {error}"
            ) from error
        raise AdapterError(
            f"agent {spec!r}: module {module_name!r} cannot be imported ({error}); "
            "check the spelling and that it is installed, on sys.path or in the current directory"
        ) from error
    except SyntaxError as error:
        raise AdapterError(
            f"agent {spec!r}: module {module_name!r} has a syntax error at "
            f"{error.filename}:{error.lineno}: {error.msg}; fix it and run again"
        ) from None
    except (Exception, SystemExit) as error:  # a module that parses arguments or exits on import
        raise AdapterError(
            f"agent {spec!r}: importing {module_name!r} raised {type(error).__name__}: {error}; "
            "the module must import without side effects that fail (move them into the agent)"
        ) from error


def _class_message(spec: str, target: type) -> str:
    """An agent is an object: a class would be called with the session as its argument. The
    message names no flag, since every face (a command-line flag, a pytest option, an ini key,
    the marker, `unsolvable.run`) takes the same spec."""
    module = spec.partition(":")[0]
    kind = "an Adapter class" if _has_adapter_methods(target) else "a class"
    return (
        f"agent {spec!r} is {kind} ({target.__qualname__}), not an agent object; instantiate it "
        f"in {module!r}: `adapter = {target.__qualname__}()`, then name that object as the "
        f"agent: {module}:adapter"
    )


def _has_adapter_methods(target: type) -> bool:
    return callable(getattr(target, "run", None)) and callable(getattr(target, "interpret", None))
