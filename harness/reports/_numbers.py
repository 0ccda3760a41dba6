"""Consumes a measured number, produces how every report writes it: plainly, never in exponent
notation (``1103124``, not ``1.10312e+06``)."""

from __future__ import annotations

from decimal import Decimal

__all__ = ["plain"]

SIGNIFICANT = 6
"""Significant digits kept of a fraction (a rate, dollars), as ``:g`` keeps them; a whole
number is written whole, since token counts and step lags are exact."""


def plain(value: float) -> str:
    """``value`` in positional notation: a whole number as an integer, any other with at most
    `SIGNIFICANT` significant digits and no trailing zeros."""
    if float(value).is_integer():
        return str(int(value))
    return format(Decimal(f"{value:.{SIGNIFICANT}g}"), "f")
