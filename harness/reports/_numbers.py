"""Consumes a measured number, produces how every report writes it: plainly, never in exponent
notation (``1103124``, not ``1.10312e+06``)."""

from __future__ import annotations

from decimal import Decimal

__all__ = ["plain"]


def plain(value: float) -> str:
    """``value`` in positional notation: a whole number as an integer, any other as the
    shortest decimal that reads back as the same number, never rounded further. Each figure is
    rounded once where it is measured (rates to four digits, dollars to the millionth), so a
    digit cut here is one the gate compared: at six significant digits, $1.057644 → $1.057645
    printed as 1.05764 → 1.05764."""
    if float(value).is_integer():
        return str(int(value))
    return format(Decimal(repr(float(value))), "f")
