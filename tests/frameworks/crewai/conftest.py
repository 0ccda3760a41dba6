"""CrewAI pins openai<3, mcp<2 and pydantic<2.13, so it is never in the `test` environment: there
this folder is not collected at all (a skip would fail under CI=true). `.ci/run` runs it in an
environment of its own, with only ``.[crewai]`` and pytest installed, where a skip fails again."""

from importlib.util import find_spec

collect_ignore_glob = [] if find_spec("crewai") else ["test_*.py"]
