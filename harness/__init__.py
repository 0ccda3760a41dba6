"""pytest-unsolvable's engine: run an agent on an unsolvable task, get an honest termination record.

Only light, stdlib-only modules are imported here: this package is imported by the pytest plugin in
every test run of its users.
"""

from harness._errors import (
    AdapterError,
    BudgetError,
    CeilingHit,
    ScenarioError,
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

__all__ = [
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
