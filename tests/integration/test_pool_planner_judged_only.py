"""Condensed replay in the pool planner (``simulate_pools --judged-only`` on the page and over
REST): off by default, recorded with the plan, part of what makes two starts the same plan,
shown with the plan, and replayed by a worker with every run cut to its judged documents.

The expected figures of the small case below are worked out by hand in its comments, not by
the planner."""

from __future__ import annotations

import html
import io
import json
import math
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from evaluation.models import PoolPlanJob
from tests.factories.collection import UserFactory
from tests.integration.test_pool_planner_api import organizer, start
from tests.integration.test_pool_planner_page import FILES, POOL_RUNS, wait_for
from tests.integration.test_priority_pools import document_task

# One topic judged: prio-0001 .. prio-0006, four of them relevant; prio-0011 .. 0013 unjudged.
PRIOR = "".join(
    f"1 0 prio-{n:04d} {g}\n" for n, g in ((1, 1), (2, 0), (3, 1), (4, 1), (5, 0), (6, 1))
)
# Each run opens with an unjudged document (scores falling); topic 2 is not in the prior.
RANKED = {
    "alpha": [11, 1, 2, 3],
    "beta": [12, 4, 5],
    "gamma": [13, 2, 6, 5],
}
RUNS = {
    tag: "".join(
        f"1 Q0 prio-{n:04d} {rank} {10 - rank}.0 {tag}\n" for rank, n in enumerate(docs, start=1)
    )
    + f"2 Q0 prio-0020 1 1.0 {tag}\n"
    for tag, docs in RANKED.items()
}
TWO_OVER_ROOT_SIX = 2 / math.sqrt(6)

# Depth-k at budgets 5 and 6, MAP, relevance level 1 (4 relevant in the prior).
#
# Runs whole: depth 1 pools {11, 12, 13} (3 judgments, none relevant); depth 2 would pool 6,
# so budget 5 buys depth 1: every run scores 0 on the reduced qrels, no ranking (tau None).
# Budget 6 buys depth 2: {11, 1, 12, 4, 13, 2}, 2 relevant (1 and 4), share 2/4. AP on the
# reduced qrels (R = 2): alpha 1/2 / 2 = 1/4, beta 1/4, gamma 0; on the prior (R = 4): alpha
# (1/2 + 2/4) / 4 = 1/4, beta 1/8, gamma 1/3 / 4 = 1/12. Pairs: alpha-beta tied on the reduced,
# the other two concordant: tau-b = 2 / sqrt((3 - 1) * 3).
#
# Condensed: alpha [1, 2, 3], beta [4, 5], gamma [2, 6, 5]. Depth 2 pools {1, 2, 4, 5, 6}
# (5 judgments, relevant 1, 4 and 6: share 3/4); depth 3 pools all six (share 1). At budget 5,
# AP on the reduced qrels (R = 3): alpha 1/3, beta 1/3, gamma (1/2) / 3 = 1/6; on the prior
# (R = 4): alpha (1 + 2/3) / 4 = 5/12, beta 1/4, gamma 1/8: again one tie, two concordant,
# tau-b = 2 / sqrt(6). At budget 6 the reduced qrels are the prior: tau 1.
PLAIN = [(5, 3, 0, 0.0, None), (6, 6, 2, 0.5, TWO_OVER_ROOT_SIX)]
CONDENSED = [(5, 5, 3, 0.75, TWO_OVER_ROOT_SIX), (6, 6, 4, 1.0, 1.0)]


def figures(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (r["budget"], r["judgments"], r["relevant"], r["relevant_share"], r["tau"]["map"])
        for r in rows
    ]


def assert_figures(rows: list[dict[str, Any]], want: list[tuple[Any, ...]]) -> None:
    got = figures(rows)
    assert [g[:3] for g in got] == [w[:3] for w in want]
    for g, w in zip(got, want, strict=True):
        assert g[3] == pytest.approx(w[3])
        assert g[4] == (None if w[4] is None else pytest.approx(w[4]))


def prior_upload() -> SimpleUploadedFile:
    return SimpleUploadedFile("shallow.qrels", PRIOR.encode())


