"""The adapter kit: everything an adapter author needs to put a framework under test, from one
import — the seam (`Adapter`, `as_adapter`, `interpret_plain`, `PlainAdapter`) and the helpers
the built-ins share. Cheap: importing it imports no framework, no HTTP library, no
`unsolvable.wire`.
"""

from unsolvable._stop import Code, Stop
from unsolvable.adapters.base import Adapter, PlainAdapter, as_adapter, interpret_plain
from unsolvable.adapters.kit import (
    BUDGET,
    PARTIAL_TAIL,
    Budgeted,
    ToolCaller,
    as_mapping,
    bind_tool,
    missing_extra,
    partial_from_messages,
    reply_to_calls,
    reply_usage,
    text_of,
)

__all__ = [
    "BUDGET",
    "PARTIAL_TAIL",
    "Adapter",
    "Budgeted",
    "Code",
    "PlainAdapter",
    "Stop",
    "ToolCaller",
    "as_adapter",
    "as_mapping",
    "bind_tool",
    "interpret_plain",
    "missing_extra",
    "partial_from_messages",
    "reply_to_calls",
    "reply_usage",
    "text_of",
]
