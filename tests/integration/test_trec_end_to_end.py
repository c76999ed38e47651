"""A TREC-style campaign end to end ("Done when"), as its organizer, participants and
assessors would run it, with a small collection the project generates (demo.synthetic.trec):

TREC SGML documents, a TREC topic file with narratives and TREC runs of three teams are
imported (documents and topics by their commands, runs over the REST upload API); the pools are
built by a real Celery worker; every pool item is judged over the REST judging API; the qrels
are exported over REST; a worker evaluates every run. The stored measures must equal
pytrec_eval's, computed here straight from the exported qrels text and the run files.
"""

from __future__ import annotations

import io
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytrec_eval
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.test import APIClient

from assessment.models import Assignment
from assessment.services.guidelines import guidelines_save
from collection.models import Document, RetrievalTask
from demo.synthetic.trec import TrecCampaignFiles, generate_trec, read_qrels
from demo.trec_campaign import SCALE
from evaluation.models import EvaluationJob, QrelsVersion
from evaluation.services import evaluation_job_start
from pooling.models import PoolItem, Run, Team
from pooling.services.runs import token_create

pytestmark = [pytest.mark.worker]

CAMPAIGN, COLLECTION = "TREC end to end", "e2e-news"
MEASURES = ["map", "P_10", "ndcg_cut_10", "recip_rank"]
DEPTH = {"primary": 12, "alternate": 6}


def _wait(condition: Callable[[], bool], what: str, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def _client(user: User, *, token: bool = False) -> APIClient:
    client = APIClient()
    if token:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=user).key}")
    else:
        client.force_login(user)
    return client


def _import(files: TrecCampaignFiles) -> RetrievalTask:
    out = io.StringIO()
    call_command(
        "import_documents", str(files.documents), collection=COLLECTION, format="trec", stdout=out
    )
    call_command(
        "import_topics",
        str(files.topics),
        campaign=CAMPAIGN,
        task="document",
        collection=COLLECTION,
        format="trec",
        stdout=out,
    )
    task = RetrievalTask.objects.get(campaign__name=CAMPAIGN, kind="document")
    assert Document.objects.filter(collection__name=COLLECTION).count() == files.document_count
    topics = {t.number: t for t in task.topics.all()}
    assert set(topics) == set(files.topic_numbers)
    assert all(t.description and "not relevant" in t.narrative for t in topics.values())
    return task


def _organize(task: RetrievalTask, organizer: User) -> None:
    """The organizer's settings: a 0-2 scale relevant from 1, shallow pools, every topic kept,
    means over every qrels topic (trec_eval -c), the official measures."""
    guidelines_save(
        task=task,
        instructions="Judge the document.",
        scale=SCALE,
        relevance_level=1,
        created_by=organizer,
    )
    task.refresh_from_db()
    task.primary_depth, task.alternate_depth = DEPTH["primary"], DEPTH["alternate"]
    task.min_relevant = 0
    task.average = RetrievalTask.Average.ALL
    task.official_measures = MEASURES
    task.save()


def _upload_runs(task: RetrievalTask, files: TrecCampaignFiles) -> None:
    """Each team's participant uploads its runs over REST with a token."""
    for run_file in files.runs:
        team, _ = Team.objects.get_or_create(name=run_file.team)
        member, _ = User.objects.get_or_create(username=f"{run_file.team.lower()}-member")
        team.members.add(member)
        upload = SimpleUploadedFile(run_file.path.name, run_file.path.read_bytes())
        body = {"file": upload, "task": task.pk, "tag": run_file.tag, "role": run_file.role}
        response = _client(member, token=True).post("/api/runs/", body, format="multipart")
        assert response.status_code == 201, response.json()
    assert Run.objects.filter(task=task).count() == len(files.runs)


def _expected_pool(task: RetrievalTask, files: TrecCampaignFiles) -> dict[str, set[str]]:
    """Oracle: each run's first depth documents by rank (the files have unique ranks)."""
    expected: dict[str, set[str]] = defaultdict(set)
    for run_file in files.runs:
        depth = DEPTH[run_file.role]
        for line in run_file.path.read_text().splitlines():
            topic, _q0, docno, rank, _score, _tag = line.split()
            if int(rank) <= depth:
                expected[topic].add(docno)
    return dict(expected)


def _build_pools(task: RetrievalTask, organizer: APIClient, files: TrecCampaignFiles) -> None:
    response = organizer.post(f"/api/pools/{task.pk}/build/")
    assert response.status_code == 202, response.json()

    def done() -> bool:
        status = organizer.get(f"/api/pools/{task.pk}/build/").json()["status"]
        assert status != "failed"
        return bool(status == "done")

    _wait(done, "the pool build")
    stored: dict[str, set[str]] = defaultdict(set)
    for number, key in PoolItem.objects.filter(topic__task=task).values_list(
        "topic__number", "key"
    ):
        stored[number].add(key)
    assert dict(stored) == _expected_pool(task, files)


