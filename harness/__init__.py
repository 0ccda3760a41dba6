"""pytest-unsolvable's engine: run an agent on an unsolvable task, get an honest termination record.

Names load on first use (PEP 562): the pytest plugin imports this package in every test run of
its users, and one that uses none of its features should pay for none of it (issue 14).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness._errors import (
        AdapterError,
        BudgetError,
        CeilingHit,
        ScenarioError,
        SessionClosed,
        UnsolvableError,
    )
    from harness._model import Model, ScriptedModel, Usage
    from harness._record import (
        SCHEMA_VERSION,
        Code,
        Ending,
        Exit,
        Failure,
        Observed,
        Outcome,
        Rule,
        Stop,
        TerminationRecord,
        ToolTrace,
        TraceStep,
        Verdict,
    )
    from harness._run import run
    from harness._scenario import Budget, Ceilings, Pricing, Scenario, Setup, Stagnation
    from harness._scripts import (
        Alternate,
        Call,
        Claim,
        ClaimSuccess,
        Cycle,
        FanOut,
        GiveUp,
        Perturbed,
        Repeat,
        Script,
        Steps,
        TodoSpawn,
        Until,
    )
    from harness._session import Session
    from harness._types import (
        CHECK_TOOL,
        DELEGATE_TOOL,
        GIVE_UP_TOOL,
        JSON,
        CriteriaWorld,
        ModelRequest,
        ModelResponse,
        ToolCall,
        ToolResult,
        ToolSpec,
        World,
    )
    from harness._verdict import judge
    from harness.adapters.base import Adapter

_HOMES = {
    "Adapter": "harness.adapters.base",
    "AdapterError": "harness._errors",
    "Alternate": "harness._scripts",
    "Budget": "harness._scenario",
    "BudgetError": "harness._errors",
    "CHECK_TOOL": "harness._types",
    "Call": "harness._scripts",
    "CeilingHit": "harness._errors",
    "Ceilings": "harness._scenario",
    "Claim": "harness._scripts",
    "ClaimSuccess": "harness._scripts",
    "Code": "harness._record",
    "CriteriaWorld": "harness._types",
    "Cycle": "harness._scripts",
    "DELEGATE_TOOL": "harness._types",
    "Ending": "harness._record",
    "Exit": "harness._record",
    "Failure": "harness._record",
    "FanOut": "harness._scripts",
    "GIVE_UP_TOOL": "harness._types",
    "GiveUp": "harness._scripts",
    "JSON": "harness._types",
    "Model": "harness._model",
    "ModelRequest": "harness._types",
    "ModelResponse": "harness._types",
    "Observed": "harness._record",
    "Outcome": "harness._record",
    "Perturbed": "harness._scripts",
    "Pricing": "harness._scenario",
    "Repeat": "harness._scripts",
    "Rule": "harness._record",
    "SCHEMA_VERSION": "harness._record",
    "Scenario": "harness._scenario",
    "ScenarioError": "harness._errors",
    "Script": "harness._scripts",
    "ScriptedModel": "harness._model",
    "Session": "harness._session",
    "SessionClosed": "harness._errors",
    "Setup": "harness._scenario",
    "Stagnation": "harness._scenario",
    "Steps": "harness._scripts",
    "Stop": "harness._record",
    "TerminationRecord": "harness._record",
    "TodoSpawn": "harness._scripts",
    "ToolCall": "harness._types",
    "ToolResult": "harness._types",
    "ToolSpec": "harness._types",
    "ToolTrace": "harness._record",
    "TraceStep": "harness._record",
    "UnsolvableError": "harness._errors",
    "Until": "harness._scripts",
    "Usage": "harness._model",
    "Verdict": "harness._record",
    "World": "harness._types",
    "judge": "harness._verdict",
    "run": "harness._run",
}

__all__ = [
    "CHECK_TOOL",
    "DELEGATE_TOOL",
    "GIVE_UP_TOOL",
    "JSON",
    "SCHEMA_VERSION",
    "Adapter",
    "AdapterError",
    "Alternate",
    "Budget",
    "BudgetError",
    "Call",
    "CeilingHit",
    "Ceilings",
    "Claim",
    "ClaimSuccess",
    "Code",
    "CriteriaWorld",
    "Cycle",
    "Ending",
    "Exit",
    "Failure",
    "FanOut",
    "GiveUp",
    "Model",
    "ModelRequest",
    "ModelResponse",
    "Observed",
    "Outcome",
    "Perturbed",
    "Pricing",
    "Repeat",
    "Rule",
    "Scenario",
    "ScenarioError",
    "Script",
    "ScriptedModel",
    "Session",
    "SessionClosed",
    "Setup",
    "Stagnation",
    "Steps",
    "Stop",
    "TerminationRecord",
    "TodoSpawn",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "ToolTrace",
    "TraceStep",
    "UnsolvableError",
    "Until",
    "Usage",
    "Verdict",
    "World",
    "judge",
    "run",
]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
        globals()[name] = value  # once: later lookups are plain attribute reads
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
