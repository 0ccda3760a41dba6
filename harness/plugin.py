"""The pytest11 entry point of pytest-unsolvable (issue 3); inert until its options are used."""

from __future__ import annotations