def plan_done(client: Client, task_id: int, plan: dict[str, Any]) -> dict[str, Any]:
    url = reverse("evaluation_api:pool-plan", args=[task_id, plan["id"]])
    deadline = time.monotonic() + 120
    while (status := client.get(url).json())["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    assert status["status"] == "done", status["error"]
    return status


@pytest.mark.worker
def test_condensed_plan_finds_what_a_fully_judged_collection_would_when_judged_only(
    celery_worker,
) -> None:
    task = document_task("Plan-Condensed", RUNS)
    client = organizer()
    plans = {}
    for judged_only in (False, True):
        body: dict[str, Any] = {"prior": prior_upload(), "strategies": ["depth"]}
        body |= {"budgets": [5, 6], "measures": ["map"], "judged_only": judged_only}
        started = start(client, task.pk, **body)
        assert started.status_code == 202, started.content
        assert started.json()["judged_only"] is judged_only
        done = plan_done(client, task.pk, started.json())
        assert done["judged_only"] is judged_only
        plans[judged_only] = client.get(done["result"]).json()
    assert_figures(plans[False], PLAIN)
    assert_figures(plans[True], CONDENSED)


def test_simulate_pools_gives_the_hand_figures_when_judged_only_on_the_same_files(
    tmp_path: Path,
) -> None:
    """The command the page's option stands for, on the runs as files: the same figures."""
    (tmp_path / "shallow.qrels").write_text(PRIOR)
    runs = []
    for tag, text in RUNS.items():
        runs.append(tmp_path / f"{tag}.run")
        runs[-1].write_text(text)
    for flags, want in (([], PLAIN), (["--judged-only"], CONDENSED)):
        out = io.StringIO()
        options = ["--strategy", "depth", "--budget", "5", "--budget", "6", "--measure", "map"]
        call_command(
            "simulate_pools",
            *map(str, runs),
            "--qrels",
            str(tmp_path / "shallow.qrels"),
            *options,
            *flags,
            "--format",
            "json",
            stdout=out,
        )
        assert_figures(json.loads(out.getvalue()), want)


def test_judged_only_is_part_of_the_plan_when_a_second_start_joins_or_is_refused(db) -> None:
    task = document_task("Plan-Judged-Busy", FILES)
    client = organizer()
    first = start(client, task.pk)  # not asked: off
    assert first.status_code == 202
    assert first.json()["judged_only"] is False
    same = start(client, task.pk, judged_only="false")
    assert (same.status_code, same.json()["id"], same.json()["joined"]) == (
        200,
        first.json()["id"],
        True,
    )
    other = start(client, task.pk, judged_only="true")
    assert other.status_code == 409
    assert (other.json()["id"], other.json()["judged_only"]) == (first.json()["id"], False)
    PoolPlanJob.objects.filter(task=task).update(status=PoolPlanJob.Status.DONE)
    condensed = start(client, task.pk, judged_only="true")
    assert condensed.status_code == 202
    again = start(client, task.pk, judged_only="true")
    assert (again.status_code, again.json()["id"]) == (200, condensed.json()["id"])
    assert start(client, task.pk).status_code == 409  # the plain plan is another plan
    assert list(
        PoolPlanJob.objects.filter(task=task).order_by("pk").values_list("judged_only", flat=True)
    ) == [False, True]
    listed = client.get(reverse("evaluation_api:pool-plans", args=[task.pk])).json()
    assert [p["judged_only"] for p in listed] == [True, False]


def test_judged_only_is_refused_naming_the_field_when_not_a_boolean_or_the_prior_lists_relevant(
    db,
) -> None:
    """A relevance-only prior lists the relevant documents alone: runs cut to them would hold
    nothing else, so judged documents only is refused for it."""
    task = document_task("Plan-Judged-Bad", FILES)
    client = organizer()
    as_form = start(client, task.pk, judged_only="maybe")
    assert as_form.status_code == 400
    assert list(as_form.json()) == ["judged_only"]
    assert "valid boolean" in as_form.json()["judged_only"][0]
    as_json = client.post(
        reverse("evaluation_api:pool-plans", args=[task.pk]),
        {"source": "judgments", "strategies": ["rrf"], "judged_only": [True]},
        content_type="application/json",
    )
    assert as_json.status_code == 400
    assert list(as_json.json()) == ["judged_only"]
    relevant_only = start(
        client,
        task.pk,
        source="relevant",
        prior=("rel.txt", b"1 prio-0001\n"),
        judged_only="true",
    )
    assert relevant_only.status_code == 400
    assert list(relevant_only.json()) == ["judged_only"]
    assert "a relevance-only file lists the relevant ones alone" in str(relevant_only.json())
    assert not PoolPlanJob.objects.exists()


@pytest.mark.worker
def test_planner_page_replays_condensed_runs_and_says_so_when_the_box_is_ticked(
    celery_worker,
) -> None:
    task = document_task("Plan-Condensed-Page", RUNS)
    client = Client()
    client.force_login(UserFactory.create(username="org", is_staff=True))
    url = reverse("evaluation:pool-planner", args=[task.pk])
    form = html.unescape(client.get(url).content.decode())
    box = form.split('name="judged_only"', 1)[1].split(">", 1)[0]
    assert "checked" not in box  # off by default
    assert "when the prior is a shallow pool, this shows what a fully judged collection" in form

    data = {"source": "qrels", "prior": prior_upload(), "strategies": "depth", "budgets": "5 6"}
    data |= {"seed": "0", "pool_runs": sorted(RUNS), "judged_only": "on"}
    assert client.post(url, data).status_code == 302
    job = wait_for(PoolPlanJob.objects.get(task=task))
    assert job.status == "done", job.error
    assert job.judged_only is True
    # The page's plan keeps the task's official measures; MAP is among them.
    assert_figures(job.rows, CONDENSED)
    page = html.unescape(client.get(url).content.decode())
    assert "judged documents only" in page.split('id="plan-status"', 1)[1].split("</div>", 1)[0]
    beside = page.split('id="plan-judged-only">', 1)[1].split("</p>", 1)[0]
    assert beside.startswith("Judged documents only: every run was cut to the documents")
    table = page.split('id="planner-table"', 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == 1 + 2


def test_planner_page_records_runs_replayed_whole_when_the_box_is_left_unticked(db) -> None:
    task = document_task("Plan-Whole-Page", FILES)
    client = Client()
    client.force_login(UserFactory.create(username="org", is_staff=True))
    url = reverse("evaluation:pool-planner", args=[task.pk])
    data = {"source": "qrels", "prior": prior_upload(), "strategies": "rrf", "seed": "0"}
    assert client.post(url, {**data, "pool_runs": POOL_RUNS}).status_code == 302
    job = PoolPlanJob.objects.get(task=task)
    assert job.judged_only is False
    line = html.unescape(client.get(url).content.decode()).split('id="plan-status"', 1)[1]
    assert "judged documents only" not in line.split("</div>", 1)[0]
