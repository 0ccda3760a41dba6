"""Consumes a request no fake route answered, produces what the agent's author is told: why it
matched nothing and what to do about it (`Wire` raises `StrayRequest` with it, and `Wire.check`
lists every stray of a run with the fixes they call for)."""

from __future__ import annotations

from collections.abc import Iterable

from unsolvable.wire._agents import AGENTS_SEGMENT
from unsolvable.wire._errors import WIRE_DOCS
from unsolvable.wire._exchange import WireRequest

__all__ = ["UNSERVED", "explain_stray", "explain_unknown_tool", "stray_fixes"]

UNSERVED = "no fake endpoint"
"""The route of a stray to a model host at a path the fake model does not serve."""
UNSERVED_FIX = (
    "it serves the generating calls and the token counts at the paths listed, not the SDKs' "
    "other calls (models.list, responses.retrieve, ...): check the client's base URL, and leave "
    "other calls out of the scenario's run"
)


def stray_fixes(routes: Iterable[str], tools: Iterable[str]) -> str:
    """What to do about the strays whose routes are ``routes``: a stray to a tool the scenario
    lacks carries the name it gave as its route, one to a model host the endpoint it has no fake
    of (`UNSERVED`); any other would have left the harness."""
    kept = set(routes)
    fixes = []
    if "" in kept:
        fixes.append(
            "another host or path would have left the harness: point the client at the fake"
        )
    if UNSERVED in kept:
        fixes.append(f"a model host has no such endpoint: {UNSERVED_FIX}")
    if kept - {"", UNSERVED}:
        names = ", ".join(sorted(tools))
        fixes.append(f"a tool the scenario does not have is refused: its tools are {names}")
    return "; ".join(fixes)


def explain_unknown_tool(request: WireRequest, name: str, tools: Iterable[str]) -> str:
    """Why a request to the tools' own URL naming a tool the scenario lacks is refused."""
    names = ", ".join(sorted(tools))
    return (
        f"unsolvable: {request.method} {request.safe_url}: the scenario has no tool "
        f"{name!r}; its tools are: {names}. Call one of them by its name, as the tools "
        f"offered to the model name them. See {WIRE_DOCS}"
    )


def explain_stray(
    request: WireRequest,
    *,
    unserved: bool,
    hosts: Iterable[str],
    tools: Iterable[str],
    tools_url: str,
) -> str:
    """Why ``request`` matched no route, and what to do: on a model host (``unserved``), the
    path is one the fake does not serve (an SDK's other call, or a base URL off its paths);
    elsewhere, the client is not pointed at the fake."""
    why, fix = (
        (f"the fake model has no such endpoint: {UNSERVED_FIX}", "")
        if unserved
        else (
            "the agent would have left the harness for a real host during the scenario",
            "Point the client at the fake (base_url, or http_client=wire.httpx2_client()), "
            "or route the URL with Wire(tool_routes={url: tool}). ",
        )
    )
    return (
        f"unsolvable: {request.method} {request.safe_url} matched no fake route: {why}.\n"
        "  - the fake model answers POST …/chat/completions, …/responses, …/messages, "
        f"…/models/<model>:generateContent (and :streamGenerateContent) on: "
        f"{', '.join(sorted(hosts))}; it counts tokens at …/responses/input_tokens, "
        "…/messages/count_tokens and …/models/<model>:countTokens there\n"
        f"  - the tools answer at {tools_url}/<name> for: {', '.join(sorted(tools))}\n"
        f"  - a sub-agent is named first in the path: /{AGENTS_SEGMENT}/<name>/v1/…\n"
        f"{fix}See {WIRE_DOCS}"
    )
