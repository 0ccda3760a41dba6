"""An exec agent that writes the loopback URLs and the MCP config the harness gave it on stderr,
as an agent that logs its requests or its setup does, then raises without a stop line (recorded
crashed, its stderr and its traceback, naming this file where it lies, kept)."""

import os
import sys

for name in ("OPENAI_BASE_URL", "UNSOLVABLE_TOOLS_URL", "UNSOLVABLE_AGENTS_URL"):
    print(f"HTTP Request: POST {os.environ[name]}/x", file=sys.stderr)
print(f"reading {os.environ['UNSOLVABLE_MCP_CONFIG']}", file=sys.stderr)
raise RuntimeError(f"cannot go on without {os.environ['OPENAI_BASE_URL']}")
