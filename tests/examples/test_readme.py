"""The Python examples of the README and the documentation site, run exactly as written."""

from __future__ import annotations

import re
from typing import Any

import unsolvable
from tests._docs import DOCS, placed
from unsolvable import scenarios

BLOCKS = re.findall(r"```python\n(.*?)```", DOCS, re.S)
README_AGENT = "import json\nfrom unsolvable import Code, Stop"
CUSTOM_SCENARIO = "import unsolvable\nfrom unsolvable.fake_tools"


def _block(first_line: str) -> str:
    matches = [block for block in BLOCKS if block.startswith(first_line)]
    assert len(matches) == 1, f"the docs must have one python block starting {first_line!r}"
    return matches[0]


def _run(*first_lines: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "readme_example"}
    for first_line in first_lines:
        block = _block(first_line)
        # placed at its own lines, so tracebacks and hypothesis's source lookups read the page
        page, code = placed(block)
        exec(compile(code, page, "exec"), namespace)
    return namespace


def test_small_agent_and_run_example() -> None:
    namespace = _run(
        README_AGENT,
        "import unsolvable\nfrom unsolvable import scenarios\n\nrecord = unsolvable.run(my_agent",
    )
    record = namespace["record"]
    assert record.verdict.passed and record.code is unsolvable.Code.NO_PROGRESS


def test_small_agent_stops_on_every_constant_return_variant() -> None:
    agent = _run(README_AGENT)["my_agent"]
    for scenario in scenarios.select(["constant-return"]):
        record = unsolvable.run(agent, scenario)
        assert record.outcome is unsolvable.Outcome.STOPPED, record.scenario


def test_custom_scenario_example() -> None:
    namespace = _run(CUSTOM_SCENARIO)
    assert namespace["record"].observed.first_stagnant_step == 2


def test_custom_twin_example_catches_the_agent_the_page_says() -> None:
    """The twin runs as written, the contract stops its sibling where the page says, and the
    README's agent, which stops at the first answer it has seen before, false-stops it."""
    namespace = _run(README_AGENT, CUSTOM_SCENARIO, "import dataclasses\nimport functools")
    sibling, twin = namespace["sku_gone"], namespace["sku_syncs"]
    for seed in (0, 1, 2):
        assert unsolvable.run("contract", twin, seed=seed).verdict.passed
        stopped = unsolvable.run("contract", sibling, seed=seed).observed
        assert (stopped.steps, stopped.first_stagnant_step) == (3, 2)
    for scenario in (sibling, twin):
        assert unsolvable.run(namespace["my_agent"], scenario).observed.steps == 2
    false_stop = unsolvable.run(namespace["my_agent"], twin).verdict
    assert false_stop.broke(unsolvable.Rule.FALSE_STOP)


STRATEGIES = "from hypothesis import given\nimport unsolvable\nfrom unsolvable.scenarios.strategies"


def test_strategy_example() -> None:
    namespace = _run(f"{STRATEGIES} import unsolvable_scenarios")
    namespace["test_contract_stops"]()


def test_twin_strategy_example() -> None:
    namespace = _run(f"{STRATEGIES} import sibling_and_twin")
    namespace["test_contract_stops_only_when_stuck"]()


def test_the_ceilings_shown_are_built_as_written() -> None:
    """The keywords a page gives `unsolvable.Ceilings` are the ones it takes."""
    shown = re.findall(r"unsolvable\.Ceilings\((.*?)\)", DOCS, re.S)
    assert shown
    for arguments in shown:
        ceilings = eval(f"unsolvable.Ceilings({arguments})", {"unsolvable": unsolvable})
        assert isinstance(ceilings, unsolvable.Ceilings)
