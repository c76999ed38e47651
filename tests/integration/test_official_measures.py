"""Official measures per task, and document tasks evaluated by docno: the job, the results page
and downloads, the settings form, REST and admin. Expected values come from pytrec_eval alone."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest
import pytrec_eval
from django.test import Client

from collection.models import DocumentCollection, RetrievalTask
from evaluation.models import EvaluationJob, EvaluationResult
from evaluation.services import evaluation_job_run, qrels_export, qrels_import
from tests.factories import (
    RetrievalTaskFactory,
    RunFactory,
    RunRowFactory,
    TeamFactory,
    TopicFactory,
    UserFactory,
)
from tests.integration.evaluation_data import judged_answer_task

pytestmark = pytest.mark.django_db
TOL = 1e-12


def document_task(seed: int = 7) -> tuple[RetrievalTask, dict, dict[str, dict]]:
    """A document task with graded qrels of string docnos and three runs (ties, unjudged docs,
    a topic missing from one run), stored as Run + RunRow(docno=...)."""
    rng = random.Random(seed)
    collection = DocumentCollection.objects.create(name=f"news-{seed}")
    task = RetrievalTaskFactory.create(
        kind=RetrievalTask.Kind.DOCUMENT, collection=collection, relevance_level=1
    )
    numbers = ["301", "302", "303", "304"]
    topics = {n: TopicFactory.create(task=task, number=n) for n in numbers}
    docnos = [f"FT{rng.randrange(10**6):06d}-{i}" for i in range(40)]
    qrels = {n: {d: rng.choice([0, 0, 1, 2]) for d in rng.sample(docnos, 12)} for n in numbers}
    runs: dict[str, dict] = {}
    for team in ("Alpha", "Beta", "Gamma"):
        run = RunFactory.create(task=task, team=TeamFactory.create(name=team), tag=team.lower())
        ranking: dict[str, dict[str, float]] = {}
        for number in numbers[: 3 if team == "Gamma" else 4]:
            docs = rng.sample(docnos, 20)
            ranking[number] = {d: float(rng.choice([1, 2, 2, 3, 4])) for d in docs}  # ties
            for rank, doc in enumerate(docs, 1):
                RunRowFactory.create(
                    run=run,
                    topic=topics[number],
                    post_id=None,
                    docno=doc,
                    rank=rank,
                    score=ranking[number][doc],
                )
        runs[str(run.pk)] = ranking
    text = "".join(f"{t}\t0\t{d}\t{g}\n" for t, docs in qrels.items() for d, g in docs.items())
    qrels_import(task=task, text=text, label="official")
    return task, qrels, runs


def trec_eval_c(qrels: dict, run: dict, keys: list[str], level: int) -> dict[str, float]:
    """trec_eval -c from pytrec_eval: missing topics on an empty ranking, pytrec_eval's summary."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(keys), relevance_level=level)
    found = evaluator.evaluate({t: run.get(t, {}) for t in qrels})
    return {
        k: pytrec_eval.compute_aggregated_measure(k, [found[t][k] for t in sorted(qrels)])
        for k in keys
    }


def run_job(task: RetrievalTask) -> EvaluationJob:
    qrels = task.qrels_versions.get()
    job = EvaluationJob.objects.create(task=task, qrels=qrels, average=task.average, seed=1)
    return evaluation_job_run(job=job)


def test_document_runs_score_kind_defaults_by_docno_when_no_official_measures() -> None:
    task, qrels, runs = document_task()
    job = run_job(task)
    assert job.status == EvaluationJob.Status.DONE, job.error
    keys = ["map", "P_10", "ndcg_cut_10", "bpref"]
    for result in EvaluationResult.objects.filter(qrels__task=task):
        expected = trec_eval_c(qrels, runs[str(result.run_id)], keys, level=1)
        for key in keys:
            assert result.measures[key] == pytest.approx(expected[key], abs=TOL), key
    assert set(job.significance["measures"]) == set(keys)
    assert {entry["team"] for entry in job.reusability} == {"Alpha", "Beta", "Gamma"}


def test_official_measures_score_every_result_when_task_sets_them() -> None:
    task, qrels, runs = document_task(seed=11)
    task.official_measures = ["nDCG@10", "AP(rel=2)", "num_rel", "gm_map"]
    task.save()
    run_job(task)
    gamma = EvaluationResult.objects.get(run__tag="gamma")
    # Gamma lacks topic 304: trec_eval -c still counts its relevant documents.
    assert gamma.measures["num_rel"] == sum(g >= 1 for d in qrels.values() for g in d.values())
    expected = trec_eval_c(qrels, runs[str(gamma.run_id)], ["gm_map"], level=1)
    assert gamma.measures["gm_map"] == pytest.approx(expected["gm_map"], abs=TOL)
    expected = trec_eval_c(qrels, runs[str(gamma.run_id)], ["map", "ndcg_cut_10"], level=2)
    assert gamma.measures["AP(rel=2)"] == pytest.approx(expected["map"], abs=TOL)
    assert gamma.measures["nDCG@10"] == pytest.approx(expected["ndcg_cut_10"], abs=TOL)
    assert "304" not in gamma.per_topic
    job = EvaluationJob.objects.get(task=task)
    assert set(job.significance["measures"]) == set(task.official_measures)
    after = {r["label"]: r["after"] for entry in job.reusability for r in entry["runs"]}
    assert set(after["Gamma/gamma"]) == set(task.official_measures)


