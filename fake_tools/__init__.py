"""Fake tools and the fake world they act on: the deterministic parts of every scenario."""

from unsolvable.fake_tools._router import Tool, ToolCallLog, ToolRouter, error_result
from unsolvable.fake_tools._world import FakeWorld, normalise_text, requires
from unsolvable.fake_tools.tools._respond import respond
from unsolvable.fake_tools.tools.approval import (
    CONFIRMATION_REQUIRED,
    NEEDS_APPROVAL,
    confirm_tool,
)
from unsolvable.fake_tools.tools.artifacts import Found, append_tool, pages_tool, sections_tool
from unsolvable.fake_tools.tools.constant import constant_tool, lookup_tool
from unsolvable.fake_tools.tools.documents import Criterion, check_tool, failing, writer_tool
from unsolvable.fake_tools.tools.hanging import TIMED_OUT, hanging_tool
from unsolvable.fake_tools.tools.jobs import RETRY_AFTER_SECONDS, flaky_tool, job_tool
from unsolvable.fake_tools.tools.permission import DENIED, PermissionDenied, denied_tool
from unsolvable.fake_tools.tools.rate_limit import RATE_LIMITED, rate_limited_tool
from unsolvable.fake_tools.tools.registry import NOT_FOUND, registry_tool
from unsolvable.fake_tools.tools.search import search_tool
from unsolvable.fake_tools.tools.sequence import ModelSteps, sequence_tool, staged_tool
from unsolvable.fake_tools.tools.settings import setting_tool
from unsolvable.fake_tools.tools.settle import settle_tool
from unsolvable.fake_tools.tools.unavailable import UNAVAILABLE, unavailable_tool
from unsolvable.fake_tools.tools.waiting import queued_job_tool

REFUSALS = (DENIED, UNAVAILABLE, RATE_LIMITED, TIMED_OUT, NOT_FOUND, NEEDS_APPROVAL)
"""Every kind of refusal a fake tool answers with (`unsolvable.ToolResult.refusal`), each named
by its tool family: what a scenario file's recorded answer may say it was refused as."""

__all__ = [
    "CONFIRMATION_REQUIRED",
    "DENIED",
    "NEEDS_APPROVAL",
    "NOT_FOUND",
    "RATE_LIMITED",
    "REFUSALS",
    "RETRY_AFTER_SECONDS",
    "TIMED_OUT",
    "UNAVAILABLE",
    "Criterion",
    "FakeWorld",
    "Found",
    "ModelSteps",
    "PermissionDenied",
    "Tool",
    "ToolCallLog",
    "ToolRouter",
    "append_tool",
    "check_tool",
    "confirm_tool",
    "constant_tool",
    "denied_tool",
    "error_result",
    "failing",
    "flaky_tool",
    "hanging_tool",
    "job_tool",
    "lookup_tool",
    "normalise_text",
    "pages_tool",
    "queued_job_tool",
    "rate_limited_tool",
    "registry_tool",
    "requires",
    "respond",
    "search_tool",
    "sections_tool",
    "sequence_tool",
    "setting_tool",
    "settle_tool",
    "staged_tool",
    "unavailable_tool",
    "writer_tool",
]
