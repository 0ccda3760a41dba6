"""The library's tools written the way a user writes them — typed Python functions — to be
decorated by each framework's own tool decorator in conformance tests. Each calls the session."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from unsolvable import Session


def user_tools(session: Session) -> list[Callable[..., str]]:
    """The tools of ``constant-return/*`` and ``missing-permission/*``, the ones the session
    offers, as plain functions."""

    def call(name: str, **arguments: Any) -> str:
        return session.call_tool(name, {k: v for k, v in arguments.items() if v is not None})

    def search_invoices(customer: str, query: str | None = None, offset: int | None = None) -> str:
        """Search a customer's invoices.

        Args:
            customer: The customer.
            query: What to look for.
            offset: Where to start.
        """
        return call("search_invoices", customer=customer, query=query, offset=offset)

    def publish_report(report_id: str) -> str:
        """Publish a report.

        Args:
            report_id: The report.
        """
        return call("publish_report", report_id=report_id)

    def check_completion() -> str:
        """Check whether the task is complete."""
        return call("check_completion")

    offered = {spec.name for spec in session.tools}
    functions = [search_invoices, publish_report, check_completion]
    return [f for f in functions if f.__name__ in offered]