def _assign(task: RetrievalTask, organizer: APIClient) -> str:
    """alice and bob share the topics; carl dual-assesses the first. Returns that topic."""
    for name in ("alice", "bob", "carl"):
        User.objects.create_user(username=name)
    url = f"/api/organize/tasks/{task.pk}/assignments/"
    balance = {"action": "balance", "assessors": ["alice", "bob"]}
    response = organizer.post(url, balance, format="json")
    assert response.status_code == 201, response.json()
    first = task.topics.order_by("number").first()
    assert first is not None
    dual = {"action": "dual", "assessors": ["carl"], "topics": [first.number], "seed": 1}
    response = organizer.post(url, dual, format="json")
    assert response.status_code == 201, response.json()
    return first.number


def _judge_everything(task: RetrievalTask, truth: dict[tuple[str, str], int]) -> dict:
    """Every assessor judges every item of each assignment over REST. The official grade is
    the true one except for one docno in five (assessors are not the generator); the dual
    assessor says the opposite. Returns the official grades, (topic, docno) -> grade."""
    official: dict[tuple[str, str], int] = {}
    for assignment in Assignment.objects.filter(topic__task=task).select_related(
        "topic", "assessor"
    ):
        client = _client(assignment.assessor)
        items = PoolItem.objects.filter(topic=assignment.topic).prefetch_related("hits")
        state: dict[str, Any] = {}
        for item in items.order_by("display_order"):
            number, docno = assignment.topic.number, item.key
            grade = truth.get((number, docno), 0)
            if int(docno[-1]) % 5 == 0:
                grade = (grade + 1) % 3
            if assignment.purpose == Assignment.Purpose.DUAL:
                grade = 2 - grade
            else:
                official[(number, docno)] = grade
            body = {
                "judgments": [{"hit": hit.pk, "grade": grade} for hit in item.hits.all()],
                "active_seconds": 4.5,
                "client_token": f"{assignment.pk}-{item.pk}",
            }
            url = f"/api/assignments/{assignment.pk}/items/{item.pk}/judgments/"
            response = client.post(url, body, format="json")
            assert response.status_code == 200, response.json()
            state = response.json()
        assert state["judged_items"] == state["total_items"] > 0
        assert state["next_unjudged_url"] is None
    return official


def _export_qrels(task: RetrievalTask, organizer: APIClient) -> tuple[int, str]:
    response = organizer.post("/api/qrels/", {"task": task.pk}, format="json")
    assert response.status_code == 201, response.json()
    version = response.json()["id"]
    download = organizer.get(f"/api/qrels/{version}/download/")
    assert download.status_code == 200
    return version, download.content.decode()


def _parse_qrels(text: str) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in text.splitlines():
        topic, _iteration, docno, grade = line.split()
        qrels[topic][docno] = int(grade)
    return dict(qrels)


def _run_scores(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        topic, _q0, docno, _rank, score, _tag = line.split()
        run[topic][docno] = float(score)
    return dict(run)


def _stored(values: dict[str, Any], measure: str, where: str) -> float:
    assert measure in values, f"{where}: no {measure} among {sorted(values)}"
    return float(values[measure])


def test_trec_campaign_scores_equal_pytrec_eval_when_every_pool_item_is_judged_over_rest(
    tmp_path: Path, celery_worker: Any
) -> None:
    files = generate_trec(
        tmp_path, seed=13, documents=80, topics=4, depth=30, judge_depth=10, gzip_documents=True
    )
    task = _import(files)
    organizer = User.objects.create_user(username="org", is_staff=True)
    _organize(task, organizer)
    _upload_runs(task, files)
    organizer_api = _client(organizer)
    _build_pools(task, organizer_api, files)
    dual_topic = _assign(task, organizer_api)
    official = _judge_everything(task, read_qrels(files.truth))

    version, text = _export_qrels(task, organizer_api)
    qrels = _parse_qrels(text)
    # Official grades win over the dual assessor's; every pool item is in the qrels.
    assert {(t, d): g for t, grades in qrels.items() for d, g in grades.items()} == official
    assert dual_topic in qrels

    job = evaluation_job_start(task=task, qrels=QrelsVersion.objects.get(pk=version))
    _wait(
        lambda: EvaluationJob.objects.get(pk=job.pk).status in {"done", "failed"},
        "the evaluation",
    )
    job.refresh_from_db()
    assert job.status == "done", job.error

    page = organizer_api.get(f"/api/results/?task={task.pk}&qrels={version}").json()
    by_tag = {result["tag"]: result for result in page["results"]}
    assert set(by_tag) == {run.tag for run in files.runs}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES), relevance_level=1)
    for run_file in files.runs:
        per_topic = evaluator.evaluate(_run_scores(run_file.path))
        stored = by_tag[run_file.tag]
        for measure in MEASURES:
            # trec_eval -c: the mean over every qrels topic, a topic missing from the run 0.
            expected = sum(values[measure] for values in per_topic.values()) / len(qrels)
            where = f"{run_file.tag} {measure}"
            assert _stored(stored["measures"], measure, where) == pytest.approx(
                expected, abs=1e-12
            ), where
            for topic, values in per_topic.items():
                got = _stored(stored["per_topic"][topic], measure, f"{where} topic {topic}")
                assert got == pytest.approx(values[measure], abs=1e-12), (where, topic)
    # The runs differ, and the one that leaves a topic out is scored over every topic.
    assert len({round(by_tag[r.tag]["measures"]["map"], 6) for r in files.runs}) > 1
    assert any(len(_run_scores(r.path)) < len(qrels) for r in files.runs)
