"""Secrets and memory addresses are cleaned from what agents put into records."""

from __future__ import annotations

from unsolvable._redact import Redactor


def test_secret_environment_values_and_credential_shapes_are_redacted() -> None:
    redactor = Redactor({"Service_Token": "tok-1234567890", "HOME": "/home/someone-long"})
    text = "tok-1234567890 sk-ant-api03-xyz12345 bearer abc.def https://u:p@h/x /home/someone-long"
    assert redactor.text(text) == (
        "[redacted] [redacted] bearer [redacted] https://[redacted]@h/x /home/someone-long"
    )


def test_cleaning_is_idempotent_and_keeps_short_values_and_shapes() -> None:
    redactor = Redactor({"X_PASSWORD": "1"})
    once = redactor.data({"at": ["<A object at 0x7f00deadbeef>", 1], "n": ("1",)})
    assert once == {"at": ["<A object at 0x…>", 1], "n": ("1",)}
    assert redactor.data(once) == once
