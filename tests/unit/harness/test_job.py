"""A worker's messages as the harness reads them: only a line of JSON from that worker about the
job it runs is taken; anything else says why it is not."""

from __future__ import annotations

import re

import pytest

from unsolvable._job import FINISHED, MessageError, decode, encode

PID, JOB = 4242, 7


def test_a_message_from_the_worker_about_its_job_reads_back() -> None:
    line = encode(PID, JOB, FINISHED, record={"a": [1, "b"]}).rstrip(b"\n")
    assert decode(line, pid=PID, index=JOB) == {
        "pid": PID, "job": JOB, "kind": FINISHED, "record": {"a": [1, "b"]}
    }  # fmt: skip


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (encode(PID + 1, JOB, FINISHED), "written by process 4243, not the worker (4242)"),
        (encode(PID, JOB + 1, FINISHED), "about job 8, not the job it runs (7)"),
        (b'{"pid": 4242, "job": 7, "kind": "finished", "x": NaN}', "holds NaN"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b"{not json", "not JSON"),
        (b'{"kind": "forged"}', "not a message of the worker's"),
    ],
    ids=["another-process", "another-job", "nan", "deep", "not-json", "unknown-kind"],
)
def test_anything_else_is_refused_saying_why(line: bytes, why: str) -> None:
    with pytest.raises(MessageError, match=re.escape(why)):
        decode(line.rstrip(b"\n"), pid=PID, index=JOB)


def test_nan_is_never_written() -> None:
    with pytest.raises(ValueError, match="Out of range float values"):
        encode(PID, JOB, FINISHED, record={"cost": float("nan")})
