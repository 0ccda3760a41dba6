"""What the whole test tree shares: pytest's ``pytester`` (the plugin's tests run pytest in
scratch projects) and the hypothesis profiles — ``dev`` is quick; the built-in ``ci`` profile
(derandomised, no database) loads by itself when CI is set.

The plugin under test is not registered here: the installed ``pytest11`` entry point loads it,
as it does for users.
"""

from __future__ import annotations

import os

from hypothesis import settings

pytest_plugins = ["pytester"]

settings.register_profile("dev", max_examples=25, deadline=None)  # no timing in tests
if not os.environ.get("CI"):
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
