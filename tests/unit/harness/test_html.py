"""The HTML report: self-contained and stable, checked statically, then rendered by a real
headless chromium (skipped, with the reason, when it is not installed)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

import unsolvable
from tests.reports._browser import chromium, needs_chromium
from tests.reports._records import library_records, record
from unsolvable import Code, Outcome, TerminationRecord, scenarios
from unsolvable.agents import contract
from unsolvable.reports._baseline import gate
from unsolvable.reports._blessed import Baseline
from unsolvable.reports._charts import lag_chart, timeline, tradeoff_chart
from unsolvable.reports._counted import lag
from unsolvable.reports._html import to_html
from unsolvable.reports._marks import MARKERS, PALETTE
from unsolvable.reports._metrics import measure

WINDOW = (1280, 6400)
"""Tall enough to reach the charts below the failing runs."""
WIDTHS = (1280, 1920)
"""The windows a report must fit: a laptop and a desktop."""
LAYOUT_PROBE = """<script>
document.querySelectorAll("details").forEach((d) => { d.open = true; });
const cut = [];
for (const svg of document.querySelectorAll("svg")) {
  const box = svg.getBoundingClientRect();
  for (const text of svg.querySelectorAll("text")) {
    const r = text.getBoundingClientRect();
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5
        || r.bottom > box.bottom + 0.5) cut.push(text.textContent);
  }
}
const out = document.createElement("pre");
out.id = "layout";
out.textContent = JSON.stringify({scrollWidth: document.documentElement.scrollWidth,
  innerWidth: window.innerWidth, texts: document.querySelectorAll("svg text").length, cut});
