"""Bounded input on every upload path: the submitted tag on every
row, bounded text with a clear error, a byte order mark, every problem of a file at once, and
one upload throttle for the REST API and the web form."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from assessment.models import COMMENT_MAX_CHARS, Judgment
from assessment.services.adjudication import AdjudicationError, adjudication_decide
from assessment.services.judging import JudgmentInvalid, judgment_submit
from assessment.services.training import TrainingError, training_round_create
from collection.models import RetrievalTask
from pooling.models import RUN_DESCRIPTION_MAX_CHARS, Run
from pooling.services.runs import SubmissionRefused, run_submit, token_create
from tests.factories import (
    AssignmentFactory,
    HitFactory,
    PoolItemFactory,
    PostFactory,
    RetrievalTaskFactory,
    TeamFactory,
    TopicFactory,
    UserFactory,
)
from tests.integration.test_adjudication import dual_topic

pytestmark = pytest.mark.django_db

GOOD = "A.1\t501\t1\t0.9\tmyrun\nA.1\t502\t2\t0.5\tmyrun\n"


@pytest.fixture
def scene() -> dict[str, Any]:
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    TopicFactory.create(task=task, number="A.1")
    alice = UserFactory.create(username="alice")
    team = TeamFactory.create(name="TeamA")
    team.members.add(alice)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=alice).key}")
    web = Client()
    web.force_login(alice)
    return {"task": task, "team": team, "user": alice, "api": api, "web": web}


def api_upload(scene: dict[str, Any], data: str | bytes, **fields: Any) -> Any:
    raw = data.encode() if isinstance(data, str) else data
    body = {
        "file": SimpleUploadedFile("run.tsv", raw),
        "task": scene["task"].pk,
        "tag": "myrun",
        "role": "primary",
        **fields,
    }
    return scene["api"].post("/api/runs/", body, format="multipart")


def web_upload(scene: dict[str, Any], data: str, **headers: Any) -> Any:
    form = {
        "task": scene["task"].pk,
        "team": scene["team"].pk,
        "tag": "myrun",
        "role": "primary",
        "declared_data": "both",
        "description": "",
        "file": SimpleUploadedFile("run.tsv", data.encode()),
    }
    return scene["web"].post("/runs/", form, **headers)


def test_rows_with_another_tag_are_refused_by_line_when_uploaded_over_rest(scene) -> None:
    text = "A.1\t501\t1\t0.9\tmyrun\nA.1\t502\t2\t0.5\tsomeone-else\n"
    response = api_upload(scene, text)
    assert response.status_code == 400
    errors = response.json()["report"]["errors"]
    assert [(e["line"], e["field"]) for e in errors] == [(2, "run")]
    assert "'someone-else' is not 'myrun'" in errors[0]["message"]
    assert not Run.objects.exists()


def test_rows_with_another_tag_are_listed_on_the_page_when_uploaded_by_the_form(scene) -> None:
    response = web_upload(scene, "A.1 Q0 501 1 0.9 other\nA.1 Q0 502 2 0.5 other\n")
    assert response.status_code == 400
    html = response.content.decode()
    assert html.count("run tag &#x27;other&#x27; is not &#x27;myrun&#x27;") == 2


def test_a_file_starting_with_a_byte_order_mark_is_stored_when_uploaded(scene) -> None:
    response = api_upload(scene, b"\xef\xbb\xbf" + GOOD.encode())
    assert response.status_code == 201, response.json()
    assert response.json()["run"]["row_count"] == 2


def test_description_over_the_limit_is_a_field_error_when_uploaded_either_way(scene) -> None:
    long = "x" * (RUN_DESCRIPTION_MAX_CHARS + 1)
    rest = api_upload(scene, GOOD, description=long)
    assert rest.status_code == 400
    assert "description" in rest.json()
    page = scene["web"].post(
        "/runs/",
        {
            "task": scene["task"].pk,
            "team": scene["team"].pk,
            "tag": "myrun",
            "role": "primary",
            "declared_data": "both",
            "description": long,
            "file": SimpleUploadedFile("run.tsv", GOOD.encode()),
        },
        HTTP_ACCEPT="application/json",
    )
    assert page.status_code == 400
    assert "description" in page.json()["fields"]
    assert not Run.objects.exists()


def test_service_refuses_a_long_description_when_called_from_the_command_line(scene) -> None:
    with pytest.raises(SubmissionRefused, match="at most 4,000"):
        run_submit(
            task=scene["task"],
            team=scene["team"],
            tag="myrun",
            role="primary",
            stream=io.BytesIO(GOOD.encode()),
            file_name="run.tsv",
            uploaded_by=None,
            description="y" * (RUN_DESCRIPTION_MAX_CHARS + 1),
        )


def test_collection_and_shape_problems_come_in_one_report_when_a_file_has_both(scene) -> None:
    answer = PostFactory.create(id=11)
    PostFactory.create(id=2097, kind=1, thread=answer.thread)
    text = (
        "A.1\t2097\t1\t0.9\tmyrun\n"  # a question, not an answer
        "A.1\t11\tone\t0.8\tmyrun\n"  # rank is not a number
        "A.1\t11\t3\t1_000\tmyrun\n"  # score as trec_eval would not write it
    )
    response = api_upload(scene, text)
    assert response.status_code == 400
    errors = [(e["line"], e["message"]) for e in response.json()["report"]["errors"]]
    assert errors == [
        (1, "post 2097 is not an answer post of the collection"),
        (2, "rank 'one' is not an integer"),
        (3, "score '1_000' is not a number"),
    ]


@pytest.fixture
def two_uploads_an_hour(monkeypatch):  # type: ignore[no-untyped-def]
    # Test settings raise the rate so other tests never trip over it; this test lowers it.
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"run_upload": "2/hour"})
    cache.clear()
    yield
    cache.clear()


@pytest.mark.usefixtures("two_uploads_an_hour")
def test_web_form_spends_the_rest_upload_budget_when_both_are_used(scene) -> None:
    assert api_upload(scene, GOOD).status_code == 201
    assert web_upload(scene, GOOD).status_code == 302  # stored: replaced, version 2
    refused = web_upload(scene, GOOD)
    assert refused.status_code == 429
    assert "too many uploads in a short time: you may upload again in" in refused.content.decode()
    assert "minutes" in refused.content.decode()
    assert (
        web_upload(scene, GOOD, HTTP_ACCEPT="application/json")
        .json()["detail"]
        .startswith("too many uploads")
    )
    assert api_upload(scene, GOOD).status_code == 429
    assert Run.objects.get().version == 2


@pytest.mark.usefixtures("two_uploads_an_hour")
def test_rest_uploads_spend_the_web_forms_budget_when_the_page_is_used_after(scene) -> None:
    assert api_upload(scene, "garbage").status_code == 400
    assert api_upload(scene, "garbage").status_code == 400
    assert web_upload(scene, GOOD).status_code == 429
    assert not Run.objects.exists()


def test_a_long_comment_is_refused_with_its_length_when_an_assessor_submits_it() -> None:
    assignment = AssignmentFactory.create()
    hit = HitFactory.create(item=PoolItemFactory.create(topic=assignment.topic))
    with pytest.raises(JudgmentInvalid, match="at most 5,000"):
        judgment_submit(
            assignment=assignment,
            hit=hit,
            assessor=assignment.assessor,
            flag="dont_know",
            comment="z" * (COMMENT_MAX_CHARS + 1),
        )
    assert not Judgment.objects.exists()


def test_a_long_adjudication_note_is_refused_when_an_organizer_decides() -> None:
    _topic, [hit] = dual_topic([(0, 3)])
    with pytest.raises(AdjudicationError, match="at most 5,000"):
        adjudication_decide(
            hit=hit,
            grade=2,
            note="n" * (COMMENT_MAX_CHARS + 1),
            decided_by=UserFactory.create(is_staff=True),
        )


def test_a_long_round_name_is_refused_when_a_training_round_is_created() -> None:
    topic = TopicFactory.create()
    with pytest.raises(TrainingError, match="at most 100 characters, not 101"):
        training_round_create(
            task=topic.task,
            name="r" * 101,
            topics=[topic],
            assessors=[UserFactory.create()],
            created_by=None,
            gold_source="expert",
            expert=UserFactory.create(),
        )
