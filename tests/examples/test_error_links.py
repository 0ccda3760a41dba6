"""Every page and section an error message points a user at is one the documentation has: a
heading renamed or a page split leaves no message linking to an anchor that is gone. (The
pages' own links are checked by the site's strict build; the package's messages are not.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests._docs import ROOT, TEXTS

SOURCES = sorted(
    path
    for folder in ("harness", "scenarios", "fake_tools")
    for path in (ROOT / folder).rglob("*.py")
)
LINK = re.compile(r"docs/([\w-]+)\.md(?:#([\w-]+))?")
"""A page named in a message's text, with its section."""


def _slug(heading: str) -> str:
    """The anchor MyST gives a heading (``myst_heading_anchors``), as GitHub spells it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: str) -> set[str]:
    text = TEXTS[ROOT / "docs" / f"{page}.md"]
    return {_slug(line.lstrip("#")) for line in text.splitlines() if re.match(r"#{1,6} ", line)}


def _links() -> list[tuple[str, str, str]]:
    """Each (source file, page, section) the package's code points at: a ``docs_page`` call with
    literal arguments, or a ``docs/<page>.md#<section>`` written in a string."""
    found = []
    for path in SOURCES:
        where = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "docs_page"
            ):
                literal = [arg.value for arg in node.args if isinstance(arg, ast.Constant)]
                if len(literal) == len(node.args):
                    found.append((where, str(literal[0]), str(literal[1]) if node.args[1:] else ""))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                found += [(where, page, section) for page, section in LINK.findall(node.value)]
    return found


LINKS = _links()


def test_the_code_points_at_pages_and_sections() -> None:
    assert any(section for _, _, section in LINKS) and any(not s for _, _, s in LINKS)


@pytest.mark.parametrize(("source", "page", "section"), LINKS)
def test_each_page_and_section_pointed_at_exists(source: str, page: str, section: str) -> None:
    assert Path(ROOT / "docs" / f"{page}.md") in TEXTS, f"{source} points at docs/{page}.md"
    assert not section or section in _anchors(page), (
        f"{source} points at docs/{page}.md#{section}, which no heading of that page makes"
    )
