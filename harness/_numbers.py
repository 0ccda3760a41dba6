"""Consumes a measured number, produces how every report and verdict writes it: plainly, never in
exponent notation (``1103124``, not ``1.10312e+06``), never rounded past what was measured
(``$0.000044``, not ``$0.0000``), and a count with its noun in the number it takes (``1 run``,
``2 runs``)."""

from __future__ import annotations

import math
from decimal import Decimal

__all__ = ["MARKS", "counted", "dollars", "plain", "rounded", "written"]

MARKS = (0.0, 1.0)
"""The values a share or a ratio to a bound means something at: none, all, the bound itself."""


def plain(value: float) -> str:
    """``value`` in positional notation: a whole number as an integer, any other as the
    shortest decimal that reads back as the same number, never rounded further. Each figure is
    rounded once where it is measured (rates to four digits, dollars to the millionth), so a
    digit cut here is one the gate compared: at six significant digits, $1.057644 → $1.057645
    printed as 1.05764 → 1.05764."""
    if float(value).is_integer():
        return str(int(value))
    return format(written(float(value)), "f")


def written(value: float) -> Decimal:
    """``value`` as it is written (its shortest decimal that reads back as the same number),
    exactly: figures added or compared so agree with what a reader adds from the printed
    ones, where in binary 0.006264 + 0.0012 falls short of 0.007464 and 0.1 + 0.2 passes
    0.3."""
    return Decimal(repr(value))


def rounded(value: float, digits: int, marks: tuple[float, ...] = MARKS) -> float:
    """``value`` to ``digits``, except that it lands on one of ``marks`` only when it is that
    mark: otherwise it is the nearest figure of ``digits`` on its own side (1 false stop in
    20,001 controls is ``0.0001``, never ``0.0``; 100,001 steps of N=100,000 are ``1.0001``,
    never ``1.0``, a stop at the bound)."""
    near = round(value, digits)
    for mark in marks:
        if near == mark and value != mark:
            return round(mark + math.copysign(10**-digits, value - mark), digits)
    return near


def dollars(value: float) -> str:
    """``value`` dollars, as `plain` writes the figure: to the millionth a record keeps, so a
    lag or an overshoot of a few millionths does not read as none; a negative figure (the lag of
    a premature stop) signed before the dollar sign, as money is written: ``-$0.115626``."""
    sign = "-" if value < 0 else ""
    return f"{sign}${plain(abs(value))}"


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, the noun plural (an ``s`` added) unless the count is one: the
    report's nouns (run, record, group, step, scenario) are all regular."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
