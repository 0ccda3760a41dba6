"""Hypothesis profiles for the project's own tests: ``dev`` is quick; the built-in ``ci`` profile
(derandomised, no database) loads by itself when CI is set."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("dev", max_examples=25)
if not os.environ.get("CI"):
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
