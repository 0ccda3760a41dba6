"""A stand-in for a coding agent's CLI that reads everything its adapter gives it — its command
line, its environment, its working directory, the config files written beside it and the MCP
config — and appends it, unredacted, as one JSON line to the file its first argument names."""

import json
import os
import sys


def files(root: str) -> dict[str, str]:
    """Every file under ``root`` by its path there, with its text."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as file:
                found[os.path.relpath(path, root)] = file.read()
    return dict(sorted(found.items()))


mcp = os.environ.get("UNSOLVABLE_MCP_CONFIG")
seen = {
    "argv": sys.argv[2:],
    "environ": dict(sorted(os.environ.items())),
    "cwd": os.getcwd(),
    "beside": files(os.path.dirname(os.getcwd())),
    "mcp_config": files(os.path.dirname(mcp)) if mcp else None,
}
with open(sys.argv[1], "a", encoding="utf-8") as out:
    out.write(json.dumps(seen) + "\n")
