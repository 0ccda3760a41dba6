"""The command-line face: ``unsolvable run|report|list|show`` (the console script
``unsolvable.cli:main``)."""

from unsolvable.cli._main import main

__all__ = ["main"]
