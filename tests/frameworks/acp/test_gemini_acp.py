"""Gemini CLI in its ACP mode (``gemini --acp``), at its defaults but the model, through the ACP
face, offline: loopback only, on the fake Gemini wire, the scenario's tools as the editor's MCP
server, which Gemini CLI names ``mcp_unsolvable_<tool>``. What it does is the docs' ACP table.
Skipped when ``gemini`` is not on PATH (.ci/run installs it with npm)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("acp")
pytest.importorskip("mcp")

import unsolvable
from tests.frameworks._glue import needs_cli
from unsolvable import Ceilings, Code, Exit, Rule, scenarios
from unsolvable.adapters.acp import AcpAdapter

needs_gemini = needs_cli("gemini", "@google/gemini-cli")
CEILINGS = Ceilings(max_wall_seconds=120)
"""As for the other coding agents over ACP: start-up alone takes seconds."""


def _gemini() -> AcpAdapter:
    """``gemini --acp`` in the run's own empty ``HOME`` (``{home}``: no user settings or login),
    told a model: its default, ``auto``, asks a routing model first, which a scripted model
    cannot answer. Given as an ``acp:`` spec, as on the command line: its tool names need no
    option."""
    spec = "acp:env HOME={home} gemini --acp --model gemini-2.5-flash --skip-trust"
    return AcpAdapter.from_spec(spec, isolate_network=True)


@needs_gemini
def test_its_loop_detector_ends_a_stuck_turn_as_max_turn_requests() -> None:
    """Each call is asked about and granted; the fifth identical call trips its loop detector,
    which it reports as ``max_turn_requests``: recorded exhausted, BUDGET_STEPS, at step 6."""
    record = unsolvable.run(_gemini(), scenarios.get("constant-return/repeat"), ceilings=CEILINGS)
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_STEPS)
    assert (record.observed.steps, record.observed.tool_calls) == (6, 4)
    assert record.reported is not None and record.reported.partial == {
        "stop_reason": "max_turn_requests"
    }


@needs_gemini
def test_a_refused_permission_is_asked_again_until_the_loop_detector() -> None:
    record = unsolvable.run(
        _gemini(), scenarios.get("missing-permission/retry-403"), ceilings=CEILINGS
    )
    assert (record.exit, record.code) == (Exit.EXHAUSTED, Code.BUDGET_STEPS)
    assert record.observed.refusals == {"denied": 4} and record.observed.steps == 6
    assert [failure.rule for failure in record.verdict.failures] == [Rule.RETRIED_REFUSAL]


@needs_gemini
@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("constant-return/twin-cursor-paging", (5, 4)),
        ("missing-permission/twin-other-route", (3, 2)),
    ],
)
def test_it_finishes_the_twins_its_message_after_its_last_call_the_claim(
    name: str, counts: tuple[int, int]
) -> None:
    """It announces no tool call (no ``tool_call`` update: its permission request, and once a
    call ran its ``tool_call_update``), so the record's reason showed every message of the turn
    joined, cut before its claim; it shows the message after its last call."""
    record = unsolvable.run(_gemini(), scenarios.get(name), ceilings=CEILINGS)
    assert (record.code, record.verdict.passed) == (Code.COMPLETED, True)
    assert (record.observed.steps, record.observed.tool_calls) == counts
    assert record.reported.reason == "acp stopReason end_turn; said: Done: the task is complete."


@needs_gemini
def test_the_users_own_settings_change_no_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its ``HOME`` is the run's own (``{home}``): a memory file in the user's ``~/.gemini``,
    which Gemini CLI adds to every request it sends, is never read, and the record is the one
    without it."""
    twin = scenarios.get("constant-return/twin-cursor-paging")
    plain = unsolvable.run(_gemini(), twin, ceilings=CEILINGS)
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / "GEMINI.md").write_text("Answer every question in French.\n" * 40)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert unsolvable.run(_gemini(), twin, ceilings=CEILINGS).to_dict() == plain.to_dict()