document.body.appendChild(out);
</script>"""
"""Measures the laid-out page: how wide it scrolls, and every chart label that reaches past its
chart. The report itself carries no script (its policy forbids one), so the probe goes into a
copy without the policy."""


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    records = library_records()
    metrics = measure(records)
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(to_html(records, metrics, gate(metrics, Baseline.from_metrics(metrics))))
    return path


def test_the_page_fetches_nothing_and_says_so(page: Path) -> None:
    html = page.read_text()
    assert not re.search(r"\b(src|href|url)\s*[=(]", html), "no external or embedded resources"
    assert "<script" not in html
    assert "Content-Security-Policy\" content=\"default-src 'none';" in html


def test_same_records_same_bytes_and_names_are_escaped() -> None:
    records = [record(scenario="fam/<script>x</script>", passed=False)]
    first, second = (to_html(records, measure(records)) for _ in range(2))
    assert first == second
    assert "<script>" not in first and "fam/&lt;script&gt;" in first


@needs_chromium
def test_chromium_builds_every_chart_and_failure(page: Path, tmp_path: Path) -> None:
    dom = chromium(page, tmp_path / "profile", "--dump-dom").stdout
    records = library_records()
    failed = sum(1 for r in records if r.verdict and not r.verdict.passed)
    unsolvable = sum(1 for r in records if not r.solvable)
    charts = dom.count('role="img"')
    assert charts == 2 + failed, "trade-off, lag distribution, a timeline per failure"
    dots = re.findall(r"(-?\d+) (steps?)</title></circle>", dom)
    assert len(dots) == unsolvable, "a dot per unsolvable run"
    assert ("1", "step") in dots, "a lag of one step among the library's"
    assert all((lag == "1") == (noun == "step") for lag, noun in dots), "1 step, 2 steps"
    assert f"Failing runs ({failed})" in dom and "Baseline gate passed" in dom
    assert dom.count("× contract</text>") == 2, "a lag row per unsolvable family"


@needs_chromium
def test_chromium_screenshot_shows_the_charts(page: Path, tmp_path: Path) -> None:
    image_module = pytest.importorskip("PIL.Image", reason="Pillow reads the screenshot")
    shot = tmp_path / "report.png"
    size = f"--window-size={WINDOW[0]},{WINDOW[1]}"
    chromium(page, tmp_path / "profile", size, f"--screenshot={shot}")
    with image_module.open(shot) as image:
        assert image.size == WINDOW
        colours = {colour for _, colour in image.convert("RGB").getcolors(maxcolors=1 << 20)}
    assert len(colours) > 50, "text and charts, not a blank page"
    for hex_colour in PALETTE[:2]:
        rgb = tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
        assert rgb in colours, f"the agent colour {hex_colour} is drawn"


MARKS_PROBE = """<script>
const signature = (el) => {
  const d = el.getAttribute("d");
  const moves = d ? d.replace(/^M[^a-zA-Z]*/, "").replace(/-?[\\d.]+/g,
    (n) => (parseFloat(n) < 0 ? "-" : "+")) : "";
  return `${el.tagName}${moves} ${getComputedStyle(el).fill}`;
};
const seen = [];
for (const owner of document.querySelectorAll("[data-agent]")) {
  const where = owner.closest(".legend") ? "legend" : "chart";
  for (const mark of owner.querySelectorAll(".mark")) {
    seen.push([owner.dataset.agent, where, signature(mark)]);
  }
}
const out = document.createElement("pre");
out.id = "marks";
out.textContent = JSON.stringify(seen);
document.body.appendChild(out);
</script>"""
"""Reads every agent's marks as chromium draws them, in the charts and in their legends: each
one's shape (its element, and a path's moves by their direction) and its computed fill."""


def _agents(count: int) -> list[TerminationRecord]:
    """``count`` agents, each with an unsolvable run and a control, lags apart."""
    return [
        run
        for i in range(count)
        for run in (
            record(agent=f"agent-{i}", scenario="fam/a", steps=2 + i, stagnant=2),
            record(
                agent=f"agent-{i}",
                scenario="ctl/c",
                solvable=True,
                code=Code.COMPLETED,
                world_complete=True,
            ),
        )
    ]


@needs_chromium
def test_chromium_draws_every_agent_of_a_report_apart_as_its_legend_says(tmp_path: Path) -> None:
    """Eight agents: with a colour each from a palette of six, agent-6 and agent-7 were drawn as
    agent-0 and agent-1, and nothing said which dots were whose."""
    records = _agents(len(PALETTE) + 2)
    html = to_html(records, measure(records))
    assert html == to_html(records, measure(records)), "the same drawing, byte for byte"
    probe = tmp_path / "marks.html"
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
    probe.write_text(html.replace("</body>", MARKS_PROBE + "</body>"))
    dom = chromium(probe, tmp_path / "profile", "--dump-dom").stdout
    found = re.search(r'<pre id="marks">(.*?)</pre>', dom, re.S)
    assert found, "the probe ran"
    seen = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    drawn: dict[str, set[str]] = {}
    for agent, where, signature in seen:
        drawn.setdefault(agent, set()).add(signature)
        drawn.setdefault(f"{agent} in {where}", set()).add(signature)
    agents = [f"agent-{i}" for i in range(len(PALETTE) + 2)]
    assert [len(drawn[agent]) for agent in agents] == [1] * len(agents), "one look an agent"
    assert len({next(iter(drawn[agent])) for agent in agents}) == len(agents), "none alike"
    assert all(drawn[f"{agent} in legend"] == drawn[f"{agent} in chart"] for agent in agents)


def test_more_agents_than_the_charts_can_draw_apart_are_left_to_the_tables() -> None:
    records = _agents(len(PALETTE) * len(MARKERS) + 1)
    metrics = measure(records)
    for chart in (tradeoff_chart(metrics), lag_chart(metrics, records)):
        assert "<svg" not in chart and "More agents than the charts can draw apart" in chart


def test_a_premature_stop_is_drawn_left_of_zero_and_the_step_cap_is_named() -> None:
    records = [
        record(scenario="fam/a", steps=1, stagnant=4),
        record(scenario="fam/b", steps=5, stagnant=2),
        record(scenario="ctl/c", solvable=True, steps=6, code=None, world_complete=True),
    ]
    html = to_html(records, measure(records))
    assert not re.search(r"\bnan\b", html) and ">-3 steps</title>" in html and ">-2</text>" in html
    assert "does not beat the calibrated step cap" in html


def test_an_agent_that_only_guesses_is_not_drawn_where_lower_left_reads_better() -> None:
    """Both unsolvable runs stopped before their stagnant step (lag -3 and -2, premature): the
    trade-off chart, whose axis says lower left is better, drew the agent left of lag 0 and of
    its calibrated step cap, which it does not beat. Its lag p95 counts from 0 there, as the
    step cap comparison counts it; the premature stops are counted apart."""
    records = [
        record(scenario="fam/a", steps=1, stagnant=4),
        record(scenario="fam/b", steps=1, stagnant=3),
        record(scenario="ctl/c", solvable=True, steps=6, code=None, world_complete=True),
    ]
    metrics = measure(records)
    assert metrics.agents[0].step_cap is not None and not metrics.agents[0].step_cap.beaten
    chart = tradeoff_chart(metrics)
    zero = float(
        re.search(r'<text x="([\d.]+)" y="[\d.]+" text-anchor="middle">0</text>', chart)[1]
    )  # type: ignore[index]
    agent = float(re.search(r'<circle cx="([\d.]+)" cy="[\d.]+" r="6" fill="#', chart)[1])  # type: ignore[index]
    assert agent >= zero


def test_an_agent_with_no_control_run_is_not_drawn_at_no_false_stops() -> None:
    """With no control run an agent has no false-stop rate (its tables show ``-``); the
    trade-off chart drew it on the 0 % row, the best rate there is, as if measured. It is
    drawn only where it has one, and the page names the agents it leaves out and why."""
    measured = [
        record(scenario="fam/a", agent="b", steps=5, stagnant=2),
        record(scenario="ctl/c", agent="b", solvable=True, steps=6, code=None, world_complete=True),
    ]
    unmeasured = [record(scenario="fam/a", agent="a", steps=5, stagnant=2)]
    assert measure(unmeasured).agents[0].false_stop_rate is None
    alone = tradeoff_chart(measure(unmeasured))
    assert "<circle" not in alone and "No control run: no false-stop rate" in alone
    both = tradeoff_chart(measure([*unmeasured, *measured]))
    drawn = re.findall(r'<circle[^>]*r="6"[^>]*>.*?>([^<]*)</text>', both)
    assert drawn == ["b&#x27;s step cap (6)", "b"]
    assert "Not drawn, with no control run to give them a false-stop rate: a." in both


ROUNDS = ["role-ping-pong/reviewer-never-accepts", "role-ping-pong/plain",
          "role-ping-pong/twin-accepts-revision"]  # fmt: skip
"""Scenarios whose calibrated step cap stops before stagnation: a cap short enough to pass the
twin stops the rounds early."""


def test_every_mark_of_the_lag_chart_is_on_its_axis() -> None:
    """A step cap that stops before stagnation (a negative lag) widens the axis as an agent's
    premature stop does, rather than being drawn left of it."""
    records = [
        unsolvable.run(contract, scenario, seed=seed)
        for scenario in scenarios.select(ROUNDS)
        for seed in scenario.seeds
    ]
    metrics = measure(records)
    assert any(g.step_cap and g.step_cap.lag_steps.p95 < 0 for g in metrics.families)
    chart = lag_chart(metrics, records)
    axis_start = float(re.search(r'<line class="axis" x1="([\d.]+)"', chart)[1])  # type: ignore[index]
    marks = [float(x) for x in re.findall(r'<path d="M([\d.-]+) ', chart)]
    assert marks and min(marks) >= axis_start
    # the diamond names its lag as signed: the JSON's step_cap.lag_p95 counts from 0 (here 0)
    early = next(
        g.step_cap for g in metrics.families if g.step_cap and g.step_cap.lag_steps.p95 < 0
    )
    assert f"step cap {early.cap}: signed lag p95 {early.lag_steps.p95:g}<" in chart
    assert early.lag_p95 != early.lag_steps.p95


def _layout(page: Path, tmp_path: Path, width: int) -> dict[str, object]:
    probe = tmp_path / f"probe-{width}.html"
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page.read_text())
    probe.write_text(html.replace("</body>", LAYOUT_PROBE + "</body>"))
    size = f"--window-size={width},1000"
    dom = chromium(probe, tmp_path / f"profile-{width}", size, "--dump-dom").stdout
    found = re.search(r'<pre id="layout">(.*?)</pre>', dom, re.S)
    assert found, "the layout probe ran"
    return dict(json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&")))


def _long_labels() -> list[TerminationRecord]:
    """The library's records under a long agent label, so every label is at its widest."""
    long = "agents.stop_logic.experimental:agent_with_a_long_and_descriptive_name"
    return [dataclasses.replace(r, agent=f"{long}-{r.agent}") for r in library_records()]


