"""The command-line face: ``unsolvable run|report|list|show`` (the console script
``harness.cli:main``)."""

from harness.cli._main import main

__all__ = ["main"]
