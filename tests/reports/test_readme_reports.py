"""The README's reports section stays true: every flag it shows exists; and the benchmarks' own
README names every script in ``benchmarks/``, and only those."""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tests._docs import marked
from unsolvable.cli._main import _parser

ROOT = Path(__file__).parents[2]
SECTION = marked("reports")


def _flags(command: str) -> set[str]:
    """Every ``--flag`` of ``unsolvable <command>``, as its parser knows them."""
    commands = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    parser: argparse.ArgumentParser = commands.choices[command]
    return {flag for action in parser._actions for flag in action.option_strings}


def test_every_flag_shown_exists() -> None:
    plugin = {"--unsolvable-agent", "--unsolvable-json", "--unsolvable-shard", "--junitxml"}
    known = _flags("run") | _flags("report") | _flags("merge") | plugin
    benchmarks = ("python -m benchmarks", "#   ")
    text = "\n".join(line for line in SECTION.splitlines() if not line.startswith(benchmarks))
    shown = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", text))
    assert shown - known == set()


def test_the_benchmarks_readme_names_every_script_and_only_those() -> None:
    text = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"python -m benchmarks\.(\w+)", text))
    scripts = {path.stem for path in (ROOT / "benchmarks").glob("[!_]*.py")}
    assert shown == scripts and "benchmarks/README.md" in SECTION


def test_the_shard_commands_make_the_whole_run(tmp_path: Path) -> None:
    """The shards section's commands as written, the shown job once per shard; the merged
    records are those one unsharded run writes."""
    block = re.search(r"```sh\n(unsolvable run --all-seeds --shard.*?)```", SECTION, re.S)
    assert block is not None
    shard, merge = (shlex.split(line.partition("#")[0]) for line in block[1].splitlines())
    for k in ("1", "2", "3"):
        job = [arg.replace("2/3", f"{k}/3").replace("part-2", f"part-{k}") for arg in shard]
        _command(tmp_path, job)
    assert _command(tmp_path, merge).returncode == 1  # naive's verdicts fail, as in one run
    whole = _command(tmp_path, ["unsolvable", "run", "--all-seeds", "--json", "whole.json"])
    assert (tmp_path / "records.json").read_bytes() == (tmp_path / "whole.json").read_bytes()
    assert (tmp_path / "summary.md").read_text().startswith("## unsolvable: ")
    assert set(_shown_metrics()) <= set(whole.stdout.splitlines())


def test_the_gate_fails_as_shown_when_the_contract_waits_longer(tmp_path: Path) -> None:
    """The baseline gate's example: blessed as the section says, then the changed agent it names
    run on the one scenario; the failure it prints is the one shown."""
    section = SECTION.partition("## The baseline gate")[2]
    bless = re.search(r"```sh\n(unsolvable run .*?)```", section, re.S)
    changed = re.search(r"`(my_agent = .*?)`", section)
    gated = re.search(r"```\n(unsolvable: baseline gate FAILED.*?)```", section, re.S)
    assert bless is not None and changed is not None and gated is not None
    command = shlex.split(
        bless[1].replace("\\\n", " ").replace("mypkg.agents:my_agent", "contract")
    )
    assert _command(tmp_path, command).returncode == 0
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    imports = "from unsolvable.agents.contract import ContractAgent, ContractThresholds\n"
    (tmp_path / "mypkg" / "agents.py").write_text(imports + changed[1] + "\n")
    command[command.index("contract")] = "contract=mypkg.agents:my_agent"
    command.remove("--update-baseline")
    failed = _command(tmp_path, [*command, "--scenario", "todo-spawn/spawn"])
    assert failed.returncode == 1
    assert failed.stdout.splitlines()[-len(gated[1].splitlines()) :] == gated[1].splitlines()


def _shown_metrics() -> list[str]:
    """The metrics table and the step-cap sentences the section shows, some of the lines that
    ``unsolvable run --all-seeds`` prints, which the unsharded run above is."""
    shown = re.search(r"--all-seeds` prints:\n\n```\n(family .*?)```", SECTION, re.S)
    assert shown is not None
    return shown[1].splitlines()


def _command(folder: Path, command: list[str]) -> subprocess.CompletedProcess[str]:
    assert command[0] == "unsolvable"
    full = [sys.executable, "-m", "unsolvable.cli", *command[1:]]
    return subprocess.run(full, cwd=folder, capture_output=True, text=True, timeout=600)