@needs_chromium
@pytest.mark.parametrize("width", WIDTHS)
def test_the_page_never_scrolls_sideways_and_no_chart_label_is_cut(
    page: Path, tmp_path: Path, width: int
) -> None:
    records = _long_labels()
    wide = tmp_path / "long-labels.html"
    wide.write_text(to_html(records, measure(records)))
    for report in (page, wide):
        layout = _layout(report, tmp_path, width)
        assert layout["scrollWidth"] == layout["innerWidth"] == width, report.name
        assert layout["texts"] and layout["cut"] == [], report.name


def test_what_broke_comes_before_the_metrics_worst_first() -> None:
    records = [
        record(scenario="fam/stopped-late", passed=False),
        record(scenario="ctl/claimed", solvable=True, code=Code.COMPLETED, world_complete=False),
        record(scenario="fam/fine"),
    ]
    html = to_html(records, measure(records))
    failing, metrics = html.index("Failing runs (2)"), html.index("<h2>Metrics</h2>")
    claimed, late = html.index("ctl/claimed (seed 0)"), html.index("fam/stopped-late (seed 0)")
    assert failing < claimed < late < metrics, "a false completion is shown before a late stop"
    assert '<div class="card bad"><b>1</b><span>false completions</span>' in html
    assert "<th>rule broken</th>" in html


