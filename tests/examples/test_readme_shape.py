"""The README stays what a newcomer reads in five minutes: under 400 lines, none of its prose
wider than 120 characters, the first run of one's own agent and the CI recipe near the top."""

from __future__ import annotations

from tests._docs import ROOT, TEXTS

LINES = TEXTS[ROOT / "README.md"].splitlines()


def _prose() -> list[str]:
    """The lines outside code blocks, where a terminal or a narrow pane wraps long ones."""
    inside, prose = False, []
    for line in LINES:
        if line.startswith("```"):
            inside = not inside
        elif not inside:
            prose.append(line)
    return prose


def test_it_is_short_and_narrow() -> None:
    assert len(LINES) < 400
    assert [line for line in _prose() if len(line) > 120] == []


def test_ones_own_agent_runs_early_and_ci_follows() -> None:
    first_run = next(i for i, line in enumerate(LINES) if line.startswith("pytest --unsolvable"))
    ci = LINES.index("## In CI: bless once, then gate every change")
    assert first_run < 150 and ci < 250