def test_results_page_and_downloads_show_official_measures_when_set() -> None:
    task, _, _ = document_task(seed=3)
    task.official_measures = ["P_5", "nDCG@10"]
    task.save()
    run_job(task)
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    page = client.get(f"/results/{task.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Official measures: P_5, nDCG@10" in html
    assert html.lower().count("unjudged results count as not relevant") == 1  # said once
    assert '<option value="nDCG@10"' in html
    results = {r.run.tag: r.measures for r in EvaluationResult.objects.select_related("run")}
    body = client.get(f"/results/{task.pk}/download/csv/").content.decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    assert [float(r["P_5"]) for r in rows] == sorted(
        (m["P_5"] for m in results.values()), reverse=True
    )
    for row in rows:
        tag = row["run"].split("/")[1]
        assert float(row["nDCG@10"]) == pytest.approx(results[tag]["nDCG@10"], abs=TOL)
    data = json.loads(client.get(f"/results/{task.pk}/download/json/").content)
    assert {r["tag"]: r["P_5"] for r in data} == {t: m["P_5"] for t, m in results.items()}
    latex = client.get(f"/results/{task.pk}/download/latex/").content.decode()
    assert "Run & P\\_5 & nDCG@10" in latex


def test_arqmath_task_keeps_prime_measures_when_official_measures_empty() -> None:
    data = judged_answer_task()
    qrels = qrels_export(task=data.task)
    job = EvaluationJob.objects.create(task=data.task, qrels=qrels)
    evaluation_job_run(job=job)
    measures = EvaluationResult.objects.get(run=data.alpha).measures
    assert {"ndcg_prime", "map_prime", "p10_prime"} <= set(measures)
    assert set(job.significance["measures"]) == {"ndcg_prime", "map_prime", "p10_prime"}


def test_answer_task_scores_named_measures_when_official_measures_set() -> None:
    data = judged_answer_task()
    data.task.official_measures = ["P(rel=2,judged_only=True)@10", "map"]
    data.task.save()
    qrels = qrels_export(task=data.task)
    job = EvaluationJob.objects.create(task=data.task, qrels=qrels)
    evaluation_job_run(job=job)
    alpha = EvaluationResult.objects.get(run=data.alpha).measures
    prime_p10 = (2 / 10 + 2 / 10) / 2  # A.1: 101, 103 judged relevant; A.2: 202, 201
    assert alpha["P(rel=2,judged_only=True)@10"] == pytest.approx(prime_p10)
    assert "ndcg_prime" not in alpha


def staff_client() -> Client:
    client = Client()
    client.force_login(UserFactory.create(is_staff=True, is_superuser=True))
    return client


def test_settings_form_refuses_unknown_measure_when_saved() -> None:
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    client = staff_client()
    url = f"/results/{task.pk}/qrels/"
    page = client.post(url, {"action": "measures", "official_measures": "map\nnDCG@ten"})
    assert page.status_code == 200
    assert "unknown measure &#x27;nDCG@ten&#x27;" in page.content.decode()
    task.refresh_from_db()
    assert task.official_measures == []
    page = client.post(url, {"action": "measures", "official_measures": "map\nP.5,10\n\nmap"})
    assert page.status_code == 302
    task.refresh_from_db()
    assert task.official_measures == ["map", "P.5,10"]


def test_rest_sets_official_measures_and_names_bad_one_when_put() -> None:
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.FORMULA)
    client = staff_client()
    url = f"/api/tasks/{task.pk}/measures/"
    got = client.get(url).json()
    assert got["official_measures"] == []
    assert got["scored_with"] is None
    bad = client.put(url, {"official_measures": ["map", "bogus"]}, content_type="application/json")
    assert bad.status_code == 400
    assert "unknown measure 'bogus'" in bad.json()["official_measures"][0]
    good = client.put(
        url, {"official_measures": ["ndcg", "Judged@10"]}, content_type="application/json"
    )
    assert good.status_code == 200
    assert good.json()["scored_with"] == ["ndcg", "Judged@10"]
    task.refresh_from_db()
    assert task.official_measures == ["ndcg", "Judged@10"]
    openqa = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.OPENQA)
    refused = client.put(
        f"/api/tasks/{openqa.pk}/measures/",
        {"official_measures": ["map"]},
        content_type="application/json",
    )
    assert refused.status_code == 400
    participant = Client()
    participant.force_login(UserFactory.create())
    assert participant.get(url).status_code == 403


def test_admin_refuses_unknown_measure_when_task_changed() -> None:
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    client = staff_client()
    url = f"/admin/collection/retrievaltask/{task.pk}/change/"
    form = client.get(url).context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None}
    data |= {"campaign": task.campaign_id, "official_measures": '["map", "P_x"]'}
    data = {k: v for k, v in data.items() if k not in ("answer_task", "collection")}
    page = client.post(url, data)
    assert page.status_code == 200
    assert "unknown measure" in page.content.decode()
    task.refresh_from_db()
    assert task.official_measures == []
