"""Numbers in reports are written plainly: whole numbers exactly, fractions without exponents
and with every digit they were measured to."""

from __future__ import annotations

import pytest

from unsolvable._numbers import counted, dollars, plain, rounded
from unsolvable.reports._cells import distribution
from unsolvable.reports._distribution import Distribution


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1103124, "1103124"),
        (1103124.0, "1103124"),
        (-41636, "-41636"),
        (0, "0"),
        (0.0869565217, "0.0869565217"),
        (1.057645, "1.057645"),
        (0.05, "0.05"),
        (0.00001, "0.00001"),
        (2.5, "2.5"),
    ],
)
def test_plain_never_writes_an_exponent(value: float, text: str) -> None:
    assert plain(value) == text


def test_a_large_lag_in_tokens_is_written_whole_in_the_metrics() -> None:
    spread = Distribution(count=3, p50=1103124, p95=2206248, max=30000000)
    assert distribution(spread) == "1103124/2206248/30000000"


@pytest.mark.parametrize(
    ("count", "text"), [(0, "0 runs"), (1, "1 run"), (2, "2 runs"), (-1, "-1 runs")]
)
def test_a_count_of_one_takes_the_singular(count: int, text: str) -> None:
    assert counted(count, "run") == text


@pytest.mark.parametrize(
    ("value", "digits", "marks", "kept"),
    [
        (0.00004, 4, (0.0, 1.0), 0.0001),
        (-0.00004, 4, (0.0, 1.0), -0.0001),
        (0.99996, 4, (0.0, 1.0), 0.9999),
        (1.00004, 4, (0.0, 1.0), 1.0001),
        (1.0, 4, (0.0, 1.0), 1.0),
        (0.0, 4, (0.0, 1.0), 0.0),
        (0.33333, 4, (0.0, 1.0), 0.3333),
        (0.9999996, 6, (0.0,), 1.0),
    ],
)
def test_a_rounded_figure_lands_on_a_mark_only_when_it_is_that_mark(
    value: float, digits: int, marks: tuple[float, ...], kept: float
) -> None:
    """Each side of 0 and 1 keeps its side; a value that is not near a mark (or a dollar figure,
    for which 1 is no mark) rounds as ``round`` does."""
    assert rounded(value, digits, marks) == kept


@pytest.mark.parametrize(
    ("value", "text"), [(-0.115626, "-$0.115626"), (0.000044, "$0.000044"), (-0.0, "$0")]
)
def test_a_negative_dollar_figure_is_signed_before_the_dollar_sign(value: float, text: str) -> None:
    """A premature stop's lag in dollars read ``$-0.115626``."""
    assert dollars(value) == text
