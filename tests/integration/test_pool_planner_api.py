"""The pool planner over REST (organizers): start a plan, poll it, fetch its table in the layout
of ``manage.py simulate_pools --format json``; bad inputs refused naming the field, a huge
prior file refused before it is read, one plan at a time per task (the same plan asked twice
is joined).

The expected table is the planner's on the same runs read from their files
(``planner_input_read``, as ``manage.py simulate_pools`` reads them), not from the database."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.urls import reverse

from config.celery import app as celery_app
from evaluation.models import PoolPlanJob
from pooling.models import Run
from tests.factories.collection import RetrievalTaskFactory, UserFactory
from tests.integration.test_pool_planner_page import FILES, expected_rows, prior_qrels
from tests.integration.test_priority_pools import document_task

LAYOUT = {
    "strategy",
    "budget",
    "judgments",
    "relevant",
    "relevant_share",
    "tau",
    "tau_ap",
    "max_group_drop",
}


def organizer() -> Client:
    client = Client()
    client.force_login(UserFactory.create(username="planner-org", is_staff=True))
    return client


def qrels_upload() -> SimpleUploadedFile:
    return SimpleUploadedFile("last-year.qrels", prior_qrels().encode())


def start(client: Client, task_id: int, **fields: Any) -> Any:
    """POST a plan: the prior qrels, rrf, seed 2, with ``fields`` replaced (None: left out;
    a ``prior`` given as (name, bytes) is uploaded as that file)."""
    body = {"source": "qrels", "prior": qrels_upload(), "strategies": ["rrf"], "seed": 2}
    body.update(fields)
    if isinstance(body["prior"], tuple):
        body["prior"] = SimpleUploadedFile(*body["prior"])
    body = {key: value for key, value in body.items() if value is not None}
    return client.post(reverse("evaluation_api:pool-plans", args=[task_id]), body)


@pytest.mark.worker
def test_plan_is_polled_and_its_table_fetched_in_simulate_pools_layout_when_run_by_a_worker(
    celery_worker, tmp_path: Path
) -> None:
    task = document_task("Plan", FILES)  # the groups expected_rows gives
    client = organizer()
    started = start(client, task.pk, strategies=["depth", "rrf", "mm-ns"], budgets=[8, 20])
    assert started.status_code == 202, started.content
    plan = started.json()
    assert (plan["task"], plan["strategies"], plan["budgets"], plan["seed"]) == (
        task.pk,
        ["depth", "rrf:60", "mm-ns:0.5"],
        [8, 20],
        2,
    )
    assert plan["measures"] == ["map", "P_10", "ndcg_cut_10", "bpref"]  # the task's official
    assert plan["prior_judgments"] == len(prior_qrels().splitlines())
    assert plan["joined"] is False
    url = reverse("evaluation_api:pool-plan", args=[task.pk, plan["id"]])
    deadline = time.monotonic() + 120
    while (status := client.get(url).json())["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    assert status["status"] == "done", status["error"]
    assert (status["steps_done"], status["steps_total"]) == (3, 3)

    rows = client.get(status["result"]).json()
    want = expected_rows(tmp_path, prior_qrels(), ["depth", "rrf", "mm-ns"], [8, 20])
    assert [set(row) for row in rows] == [LAYOUT] * 6
    assert [(r["strategy"], r["budget"], r["judgments"], r["relevant"]) for r in rows] == [
        (r["strategy"], r["budget"], r["judgments"], r["relevant"]) for r in want
    ]
    for got, expected in zip(rows, want, strict=True):
        assert got["relevant_share"] == pytest.approx(expected["relevant_share"])
        assert got["tau"] == pytest.approx(expected["tau"])
        assert got["tau_ap"] == pytest.approx(expected["tau_ap"])
        for name, drop in expected["max_group_drop"].items():
            assert got["max_group_drop"][name]["drop"] == pytest.approx(drop["drop"])
            assert got["max_group_drop"][name]["group"] == drop["group"]


def test_same_plan_is_joined_and_another_refused_when_one_is_still_queued(
    db, django_assert_max_num_queries
) -> None:
    task = document_task("Plan-Busy", FILES)
    client = organizer()
    first = start(client, task.pk)
    assert first.status_code == 202
    plan = first.json()["id"]
    result = reverse("evaluation_api:pool-plan-result", args=[task.pk, plan])
    pending = client.get(result)
    assert pending.status_code == 409
    assert pending.json()["detail"] == f"plan {plan} is pending"

    again = start(client, task.pk)  # a second organizer asking for the same plan
    assert (again.status_code, again.json()["id"], again.json()["joined"]) == (200, plan, True)
    other = start(client, task.pk, seed=5)
    assert other.status_code == 409
    assert other.json()["id"] == plan
    assert f"plan {plan} of" in other.json()["detail"]
    assert "still pending" in other.json()["detail"]
    assert PoolPlanJob.objects.filter(task=task).count() == 1

    PoolPlanJob.objects.filter(pk=plan).update(status=PoolPlanJob.Status.DONE, rows=[])
    assert client.get(result).json() == []
    assert start(client, task.pk, seed=5).status_code == 202  # once done, a new plan starts
    for seed in (6, 7):
        PoolPlanJob.objects.filter(task=task).update(status=PoolPlanJob.Status.DONE)
        assert start(client, task.pk, seed=seed).status_code == 202
    with django_assert_max_num_queries(8):  # the same queries whatever the number of plans
        listed = client.get(reverse("evaluation_api:pool-plans", args=[task.pk])).json()
    assert [(p["id"], p["seed"]) for p in listed][-2:] == [(plan + 1, 5), (plan, 2)]
    assert [p["prior_judgments"] for p in listed] == [len(prior_qrels().splitlines())] * 4


@pytest.mark.worker
def test_two_organizers_clicking_at_once_get_one_plan_when_they_ask_the_same(
    transactional_db,
) -> None:
    task = document_task("Plan-Race", FILES)
    clients = [organizer(), Client()]
    clients[1].force_login(UserFactory.create(username="second-org", is_staff=True))
    barrier = threading.Barrier(2)
    answers: list[Any] = [None, None]

    def click(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            answers[index] = start(clients[index], task.pk)
        finally:
            connection.close()

    try:
        threads = [threading.Thread(target=click, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert sorted(a.status_code for a in answers) == [200, 202]
        assert answers[0].json()["id"] == answers[1].json()["id"]
        assert PoolPlanJob.objects.filter(task=task).count() == 1
    finally:
        celery_app.control.purge()  # no worker here: the queued plan is not left for another


BAD = b"1 0 prio-0001 x\n"


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"strategies": ["nope"]}, "strategies", "unknown strategy 'nope'"),
        ({"strategies": ["mtf:3"]}, "strategies", "takes no parameter"),
        ({"budgets": [0]}, "budgets", "greater than or equal to 1"),
        ({"budgets": list(range(1, 14))}, "budgets", "no more than 12"),
        ({"measures": ["map", "no_such"]}, "measures", "no_such"),
        ({"seed": -1}, "seed", "greater than or equal to 0"),
        ({"source": "guess"}, "source", '"guess" is not a valid choice'),
        ({"prior": None}, "prior", "a qrels prior needs its file"),
        ({"source": "judgments"}, "prior", "the judgments so far take no file"),
        ({"source": "judgments", "prior": None}, "source", "hold no judgment"),
        ({"prior": ("bad.qrels", BAD)}, "prior", "bad.qrels: invalid qrels: line 1"),
        ({"prior": ("latin.qrels", b"1 0 caf\xe9 1\n")}, "prior", "latin.qrels: not UTF-8"),
        (
            {"source": "relevant", "prior": ("rel.txt", b"1 a b\n")},
            "prior",
            "rel.txt, line 1: expected 'topic docno'",
        ),
        (
            {"prior": ("other.qrels", b"99 0 prio-0001 1\n")},
            "prior",
            "the prior judgments name none of the 2 topics",
        ),
    ],
)
def test_bad_input_is_refused_naming_its_field_when_a_plan_is_started(
    db, fields: dict[str, Any], field: str, message: str
) -> None:
    task = document_task("Plan-Bad", FILES)
    response = start(organizer(), task.pk, **fields)
    assert response.status_code == 400, response.content
    errors = response.json()[field]
    text = str(errors)
    assert message in text, errors
    assert not PoolPlanJob.objects.exists()


def test_huge_prior_file_is_refused_before_it_is_read_when_past_the_bound(db, settings) -> None:
    # The qrels import's bound (a prior is a qrels file), lowered so the test sends 3 MB.
    settings.QRELS_FILE_MAX_BYTES = 2 * 2**20
    task = document_task("Plan-Huge", FILES)
    line = b"1 0 prio-0001 1\n"
    huge = SimpleUploadedFile("huge.qrels", line * (settings.QRELS_FILE_MAX_BYTES // len(line) + 1))
    began = time.monotonic()
    response = start(organizer(), task.pk, prior=huge)
    assert response.status_code == 400
    [error] = response.json()["prior"]
    assert error.startswith(f"huge.qrels: {huge.size:,} bytes, larger than the 2 MB")
    assert not PoolPlanJob.objects.exists()
    assert time.monotonic() - began < 60


def test_planner_endpoints_are_for_organizers_and_document_tasks_when_asked(db) -> None:
    task = document_task("Plan-Who", FILES)
    answers = RetrievalTaskFactory.create()
    assessor = Client()
    assessor.force_login(UserFactory.create(username="assessor"))
    plans = reverse("evaluation_api:pool-plans", args=[task.pk])
    assert assessor.get(plans).status_code == 403
    assert start(assessor, task.pk).status_code == 403
    assert Client().get(plans).status_code in (401, 403)
    client = organizer()
    assert client.get(reverse("evaluation_api:pool-plans", args=[answers.pk])).status_code == 404
    assert client.get(reverse("evaluation_api:pool-plan", args=[task.pk, 999])).status_code == 404
    as_json = client.post(  # a JSON body: the judgments so far, of which there are none yet
        plans, {"source": "judgments", "budgets": [5]}, content_type="application/json"
    )
    assert as_json.status_code == 400
    assert as_json.json() == {"source": ["the prior judgments hold no judgment"]}
    every = start(client, task.pk, strategies=None)  # none named: all seven
    assert every.status_code == 202
    assert every.json()["strategies"] == [
        "depth",
        "rrf:60",
        "rbp:0.9",
        "mtf",
        "mm",
        "mm-ns:0.5",
        "hybrid:20",
    ]
    plan = every.json()["id"]
    other = document_task("Plan-Other", FILES)
    # A plan is read through its own task only.
    assert client.get(reverse("evaluation_api:pool-plan", args=[other.pk, plan])).status_code == 404
    assert not PoolPlanJob.objects.filter(task=other).exists()


@pytest.mark.worker
def test_plan_pools_from_the_named_runs_and_says_so_when_pool_runs_given(
    celery_worker, tmp_path: Path
) -> None:
    task = document_task("Plan", FILES)
    client = organizer()
    started = start(client, task.pk, budgets=[8, 20], pool_runs=["splade", "bm25", "bm25"])
    assert started.status_code == 202, started.content
    plan = started.json()
    assert plan["pool_runs"] == ["bm25", "splade"]  # sorted, once each
    url = reverse("evaluation_api:pool-plan", args=[task.pk, plan["id"]])
    deadline = time.monotonic() + 120
    while (status := client.get(url).json())["status"] not in ("done", "failed"):
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    assert status["status"] == "done", status["error"]
    assert status["pool_runs"] == ["bm25", "splade"]
    rows = client.get(status["result"]).json()
    want = expected_rows(tmp_path, prior_qrels(), ["rrf"], [8, 20], pool=["bm25", "splade"])
    assert [(r["budget"], r["judgments"], r["relevant"]) for r in rows] == [
        (r["budget"], r["judgments"], r["relevant"]) for r in want
    ]
    for got, expected in zip(rows, want, strict=True):
        assert got["tau"] == pytest.approx(expected["tau"])


def test_pool_runs_are_part_of_the_plan_when_a_second_start_joins_or_is_refused(db) -> None:
    task = document_task("Plan-Pool-Busy", FILES)
    client = organizer()
    first = start(client, task.pk)  # none named: every accepted run, recorded by name
    assert first.status_code == 202
    assert first.json()["pool_runs"] == sorted(FILES)
    same = start(client, task.pk, pool_runs=sorted(FILES, reverse=True))
    assert (same.status_code, same.json()["joined"]) == (200, True)
    other = start(client, task.pk, pool_runs=["bm25"])
    assert other.status_code == 409
    assert other.json()["pool_runs"] == sorted(FILES)  # the plan that runs
    assert PoolPlanJob.objects.filter(task=task).count() == 1


def test_pool_runs_are_refused_naming_the_field_when_not_the_tasks_accepted_runs(db) -> None:
    task = document_task("Plan-Pool-Bad", FILES)
    document_task("Plan-Elsewhere", {"elsewhere": FILES["bm25"].replace(" bm25\n", " elsewhere\n")})
    Run.objects.filter(task=task, tag="rm3").update(status=Run.Status.WITHDRAWN)
    client = organizer()
    cases = [
        (["bm25", "nope"], "Plan-Pool-Bad document has no run 'nope'"),
        (["elsewhere"], "run 'elsewhere' is a run of Plan-Elsewhere document, not of"),
        (["rm3"], "run 'rm3' of Plan-Pool-Bad document is withdrawn, not accepted"),
    ]
    for names, message in cases:
        response = start(client, task.pk, pool_runs=names)
        assert response.status_code == 400, response.content
        assert list(response.json()) == ["pool_runs"]
        assert message in response.json()["pool_runs"][0], response.json()
    plans = reverse("evaluation_api:pool-plans", args=[task.pk])
    empty = client.post(
        plans,
        {"source": "judgments", "strategies": ["rrf"], "pool_runs": []},
        content_type="application/json",
    )
    assert empty.status_code == 400
    assert list(empty.json()) == ["pool_runs"]
    assert not PoolPlanJob.objects.exists()
