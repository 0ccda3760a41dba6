"""One module per family of unsolvable task, each exposing a ``SCENARIOS`` tuple."""
