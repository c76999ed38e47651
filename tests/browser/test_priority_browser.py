"""A budgeted pool judged in priority order in real Chromium, with the keyboard alone: each next
document is the one the adaptive strategy chooses from the judgments so far, until the budget
is spent; and the pool planner's table and chart as an organizer sees them. The strict CSP
refuses nothing on either page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evaluation.core.pool_planner import PlannerInput, plan_pools
from evaluation.core.trec_measures import parse_measures
from evaluation.models import PoolPlanJob
from pooling.core.algorithms.strategies import next_to_judge, parse_strategy
from pooling.core.algorithms.strategies.priority import pool_strategy
from pooling.models import PoolItem
from pooling.services.pools import pool_build
from tests.factories import AssignmentFactory, UserFactory
from tests.integration.test_priority_pools import (
    document_task,
    ranked_from_files,
    relevant,
    shuffled_runs,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(
  `${e.effectiveDirective} refused ${e.blockedURI}`));
"""
FILES = shuffled_runs({"bm25": 81, "dense": 82, "rm3": 83})
BUDGET = 4


def _item_id(url: str) -> int:
    found = re.search(r"/assess/\d+/(\d+)/$", url)
    assert found, url
    return int(found.group(1))


def test_keyboard_judges_a_budgeted_pool_in_the_strategys_order_when_adaptive(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    task = document_task("Prio-Browser", FILES)
    pool_build(task=task, strategy=pool_strategy("mm-ns", BUDGET, "topic", 5))
    topic = task.topics.get(number="1")
    assignment = AssignmentFactory.create(
        topic=topic, assessor=UserFactory.create(username="alice")
    )
    ranked = ranked_from_files(FILES)["1"]
    page.add_init_script(WATCH)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    login("alice")
    page.goto("/assess/")
    start = page.locator(f'a.continue-btn[href^="/assess/{assignment.pk}/"]')
    assert start.inner_text().startswith("Start")
    start.click()
    judged: list[tuple[str, bool]] = []
    for step in range(BUDGET):
        page.wait_for_url(re.compile(rf"/assess/{assignment.pk}/\d+/$"))
        page.wait_for_selector(".hit")
        item = PoolItem.objects.get(pk=_item_id(page.url))
        # The strategy's next document given every judgment so far, as the core replays it.
        assert item.key == next_to_judge(
            parse_strategy("mm-ns"), ranked, judged, seed=5, topic="1"
        ), step
        body = page.locator("body").inner_text()
        assert not {"bm25", "dense", "rm3", "mm-ns"} & set(body.split())  # blind
        if step == 1:
            page.evaluate("() => window.scrollTo(0, 0)")
            screenshot("priority-judging")
        grade = "2" if relevant(item.key) else "0"
        page.keyboard.press(grade)
        page.keyboard.press("Enter")
        judged.append((item.key, grade == "2"))
        if step < BUDGET - 1:
            page.wait_for_function(
                f"() => !location.pathname.endsWith('/{item.pk}/')", timeout=15000
            )
    page.wait_for_url(re.compile(rf"/assess/{assignment.pk}/items/$"))
    assert PoolItem.objects.filter(topic=topic).count() == BUDGET
    page.goto(f"/assess/{assignment.pk}/")  # the budget is spent: nothing more to judge
    page.wait_for_url(re.compile(rf"/assess/{assignment.pk}/items/$"))
    assert "budget is spent" in page.locator("body").inner_text()
    assert page.evaluate("() => window.__violations") == []
    assert errors == []


def test_planner_table_and_chart_show_each_strategy_and_budget_when_a_plan_is_done(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    task = document_task("Prio-Plan-Browser", FILES)
    pool_build(task=task, strategy=pool_strategy("rrf", 5, "topic", 1))
    ranked = ranked_from_files(FILES)
    grades = {t: {d: int(relevant(d)) for runs in ranked[t].values() for d in runs} for t in ranked}
    data = PlannerInput(
        grades=grades,
        runs={
            tag: {t: {d: 40.0 - i for i, d in enumerate(ranked[t][tag])} for t in ranked}
            for tag in FILES
        },
        pool_tags=sorted(FILES),
        groups={tag: tag for tag in FILES},
        measures=parse_measures(["map", "P_10"]),
    )
    strategies = ["depth", "rrf", "mtf", "mm-ns"]
    rows = plan_pools(data, [parse_strategy(s) for s in strategies], [6, 12, 24])
    PoolPlanJob.objects.create(
        task=task,
        source="qrels",
        source_name="last-year.qrels",
        grades=grades,
        strategies=[parse_strategy(s).label for s in strategies],
        budgets=[6, 12, 24],
        measures=["map", "P_10"],
        status="done",
        steps_done=4,
        steps_total=4,
        rows=[row.as_dict() for row in rows],
    )
    UserFactory.create(username="boss", is_staff=True)
    page.add_init_script(WATCH)
    login("boss")
    page.goto(f"/pools/{task.pk}/")
    # The build form keeps the strategy; the dashboard counts what is spent and found.
    assert page.locator("input[name=strategy]").input_value() == "rrf:60"
    assert page.locator("input[name=budget]").input_value() == "5"
    rows = page.locator("#priority-table tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).locator("td").all_inner_texts()[:5] == ["1", "0", "5", "5", "0"]
    screenshot("pool-page-budgeted")
    page.click("text=plan a budget (pool planner)")
    page.wait_for_selector("#planner-chart")
    table = page.locator("#planner-table tbody tr")
    assert table.count() == 12
    assert table.nth(0).locator("td").nth(0).inner_text() == "depth"
    assert page.locator("#planner-chart polyline").count() == 4
    assert page.locator("#planner-chart circle").count() == 12
    box = page.locator("#planner-chart").bounding_box()
    assert box is not None
    assert box["width"] > 400
    assert box["height"] > 150
    colours = page.evaluate(
        "() => [...document.querySelectorAll('#planner-chart polyline')]"
        ".map(l => getComputedStyle(l).stroke)"
    )
    assert len(set(colours)) == 4  # one colour per strategy
    assert "Runs replayed whole" in page.locator("#plan-judged-only").inner_text()
    judged_only = page.get_by_label("Judged documents only")
    assert judged_only.is_visible()
    assert not judged_only.is_checked()  # off by default
    shot = screenshot("pool-planner")
    page.get_by_text("Judged documents only", exact=True).click()  # the words tick the box
    assert judged_only.is_checked()
    assert Path(shot).exists()
    assert page.evaluate("() => window.__violations") == []


def test_planner_table_gives_every_row_the_same_cells_when_a_tau_is_undefined(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    # depth buys nothing at a budget of 2 over two topics (every row of it a dash); rrf's
    # judged documents leave every run tied under P_10 (tau undefined) but not under map.
    task = document_task("Prio-Plan-Dashes", FILES)
    ranked = ranked_from_files(FILES)
    grades = {t: {d: int(relevant(d)) for runs in ranked[t].values() for d in runs} for t in ranked}
    data = PlannerInput(
        grades=grades,
        runs={
            tag: {t: {d: 40.0 - i for i, d in enumerate(ranked[t][tag])} for t in ranked}
            for tag in FILES
        },
        pool_tags=sorted(FILES),
        groups={tag: tag for tag in FILES},
        measures=parse_measures(["map", "P_10"]),
    )
    [empty] = plan_pools(data, [parse_strategy("depth")], [2])
    [tied_row] = plan_pools(data, [parse_strategy("rrf")], [6])
    assert empty.judgments == 0
    map_tau = tied_row.tau["map"]
    assert tied_row.tau["P_10"] is None
    assert map_tau is not None
    drop = tied_row.max_group_drop["P_10"]["drop"]
    assert isinstance(drop, float)
    PoolPlanJob.objects.create(
        task=task,
        source="qrels",
        source_name="last-year.qrels",
        grades=grades,
        strategies=["depth", "rrf:60"],
        budgets=[2, 6],
        measures=["map", "P_10"],
        status="done",
        steps_done=2,
        steps_total=2,
        rows=[empty.as_dict(), tied_row.as_dict()],
    )
    UserFactory.create(username="boss", is_staff=True)
    login("boss")
    page.goto(f"/results/{task.pk}/pool-planner/")
    page.wait_for_selector("#planner-table")
    screenshot("pool-planner-undefined-tau")

    heads = page.locator("#planner-table thead th").all_text_contents()  # as written
    assert len(heads) == 4 + 3 * 2
    body = page.locator("#planner-table tbody tr")
    cells = [body.nth(at).locator("td").all_inner_texts() for at in range(body.count())]
    assert [len(row) for row in cells] == [len(heads), len(heads)]
    unjudged, tied = (dict(zip(heads, row, strict=True)) for row in cells)
    assert all(unjudged[head] == "—" for head in heads[4:])
    assert tied["tau (P_10)"] == tied["tau-AP (P_10)"] == "—"
    assert tied["tau (map)"] == f"{map_tau:.3f}"
    assert tied["Largest team drop (P_10)"].startswith(f"{drop:.4f}")
    # Each dash sits in its own column, under its own heading.
    for head in ("tau (P_10)", "tau-AP (P_10)"):
        at = heads.index(head)
        heading = page.locator("#planner-table thead th").nth(at).bounding_box()
        cell = body.nth(1).locator("td").nth(at).bounding_box()
        assert heading is not None
        assert cell is not None
        assert abs(cell["x"] - heading["x"]) < 1
        assert abs(cell["width"] - heading["width"]) < 1
