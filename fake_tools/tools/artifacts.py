"""Consumes writes of artifacts, produces a world that grows: sections that finish a document,
to-do lists that finish nothing, log pages that never end."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from unsolvable import JSON, ToolResult, ToolSpec
from unsolvable._dispatch import BAD_ARGUMENTS_STATUS
from unsolvable.fake_tools._router import Tool, error_result
from unsolvable.fake_tools._world import FakeWorld
from unsolvable.fake_tools.tools._respond import respond

__all__ = ["LOG_LINE_WORDS", "Found", "append_tool", "pages_tool", "sections_tool"]


def sections_tool(spec: ToolSpec, *, key: str, total: int) -> Tool:
    """Stores section ``number`` of a ``total``-section document and says what is still missing.
    The world judges the document by which of its sections are written, as its checks do: a
    section rewritten, or one numbered outside the document, is no new state."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        sections = dict(world.get(key, {}))
        number = str(arguments.get("number", ""))
        sections[number] = str(arguments.get("text", ""))
        missing = [n for n in range(1, total + 1) if str(n) not in sections]
        world.put(key, sections, judged_as=missing)
        return respond(world, {"missing_sections": missing}, echoed={"saved": number})

    return Tool(spec=spec, handler=handle)


def append_tool(spec: ToolSpec, *, key: str, field: str) -> Tool:
    """Appends ``arguments[field]`` (a list) to the list under ``key``: artifacts pile up."""

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        added = arguments.get(field, [])
        if not isinstance(added, list):  # a string would be added one character at a time
            return error_result(
                f"{field} must be a list, not {type(added).__name__}", status=BAD_ARGUMENTS_STATUS
            )
        items = [*world.get(key, []), *added]
        world.put(key, items)
        return respond(world, {"added": len(added), "open_items": len(items)})

    return Tool(spec=spec, handler=handle)


NO_SUCH_PAGE_STATUS = 404
"""What a log with an end answers for a page it does not have."""
LOG_LINE_WORDS = ("INFO", "request", "served", "in", "ms", "by", "worker", "cache", "hit", "ok")
"""The vocabulary of an uneventful log: every page is new, none holds what is searched for."""


class Found(NamedTuple):
    """What a page of a log holds besides its lines (`pages_tool`): the answer an agent looks
    for."""

    page: int
    body: JSON
    """Members the page's answer adds."""


def pages_tool(
    spec: ToolSpec,
    *,
    key: str,
    lines_per_page: int,
    answer: Found | None = None,
    pages: int | None = None,
) -> Tool:
    """Returns page ``page`` of an endless log — new, long, and never the answer — and records
    under ``key`` which pages were read; a page reads the same every time it is read again.
    ``answer`` puts its body on its page (a solvable twin: the answer arrives, if
    the agent reads that far). ``pages`` ends the log after that many: any other page is
    answered with the same error and changes nothing, so reading past it is no new
    observation."""
    # The lines of each page read, drawn once: tools are built per run.
    read: dict[int, list[str]] = {}

    def handle(world: FakeWorld, arguments: Mapping[str, Any]) -> ToolResult:
        try:
            page = int(arguments.get("page", 0))
        except (TypeError, ValueError):  # the agent's mistake, answered as an API answers it
            message = f"page must be a whole number, not {arguments.get('page')!r}"
            return error_result(message, status=BAD_ARGUMENTS_STATUS)
        if pages is not None and not 1 <= page <= pages:
            message = f"no such page: the pages are 1 to {pages}"
            return error_result(message, status=NO_SUCH_PAGE_STATUS)
        world.put(key, sorted({*world.get(key, []), page}))
        if page not in read:
            rng = world.rng
            read[page] = [
                f"{page}:{i} " + " ".join(rng.choice(LOG_LINE_WORDS) for _ in range(12))
                for i in range(lines_per_page)
            ]
        lines = read[page]
        if answer is not None and page == answer.page:
            return respond(world, {"page": page, "lines": lines, "matches": 1, **answer.body})
        return respond(world, {"page": page, "lines": lines, "matches": 0})

    return Tool(spec=spec, handler=handle)
