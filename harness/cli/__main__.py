"""``python -m unsolvable.cli``: the console script without its entry point."""

import sys

from unsolvable.cli._main import main

sys.exit(main())
