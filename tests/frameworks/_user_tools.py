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

    def upload_report(report_id: str) -> str:
        """Upload a report from the team's own workspace.

        Args:
            report_id: The report.
        """
        return call("upload_report", report_id=report_id)

    def lookup_customer_invoices(customer: str) -> str:
        """List a customer's invoices.

        Args:
            customer: The customer.
        """
        return call("lookup_customer_invoices", customer=customer)

    def mark_invoice_paid(invoice: str) -> str:
        """Mark an invoice paid.

        Args:
            invoice: The invoice.
        """
        return call("mark_invoice_paid", invoice=invoice)

    def check_completion() -> str:
        """Check whether the task is complete."""
        return call("check_completion")

    offered = {spec.name for spec in session.tools}
    functions = [
        search_invoices,
        lookup_customer_invoices,
        mark_invoice_paid,
        publish_report,
        upload_report,
        check_completion,
    ]
    return [f for f in functions if f.__name__ in offered]
