"""``python -m harness.cli``: the console script without its entry point."""

import sys

from harness.cli._main import main

sys.exit(main())
