"""A campaign with two document tasks (two TREC tracks of one conference) end to end, named by
their names: topics imported into each, runs uploaded to each over REST, pools built, a
machine judge's grades imported, qrels exported and every run evaluated. Nothing crosses:
the two tasks share topic numbers and docnos, so any lookup by campaign and kind would mix
them. A kind that names several tasks is refused with their names."""

from __future__ import annotations

import io
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import pytrec_eval
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from collection.models import RetrievalTask
from demo.synthetic.trec import TrecCampaignFiles, generate_trec
from evaluation.models import EvaluationJob, EvaluationResult, QrelsVersion
from evaluation.services import evaluation_job_run
from pooling.models import PoolItem, Run, Team

pytestmark = pytest.mark.django_db

CAMPAIGN = "TREC 2026"
TRACKS = {"news-a": 21, "news-b": 22}  # task name -> the seed of its synthetic track
DEPTH = 8


def _command(*args: str, **options: Any) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO(), **options)
    return out.getvalue()


def _track(tmp_path: Path, name: str, seed: int) -> TrecCampaignFiles:
    files = generate_trec(
        tmp_path / name, seed=seed, documents=60, topics=3, teams=2, depth=20, judge_depth=15
    )
    _command("import_documents", str(files.documents), collection=name, format="trec")
    _command(
        "import_topics",
        str(files.topics),
        campaign=CAMPAIGN,
        task=name,
        kind="document",
        collection=name,
        format="trec",
    )
    task = RetrievalTask.objects.get(campaign__name=CAMPAIGN, name=name)
    task.primary_depth = task.alternate_depth = DEPTH
    task.official_measures = ["map"]
    task.save()
    return files


def _upload(task: RetrievalTask, files: TrecCampaignFiles, *, by_name: bool) -> None:
    """Each team uploads over REST, naming the task by campaign and name, or by its id."""
    for run_file in files.runs:
        team, _ = Team.objects.get_or_create(name=run_file.team)
        member, _ = User.objects.get_or_create(username=f"{run_file.team.lower()}-member")
        team.members.add(member)
        client = APIClient()
        client.force_login(member)
        named = {"task": task.name, "campaign": CAMPAIGN} if by_name else {"task": task.pk}
        body = {
            "file": SimpleUploadedFile(run_file.path.name, run_file.path.read_bytes()),
            "tag": run_file.tag,
            "role": run_file.role,
            **named,
        }
        response = client.post("/api/runs/", body, format="multipart")
        assert response.status_code == 201, response.json()
        assert response.json()["run"]["task_name"] == task.name


def _upload_refused_when_the_task_is_ambiguous(files: TrecCampaignFiles) -> None:
    run_file = files.runs[0]
    team, _ = Team.objects.get_or_create(name=run_file.team)
    member, _ = User.objects.get_or_create(username=f"{run_file.team.lower()}-member")
    team.members.add(member)
    client = APIClient()
    client.force_login(member)
    for named, field, message in (
        ({"task": "document", "campaign": CAMPAIGN}, "task", "news-a (document), news-b"),
        ({"task": "news-a"}, "campaign", "name the campaign"),
        ({"task": "news-c", "campaign": CAMPAIGN}, "task", "no task named 'news-c'"),
    ):
        body = {
            "file": SimpleUploadedFile(run_file.path.name, run_file.path.read_bytes()),
            "tag": run_file.tag,
            "role": run_file.role,
            **named,
        }
        response = client.post("/api/runs/", body, format="multipart")
        assert response.status_code == 400, response.json()
        assert message in " ".join(response.json()[field]), response.json()
    assert not Run.objects.exists()


