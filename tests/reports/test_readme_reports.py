"""The README's reports section stays true: every flag it shows exists; and the benchmarks' own
README names every script in ``benchmarks/``, and only those."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from unsolvable.cli._main import _parser

ROOT = Path(__file__).parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTION = README[README.index("<!-- reports:start -->") : README.index("<!-- reports:end -->")]


def _flags(command: str) -> set[str]:
    """Every ``--flag`` of ``unsolvable <command>``, as its parser knows them."""
    commands = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    parser: argparse.ArgumentParser = commands.choices[command]
    return {flag for action in parser._actions for flag in action.option_strings}


def test_every_flag_shown_exists() -> None:
    known = _flags("run") | _flags("report") | {"--unsolvable-agent", "--unsolvable-json"}
    benchmarks = ("python -m benchmarks", "#   ")
    text = "\n".join(line for line in SECTION.splitlines() if not line.startswith(benchmarks))
    shown = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", text))
    assert shown - known == set()


def test_the_benchmarks_readme_names_every_script_and_only_those() -> None:
    text = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"python -m benchmarks\.(\w+)", text))
    scripts = {path.stem for path in (ROOT / "benchmarks").glob("[!_]*.py")}
    assert shown == scripts and "benchmarks/README.md" in SECTION
