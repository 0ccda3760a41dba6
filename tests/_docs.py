"""The documentation as the tests read it: the README and every page of the site under
``docs/``. Examples are found wherever they live, so a section can move to another page without
its tests following it, and each one runs at its own file and line, so a traceback points there."""

from __future__ import annotations

from pathlib import Path
from types import CodeType

__all__ = ["DOCS", "ROOT", "TEXTS", "compiled", "marked", "placed"]

ROOT = Path(__file__).parents[1]
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
"""The README first, then the site's pages in a fixed order."""
TEXTS = {page: page.read_text(encoding="utf-8") for page in PAGES}
DOCS = "\n".join(TEXTS.values())
"""Every page, one after the other."""


def marked(name: str) -> str:
    """The text between ``<!-- name:start -->`` and ``<!-- name:end -->``: every such region of
    every page, in page order (a section may be split between the README and a page)."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    regions = [
        text[text.index(start) + len(start) : text.index(end)]
        for text in TEXTS.values()
        if start in text
    ]
    assert regions, f"no page marks {name!r}"
    return "\n".join(regions)


def placed(block: str) -> tuple[str, str]:
    """The page that holds ``block`` (relative to the repository) and the block preceded by as
    many empty lines as come before it there: compiled so, it runs at its own lines."""
    (page,) = [page for page, text in TEXTS.items() if block in text]
    before = TEXTS[page][: TEXTS[page].index(block)].count("\n")
    return str(page.relative_to(ROOT)), "\n" * before + block


def compiled(block: str) -> CodeType:
    """``block`` compiled at its own page and lines (`placed`), ready to ``exec``."""
    page, code = placed(block)
    return compile(code, page, "exec")
