"""``--junitxml``: every run's key figures as properties of its test, for the generated suite
(runs in worker processes, under xdist too) and for a user's own test that makes two runs."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests._docs import DOCS
from tests.plugin._helpers import Run
from unsolvable.plugin._options import (
    AGENT_OPTION,
    JSON_OPTION,
    NO_SNAPSHOT_OPTION,
    SCENARIO_OPTION,
)

README = DOCS

KEYS = (
    "scenario", "seed", "agent", "exit", "code", "outcome", "stopped_step",
    "first_stagnant_step", "lag_steps", "lag_tokens", "lag_cost_usd", "verdict",
)  # fmt: skip


def _properties(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Each test case's properties, by test name, in their order."""
    cases = ET.parse(path).getroot().iter("testcase")
    return {
        case.attrib["name"]: [(p.attrib["name"], p.attrib["value"]) for p in case.iter("property")]
        for case in cases
    }


def test_the_generated_suite_puts_each_runs_figures_on_its_test(
    run: Run, pytester: pytest.Pytester, xdist_args: tuple[str, ...]
) -> None:
    result = run(f"{AGENT_OPTION}=pkg:naive", f"{SCENARIO_OPTION}=constant-return/repeat",
                 NO_SNAPSHOT_OPTION, "--junitxml=junit.xml", *xdist_args)  # fmt: skip
    assert result.ret == 1  # naive fails by design
    properties = _properties(pytester.path / "junit.xml")
    figures = dict(properties["test_unsolvable[constant-return/repeat-seed0]"])
    assert list(figures) == [f"unsolvable.{key}" for key in KEYS]
    assert figures["unsolvable.scenario"] == "constant-return/repeat"
    assert (figures["unsolvable.agent"], figures["unsolvable.seed"]) == ("pkg:naive", "0")
    assert (figures["unsolvable.exit"], figures["unsolvable.code"]) == ("-", "-")
    assert (figures["unsolvable.outcome"], figures["unsolvable.verdict"]) == (
        "unstructured",
        "fail",
    )
    lag = int(figures["unsolvable.stopped_step"]) - int(figures["unsolvable.first_stagnant_step"])
    assert int(figures["unsolvable.lag_steps"]) == lag > 0


def test_the_properties_shown_are_what_the_suite_writes(
    run: Run, pytester: pytest.Pytester
) -> None:
    """The metrics page's JUnit example, its agent the contract under the label ``my-agent``:
    every property it shows is the one ``--junitxml`` writes for that test."""
    shown = re.search(r'```xml\n<testcase classname="(.*?)" name="(.*?)".*?```', DOCS, re.S)
    assert shown is not None
    expected = re.findall(r'<property name="(.*?)" value="(.*?)"/>', shown[0])
    scenario = dict(expected)["unsolvable.scenario"]
    result = run(f"{AGENT_OPTION}=my-agent=pkg:contract", f"{SCENARIO_OPTION}={scenario}",
                 NO_SNAPSHOT_OPTION, "--junitxml=junit.xml")  # fmt: skip
    assert result.ret == 0
    cases = ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")
    assert shown[1] in {
        case.attrib["classname"] for case in cases if case.attrib["name"] == shown[2]
    }
    assert _properties(pytester.path / "junit.xml")[shown[2]] == expected


def test_a_test_that_runs_twice_gets_two_groups_in_order(
    run: Run, pytester: pytest.Pytester
) -> None:
    pytester.makepyfile(
        test_mine="""
        def test_both(unsolvable):
            unsolvable.run("constant-return/repeat", agent="pkg:contract")
            unsolvable.run("missing-permission/retry-403", agent="pkg:contract")
        """
    )
    run("--junitxml=junit.xml").assert_outcomes(passed=1)
    properties = _properties(pytester.path / "junit.xml")["test_both"]
    assert len(properties) == 2 * len(KEYS)
    scenarios = [value for name, value in properties if name == "unsolvable.scenario"]
    assert scenarios == ["constant-return/repeat", "missing-permission/retry-403"]
    codes = [value for name, value in properties if name == "unsolvable.code"]
    assert codes == ["NO_PROGRESS", "BLOCKED_INPUT"]


