"""Agents the CLI tests load by ``module:attr`` path."""

from tests._builders import busy, swallows

NOT_AN_AGENT = 3

__all__ = ["NOT_AN_AGENT", "busy", "swallows"]
