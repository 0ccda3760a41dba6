"""Sphinx configuration of the documentation site: Markdown pages (MyST) in the Furo theme, two
pages generated from the code (``_ext/generated.py``). Built strictly by ``.ci/run``:
``sphinx-build -W --keep-going -n docs build/site``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "pytest-unsolvable"
extensions = ["myst_parser", "generated"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "_ext"]
html_theme = "furo"
html_title = "pytest-unsolvable"
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]