def _uploaded(name: str) -> list[str]:
    """The paths the README workflow's upload of artifact ``name`` lists."""
    upload = re.search(rf"name: {re.escape(name)}\n\s+path: \|\n((?: {{12}}\S.*\n)+)", README)
    assert upload is not None, name
    return [path.strip().rstrip("/") for path in upload[1].splitlines()]


def test_the_readme_workflow_uploads_what_its_steps_write() -> None:
    """The CI example's runs are `test_readme.test_the_ci_example`; here, that each shard's
    upload names exactly what its pytest step writes, and the merge job's what its merge
    writes (its reports by their common stem)."""
    step = re.search(r"- run: (pytest .*)", README)
    merge = re.search(r"- run: (unsolvable merge .*)", README)
    assert step is not None and merge is not None
    shard = "${{ matrix.shard }}"  # one word for the comparison: the shard's number
    written = re.findall(r"--(?:unsolvable-json|junitxml)=(\S+)", step[1].replace(shard, "K"))
    uploaded = [path.replace(shard, "K") for path in _uploaded(f"unsolvable-shard-{shard}")]
    assert uploaded == written == ["unsolvable-K.json", "junit-K.xml"]
    reports = re.findall(r"--(?:json|markdown|html) (unsolvable\.\w+)", merge[1])
    exports = re.findall(r"--(?:otel|trace-dir) (\S+)", merge[1])
    assert len(reports) == 3 and _uploaded("unsolvable-report") == ["unsolvable.*", *exports]


def test_a_budget_stop_the_budget_chose_has_the_lag_every_report_counts(
    run: Run, pytester: pytest.Pytester
) -> None:
    """``cost-runaway/plain`` × contract stops on its budget two steps before the stagnant step
    the budget would have made: its record's signed lag is negative, the reports count 0."""
    result = run(f"{AGENT_OPTION}=pkg:contract", f"{SCENARIO_OPTION}=cost-runaway/plain",
                 NO_SNAPSHOT_OPTION, "--junitxml=junit.xml")  # fmt: skip
    assert result.ret == 0
    figures = dict(
        _properties(pytester.path / "junit.xml")["test_unsolvable[cost-runaway/plain-seed0]"]
    )
    stopped = int(figures["unsolvable.stopped_step"])
    assert stopped < int(figures["unsolvable.first_stagnant_step"])  # the record's lag is below 0
    assert (figures["unsolvable.lag_steps"], figures["unsolvable.lag_tokens"]) == ("0", "0")
    assert float(figures["unsolvable.lag_cost_usd"]) == 0.0


def test_each_figure_is_the_text_the_json_record_gives_it(
    run: Run, pytester: pytest.Pytester
) -> None:
    """A cost of a few millionths of a dollar is ``4.4e-05`` in the JSON record, and so on the
    test's property: one spelling of a figure in every machine-read form (the tables round it
    for people)."""
    pytester.makepyfile(
        test_mine="""
        import dataclasses
        from unsolvable import Pricing, scenarios

        def test_cheap(unsolvable):
            scenario = scenarios.get("constant-return/repeat")
            prices = Pricing(usd_per_million_input=0.001, usd_per_million_output=0.003)
            unsolvable.run(dataclasses.replace(scenario, pricing=prices), agent="pkg:naive")
        """
    )
    run("--junitxml=junit.xml", f"{JSON_OPTION}=records.json").assert_outcomes(passed=1)
    figures = dict(_properties(pytester.path / "junit.xml")["test_cheap"])
    (record,) = json.loads((pytester.path / "records.json").read_text())["records"]
    observed = record["observed"]
    written = {
        "seed": record["seed"],
        "stopped_step": observed["steps"],
        "first_stagnant_step": observed["first_stagnant_step"],
        "lag_steps": observed["detection_lag"],  # naive stops late: the lag counted is its own
        "lag_tokens": observed["lag_tokens"],
        "lag_cost_usd": observed["lag_cost_usd"],
    }
    assert "e-" in json.dumps(observed["lag_cost_usd"])  # the spelling str() and JSON share
    assert {key: figures[f"unsolvable.{key}"] for key in written} == {
        key: json.dumps(value) for key, value in written.items()
    }
