"""The scenarios page's two tables name the library as it is: every unsolvable family has its
row, every solvable twin its row (or its place among the ambiguous ones), and nothing is shown
that the library does not have, so a family or twin added to the library cannot go unlisted."""

from __future__ import annotations

import re

from tests._docs import ROOT, TEXTS
from unsolvable import scenarios

PAGE = TEXTS[ROOT / "docs" / "scenarios.md"]
TWINS = PAGE.partition("| twin | what the model does |")[2].partition("\n\n")[0]
FAMILIES = PAGE.partition("| family | what the model does | expected |")[2].partition("\n\n")[0]
AMBIGUOUS = PAGE.partition("*Ambiguous* twins (")[2].partition(")")[0]


def _first_cells(table: str) -> set[str]:
    return set(re.findall(r"^\| `([^`]+)` \|", table, re.M))


def test_every_unsolvable_family_has_its_row() -> None:
    unsolvable = {s.family for s in scenarios.SCENARIOS if not s.solvable or s.twin_of}
    assert _first_cells(FAMILIES) == unsolvable


def test_every_twin_has_its_row_or_is_named_ambiguous() -> None:
    twins = {s.name for s in scenarios.SCENARIOS if s.twin_of}
    ambiguous = set(re.findall(r"`([^`]+)`", AMBIGUOUS))
    assert ambiguous and ambiguous <= twins
    assert _first_cells(TWINS) == twins - ambiguous