def _rows(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = defaultdict(dict)
    for line in path.read_text().splitlines():
        topic, _q0, docno, _rank, score, _tag = line.split()
        run[topic][docno] = float(score)
    return dict(run)


def _pooled_oracle(files: TrecCampaignFiles) -> dict[str, set[str]]:
    """Each run's first DEPTH documents by rank (the synthetic runs have unique ranks)."""
    expected: dict[str, set[str]] = defaultdict(set)
    for run_file in files.runs:
        for line in run_file.path.read_text().splitlines():
            topic, _q0, docno, rank, _score, _tag = line.split()
            if int(rank) <= DEPTH:
                expected[topic].add(docno)
    return dict(expected)


def _qrels(text: str) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in text.splitlines():
        topic, _iteration, docno, grade = line.split()
        qrels[topic][docno] = int(grade)
    return dict(qrels)


def test_two_document_tasks_of_one_campaign_stay_apart_from_topics_to_scores(
    tmp_path: Path,
) -> None:
    tracks = {name: _track(tmp_path, name, seed) for name, seed in TRACKS.items()}
    tasks = {t.name: t for t in RetrievalTask.objects.filter(campaign__name=CAMPAIGN)}
    assert set(tasks) == set(TRACKS)
    assert {t.kind for t in tasks.values()} == {"document"}
    numbers = [set(t.topics.values_list("number", flat=True)) for t in tasks.values()]
    assert numbers[0] == numbers[1]  # the same topic numbers in both tracks: a trap for lookups

    # A kind no longer names a task when two share it: the error lists their names.
    with pytest.raises(CommandError, match=r"2 document tasks.*news-a \(document\), news-b"):
        _command("build_pools", campaign=CAMPAIGN, task="document")
    with pytest.raises(CommandError, match=r"news-a.*news-b"):
        _command(
            "import_topics",
            str(tracks["news-a"].topics),
            campaign=CAMPAIGN,
            task="document",
            collection="news-a",
        )

    _upload_refused_when_the_task_is_ambiguous(tracks["news-a"])
    _upload(tasks["news-a"], tracks["news-a"], by_name=True)
    _upload(tasks["news-b"], tracks["news-b"], by_name=False)
    for name, task in tasks.items():
        tags = set(Run.objects.filter(task=task).values_list("tag", flat=True))
        assert tags == {r.tag for r in tracks[name].runs}

    versions: dict[str, QrelsVersion] = {}
    for name, files in tracks.items():
        _command("build_pools", campaign=CAMPAIGN, task=name)
        stored: dict[str, set[str]] = defaultdict(set)
        for number, key, collection in PoolItem.objects.filter(topic__task=tasks[name]).values_list(
            "topic__number", "key", "document__collection__name"
        ):
            stored[number].add(key)
            assert collection == name  # the item shows a document of its own track
        assert dict(stored) == _pooled_oracle(files)
        judge = files.runs[0].path.parent.parent / "judges" / "llm-demo.qrels"
        _command(
            "import_judge",
            str(judge),
            campaign=CAMPAIGN,
            task=name,
            name="llm",
            counts_in_qrels=True,
        )
        out = tmp_path / f"{name}.qrels"
        _command("export_qrels", campaign=CAMPAIGN, task=name, out=str(out))
        versions[name] = QrelsVersion.objects.filter(task=tasks[name]).latest("id")
        qrels = _qrels(out.read_text())
        # Every judged pair of this track's qrels is one of this track's pooled documents.
        assert {(t, d) for t, grades in qrels.items() for d in grades} == {
            (t, d) for t, docs in _pooled_oracle(files).items() for d in docs
        }

    for name, task in tasks.items():
        version = versions[name]
        assert version.task_id == task.pk
        evaluation_job_run(job=EvaluationJob.objects.create(task=task, qrels=version))
        results = EvaluationResult.objects.filter(qrels=version).select_related("run")
        assert {r.run.task_id for r in results} == {task.pk}
        assert {r.run.tag for r in results} == {r.tag for r in tracks[name].runs}
        qrels = _qrels(version.content)
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map"}, relevance_level=1)
        by_tag = {r.run.tag: r for r in results}
        for run_file in tracks[name].runs:
            per_topic = evaluator.evaluate(_rows(run_file.path))
            stored_result = by_tag[run_file.tag]
            for topic, values in per_topic.items():
                assert stored_result.per_topic[topic]["map"] == pytest.approx(
                    values["map"], abs=1e-12
                ), (name, run_file.tag, topic)
