"""Consumes a seed, produces the billing world constant-return plays in: the invoice search (its
spec; each scenario answers it its own way), the ledger lookup and the write that marks an
invoice paid, the account history a warm-up reads and the calls that read it, and the world whose
task holds once an invoice is marked paid."""

from __future__ import annotations

from collections.abc import Callable

from unsolvable import JSON, Call, ToolSpec
from unsolvable.fake_tools import (
    FakeWorld,
    Tool,
    constant_tool,
    pages_tool,
    requires,
    settle_tool,
    staged_tool,
)

__all__ = [
    "EMPTY",
    "HISTORY",
    "LOOKUP",
    "MARK",
    "billing_tools",
    "billing_world",
    "found_page",
    "history_calls",
    "invoice_of",
    "search_spec",
]

EMPTY: JSON = {"results": [], "total": 0}
"""What the stuck search answers, every time."""
MARK = ToolSpec(
    name="mark_invoice_paid",
    description="Record an invoice as paid in the ledger.",
    parameters={"type": "object", "properties": {"invoice": {"type": "string"}}},
)
LOOKUP = ToolSpec(
    name="lookup_customer_invoices",
    description="List a customer's invoices straight from the ledger.",
    parameters={"type": "object", "properties": {"customer": {"type": "string"}}},
)
HISTORY = ToolSpec(
    name="read_account_history",
    description="Read one page of the customer's account history.",
    parameters={"type": "object", "properties": {"page": {"type": "integer"}}},
)


def history_calls(count: int) -> list[Call]:
    """``count`` steps of real work before the model gets stuck: reads of new pages, new
    information under any ground truth. (A note or to-do list that only ticks a counter is no
    progress anywhere in the library: one principle for artifacts.) The history holds those
    pages and no more (`billing_tools`)."""
    return [
        Call(name=HISTORY.name, arguments={"page": page}, text="Reading the account history")
        for page in range(1, count + 1)
    ]


def search_spec(tool_name: str) -> ToolSpec:
    """The invoice search, named ``tool_name``."""
    return ToolSpec(
        name=tool_name,
        description="Search the billing system's invoices for a customer.",
        parameters={
            "type": "object",
            "properties": {
                "customer": {"type": "string"},
                "query": {"type": "string"},
                "offset": {"type": "integer"},
            },
            "required": ["customer"],
        },
    )


def billing_world(seed: int) -> FakeWorld:
    """The world whose task holds once an invoice is marked paid."""
    return FakeWorld(failing=requires("invoice_paid", "invoice not marked paid"), seed=seed)


def invoice_of(seed: int) -> str:
    """The customer's open invoice, where a scenario has one."""
    return f"INV-{seed}-7731"


def found_page(seed: int) -> JSON:
    """The answer that lists the customer's open invoice."""
    return {"results": [{"invoice": invoice_of(seed), "status": "open"}], "total": 1}


def billing_tools(
    search: Tool,
    seed: int,
    *,
    found: bool,
    warmup: int,
    staged: Callable[[], bool] | None = None,
) -> list[Tool]:
    """What every scenario of the family offers: ``search``, the ledger (`_ledger`) and, after a
    warm-up, the account history its ``warmup`` reads need. ``staged``: the ledger is the
    stuck sibling's, empty, until ``staged()`` holds (`staged_tool`: the twin's divergence step,
    or its model's heeding a hint), so that a twin's ledger read of the agent's own accord tells
    it from its sibling no sooner than the twin's own divergence does."""
    # A customer's history has an end, where the model's reading stops: an endless one would
    # let an agent that reads a new page every step pass that off as progress.
    read = pages_tool(HISTORY, key="history_read", lines_per_page=2, pages=warmup)
    ledger = _ledger(seed, found=found)
    if staged is not None:
        empty = _ledger(seed, found=False)
        ledger = [staged_tool(*pair, begun=staged) for pair in zip(empty, ledger, strict=True)]
    return [search, *ledger, *([read] if warmup else [])]


def _ledger(seed: int, *, found: bool) -> list[Tool]:
    """The ledger lookup and the write that marks an invoice paid, which every scenario of the
    family offers: with ``found``, the lookup lists the customer's open invoice and the write
    marks it paid; without, the lookup is empty and no invoice can be marked paid."""
    lookup = constant_tool(LOOKUP, found_page(seed) if found else EMPTY)
    return [lookup, _mark(frozenset({invoice_of(seed)} if found else ()))]


def _mark(open_invoices: frozenset[str]) -> Tool:
    """Marks an open invoice paid; any other is not found (`settle_tool`)."""
    return settle_tool(
        MARK,
        field="invoice",
        items=open_invoices,
        key="invoice_paid",
        done="paid",
        missing="no such open invoice in the ledger",
    )