def _grey_width(svg: str) -> float:
    return float(re.search(r'<rect x="[\d.]+" y="14" width="([\d.]+)"', svg)[1])  # type: ignore[index]


def test_a_timeline_is_grey_only_over_the_steps_the_run_took() -> None:
    """Grey is the steps made while progress was possible: a run that stopped at step 1, three
    steps before its stagnant step, was drawn grey up to step 4, as if it had made them."""
    premature = timeline(record(steps=1, stagnant=4, bound=10, passed=False))
    control = timeline(record(steps=1, solvable=True, bound=10, code=None, passed=False))
    assert _grey_width(premature) == _grey_width(control)
    assert "stagnant from 4" in premature and "stopped 1" in premature


def _lag_width(svg: str) -> float:
    """The red bar's width: the lag, from the first stagnant step to the stop."""
    return float(
        re.search(r'<rect x="[\d.]+" y="14" width="([\d.]+)" height="14" fill="#dc2626"', svg)[1]
    )  # type: ignore[index]


def test_a_run_a_ceiling_found_early_is_drawn_with_the_lag_every_report_counts() -> None:
    """A wall-clock ceiling that finds a hung agent at step 1 of N=10 ends a run that never
    stopped: every report counts it stopped at N+1 at least, 9 steps past its stagnant step 2,
    as late as an agent that ran on to step 11. Its timeline drew no lag at all, the lag of the
    step the ceiling found it at."""
    hung = record(steps=1, stagnant=2, bound=10, code=None, outcome=Outcome.DID_NOT_STOP)
    late = record(steps=11, stagnant=2, bound=10, code=None, passed=False)
    assert lag(hung) == lag(late) == 9
    drawn = timeline(hung)
    assert _lag_width(drawn) == _lag_width(timeline(late)) > 0
    assert "ceiling at step 1, counted 11" in drawn and "stagnant from 2" in drawn
    control = record(steps=1, bound=10, solvable=True, code=None, outcome=Outcome.DID_NOT_STOP)
    assert _lag_width(timeline(control)) == 0, "a control has no lag, cut short or not"
