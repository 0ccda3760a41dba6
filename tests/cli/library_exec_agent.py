"""An exec agent whose traceback passes through a library in site-packages (pluggy raises): it
exits without a stop line, recorded crashed, and its record keeps Python's traceback from its
stderr."""

import pluggy

pluggy.HookimplMarker("agent")(1)
