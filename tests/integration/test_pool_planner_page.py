"""The pool planner on a document task's pool page: the organizer uploads prior judgments (a
qrels file or a relevance-only file) or takes the judgments made so far, picks strategies and
budgets, a worker replays them on the task's runs, and the page shows the table and a chart.

The expected table is the planner's on the same runs read from their files
(``planner_input_read``, as ``manage.py simulate_pools`` reads them), not from the database."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from evaluation.core.planner_files import planner_input_read
from evaluation.core.pool_planner import plan_pools
from evaluation.models import PoolPlanJob
from pooling.core.algorithms.strategies import parse_strategy
from tests.factories.collection import UserFactory
from tests.integration.test_priority_pools import (
    TOPICS,
    document_task,
    ranked_from_files,
    relevant,
    shuffled_runs,
)

FILES = shuffled_runs({"bm25": 71, "dense": 72, "rm3": 73, "splade": 74})
POOL_RUNS = sorted(FILES)  # every run ticked, as the page's form starts
MEASURES = ["map", "P_10", "ndcg_cut_10", "bpref"]  # a document task's defaults


def prior_qrels() -> str:
    """Every retrieved document judged: every third relevant (grade 1 or 2)."""
    docs = {
        (t, d) for t, runs in ranked_from_files(FILES).items() for ds in runs.values() for d in ds
    }
    return "".join(
        f"{t} 0 {d} {(2 if int(d[-1]) % 2 else 1) if relevant(d) else 0}\n" for t, d in sorted(docs)
    )


def wait_for(job: PoolPlanJob, timeout: float = 120) -> PoolPlanJob:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.status in (PoolPlanJob.Status.DONE, PoolPlanJob.Status.FAILED):
            return job
        time.sleep(0.2)
    raise AssertionError(f"plan {job.pk} still {job.status}")


def expected_rows(
    tmp_path: Path,
    qrels: str,
    strategies: list[str],
    budgets: list[int],
    pool: list[str] | None = None,
) -> list:
    """The planner's table on FILES read from files, pooling from ``pool`` (a --pool-runs
    file) or every run."""
    runs = []
    for tag, text in FILES.items():
        path = tmp_path / f"{tag}.run"
        path.write_text(text)
        runs.append(path)
    (tmp_path / "qrels").write_text(qrels)
    groups = tmp_path / "groups.tsv"
    groups.write_text("".join(f"{tag}\tPlan-{tag}\n" for tag in FILES))
    pool_runs = None
    if pool is not None:
        pool_runs = tmp_path / "pool-runs.txt"
        pool_runs.write_text("".join(f"{tag}\n" for tag in pool))
    data = planner_input_read(
        tmp_path / "qrels", runs, MEASURES, pool_runs=pool_runs, groups=groups
    )
    return [
        row.as_dict()
        for row in plan_pools(data, [parse_strategy(s) for s in strategies], budgets, seed=2)
    ]


@pytest.mark.worker
def test_planner_page_replays_strategies_on_the_tasks_runs_when_qrels_uploaded(
    celery_worker, tmp_path: Path
) -> None:
    task = document_task("Plan", FILES)
    organizer = Client()
    organizer.force_login(UserFactory.create(username="org", is_staff=True))
    url = reverse("evaluation:pool-planner", args=[task.pk])
    pool_page = organizer.get(reverse("pooling:pool", args=[task.pk])).content.decode()
    assert url in pool_page  # the pool page links to the planner

    response = organizer.post(
        url,
        {
            "source": "qrels",
            "prior": SimpleUploadedFile("last-year.qrels", prior_qrels().encode()),
            "strategies": "depth rrf mm-ns",
            "budgets": "8 20",
            "seed": "2",
            "pool_runs": POOL_RUNS,
        },
    )

    assert response.status_code == 302
    job = wait_for(PoolPlanJob.objects.get(task=task))
    assert job.status == "done", job.error
    expected = expected_rows(tmp_path, prior_qrels(), ["depth", "rrf", "mm-ns"], [8, 20])
    assert [(r["strategy"], r["budget"], r["judgments"], r["relevant"]) for r in job.rows] == [
        (r["strategy"], r["budget"], r["judgments"], r["relevant"]) for r in expected
    ]
    for got, want in zip(job.rows, expected, strict=True):
        assert got["tau"] == pytest.approx(want["tau"])
        assert got["tau_ap"] == pytest.approx(want["tau_ap"])
        for name in MEASURES:
            assert got["max_group_drop"][name]["drop"] == pytest.approx(
                want["max_group_drop"][name]["drop"]
            )
            assert got["max_group_drop"][name]["group"] == want["max_group_drop"][name]["group"]
    page = organizer.get(url).content.decode()
    table = page.split('id="planner-table"', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == 1 + 6
    assert '<td class="strategy">mm-ns:0.5</td>' in table
    chart = page.split('id="planner-chart"', 1)[1].split("</svg>", 1)[0]
    assert chart.count("<polyline") == 3
    assert chart.count("<circle") == 6
    assert "<script" not in chart
    status = organizer.get(reverse("evaluation:pool-planner-status", args=[task.pk])).json()
    assert (status["status"], status["steps_done"], status["steps_total"]) == ("done", 3, 3)


@pytest.mark.worker
def test_relevance_only_file_and_judgments_so_far_are_prior_judgments_when_picked(
    celery_worker, tmp_path: Path
) -> None:
    task = document_task("Plan-Rel", FILES)
    organizer = Client()
    organizer.force_login(UserFactory.create(username="org", is_staff=True))
    url = reverse("evaluation:pool-planner", args=[task.pk])
    relevant_only = "".join(
        f"{line.split()[0]} {line.split()[2]}\n"
        for line in prior_qrels().splitlines()
        if line.split()[3] != "0"
    )
    organizer.post(
        url,
        {
            "source": "relevant",
            "prior": SimpleUploadedFile("rel.txt", relevant_only.encode()),
            "strategies": "rrf",
            "budgets": "10",
            "seed": "2",
            "pool_runs": POOL_RUNS,
        },
    )
    job = wait_for(PoolPlanJob.objects.get(task=task))
    assert job.status == "done", job.error
    binary = "".join(
        f"{t} 0 {d} 1\n" for t, d in (line.split() for line in relevant_only.splitlines())
    )
    want = expected_rows(tmp_path, binary, ["rrf"], [10])[0]
    assert (job.rows[0]["judgments"], job.rows[0]["relevant"]) == (
        want["judgments"],
        want["relevant"],
    )
    assert sorted(job.grades) == sorted(TOPICS)

    # Nothing judged yet: the judgments so far are refused with a reason, nothing queued.
    refused = organizer.post(
        url, {"source": "judgments", "strategies": "rrf", "seed": "0", "pool_runs": POOL_RUNS}
    )
    assert refused.status_code == 400
    assert "no judgment" in refused.content.decode()
    bad = organizer.post(
        url,
        {
            "source": "qrels",
            "prior": SimpleUploadedFile("bad.qrels", b"1 0 prio-0001 x\n"),
            "strategies": "rrf",
            "seed": "0",
            "pool_runs": POOL_RUNS,
        },
    )
    assert bad.status_code == 400
    assert re.search(
        r"bad\.qrels: invalid qrels: line 1: grade 'x' is not an integer",
        html.unescape(bad.content.decode()),
    )
    assert PoolPlanJob.objects.filter(task=task).count() == 1


@pytest.mark.worker
def test_a_budget_that_buys_no_judgment_shows_no_tau_when_planned(celery_worker) -> None:
    """One judgment over every topic buys no full level of depth pooling: nothing is judged,
    every run scores 0, and a tau of 0.000 would read as a ranking that disagrees."""
    task = document_task("Plan", FILES)
    organizer = Client()
    organizer.force_login(UserFactory.create(username="org", is_staff=True))
    url = reverse("evaluation:pool-planner", args=[task.pk])
    prior = SimpleUploadedFile("last-year.qrels", prior_qrels().encode())
    data = {"source": "qrels", "prior": prior, "strategies": "depth", "budgets": "1", "seed": "2"}
    data["pool_runs"] = POOL_RUNS
    assert organizer.post(url, data).status_code == 302
    job = wait_for(PoolPlanJob.objects.get(task=task))
    assert job.status == "done", job.error
    assert [(r["strategy"], r["judgments"]) for r in job.rows] == [("depth", 0)]
    table = organizer.get(url).content.decode().split('id="planner-table"', 1)[1]
    row = table.split("</table>", 1)[0].split("<tbody>", 1)[1]
    # tau, tau-AP and the team drop: a dash in each column of each measure.
    assert row.count(">—</td>") == 3 * len(job.measures)
    assert "0.000" not in row


def test_every_refused_field_of_the_plan_form_is_said_on_the_page_when_posted(db) -> None:
    """An empty file, a bad seed or a bad strategy: a 400 that says why, on the page, not
    a silent form (the page renders its fields by hand, so each error must be too)."""
    task = document_task("Plan", FILES)
    organizer = Client()
    organizer.force_login(UserFactory.create(username="org", is_staff=True))
    url = reverse("evaluation:pool-planner", args=[task.pk])
    empty = {"source": "qrels", "prior": SimpleUploadedFile("empty.qrels", b""), "seed": "0"}
    cases = [
        ({**empty, "strategies": "depth"}, "The submitted file is empty."),
        ({"source": "judgments", "strategies": "depth", "seed": "0"}, "Tick at least one run"),
        (
            {"source": "judgments", "strategies": "depth", "seed": "0", "pool_runs": "nope"},
            "nope is not one of the available choices",
        ),
        ({"source": "judgments", "strategies": "depth", "seed": "-1"}, "Seed:"),
        ({"source": "judgments", "strategies": "nope", "seed": "0"}, "nope"),
    ]
    for data, said in cases:
        response = organizer.post(url, data)
        assert response.status_code == 400
        errors = re.findall(r'<p class="error">([^<]+)</p>', response.content.decode())
        assert any(said in html.unescape(e) for e in errors), (data, errors)
    assert not PoolPlanJob.objects.filter(task=task).exists()


@pytest.mark.worker
def test_judged_runs_that_all_tie_show_no_tau_on_the_page_and_null_over_rest(
    celery_worker,
) -> None:
    """Prior judgments with no relevant document: every run scores 0 under every measure,
    judged or not, so no ranking exists to correlate with; the page shows a dash for tau and
    tau-AP (never 0.000) and REST says null."""
    task = document_task("Plan", FILES)
    organizer = Client()
    organizer.force_login(UserFactory.create(username="org", is_staff=True))
    url = reverse("evaluation:pool-planner", args=[task.pk])
    nothing_relevant = re.sub(r" [12]\n", " 0\n", prior_qrels())
    prior = SimpleUploadedFile("last-year.qrels", nothing_relevant.encode())
    data = {"source": "qrels", "prior": prior, "strategies": "rrf", "budgets": "8", "seed": "2"}
    data["pool_runs"] = POOL_RUNS
    assert organizer.post(url, data).status_code == 302
    job = wait_for(PoolPlanJob.objects.get(task=task))
    assert job.status == "done", job.error
    assert [(r["strategy"], r["judgments"]) for r in job.rows] == [("rrf:60", 8)]
    table = organizer.get(url).content.decode().split('id="planner-table"', 1)[1]
    row = table.split("</table>", 1)[0].split("<tbody>", 1)[1]
    # A dash for tau and one for tau-AP, each in its own column, per measure.
    assert "colspan" not in row
    assert row.count(">—</td>") == 2 * len(job.measures)
    cells = re.findall(r'<td class="num">([^<]*)</td>', row)
    assert "0.000" not in cells
    result = reverse("evaluation_api:pool-plan-result", args=[task.pk, job.pk])
    [rest] = organizer.get(result).json()
    assert set(rest["tau"].values()) == set(rest["tau_ap"].values()) == {None}


@pytest.mark.worker
def test_planner_page_pools_from_the_ticked_runs_only_when_some_are_unticked(
    celery_worker, tmp_path: Path
) -> None:
    task = document_task("Plan", FILES)
    organizer = Client()
    organizer.force_login(UserFactory.create(username="org", is_staff=True))
    url = reverse("evaluation:pool-planner", args=[task.pk])
    form = organizer.get(url).content.decode()
    ticked = re.findall(r'name="pool_runs" value="([^"]+)" checked', form)
    assert ticked == POOL_RUNS  # every accepted run, ticked at first
    prior = SimpleUploadedFile("last-year.qrels", prior_qrels().encode())
    data = {"source": "qrels", "prior": prior, "strategies": "rrf", "budgets": "8 20"}
    response = organizer.post(url, {**data, "seed": "2", "pool_runs": ["dense", "rm3"]})
    assert response.status_code == 302
    job = wait_for(PoolPlanJob.objects.get(task=task))
    assert job.status == "done", job.error
    assert job.pool_runs == ["dense", "rm3"]
    want = expected_rows(tmp_path, prior_qrels(), ["rrf"], [8, 20], pool=["dense", "rm3"])
    every = expected_rows(tmp_path, prior_qrels(), ["rrf"], [8, 20])
    got = [(r["budget"], r["judgments"], r["relevant"]) for r in job.rows]
    assert got == [(r["budget"], r["judgments"], r["relevant"]) for r in want]
    assert got != [(r["budget"], r["judgments"], r["relevant"]) for r in every]
    page = html.unescape(organizer.get(url).content.decode())
    assert "Strategies pooled from 2 of the task's runs: dense, rm3." in page
