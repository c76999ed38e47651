"""The guidelines' extra questions (ARQMath-3's MG and UI) answered beside the grade: stored
with the judgment and its revisions, idempotent, refused where not asked; over REST too."""

from __future__ import annotations

import csv
import io
from dataclasses import replace

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from assessment.core.guidelines import scale_as_json
from assessment.core.guidelines_defaults import ARQMATH3_QUESTIONS, default_guidelines
from assessment.models import Judgment, JudgmentRevision, TaskGuidelines
from assessment.services.guidelines import guidelines_questions_set
from assessment.services.judging import JudgmentInvalid, judgment_submit
from tests.factories import UserFactory
from tests.integration.test_guidelines_pages import form_of
from tests.integration.test_judging_pools import answer_pool, assign

pytestmark = pytest.mark.django_db


def asked_pool(*, on_topic: bool = True):  # type: ignore[no-untyped-def]
    pool = answer_pool(items=2)
    topics = (pool.topic.number,) if on_topic else ("A.999",)
    guidelines_questions_set(
        task=pool.topic.task, questions=[replace(q, topics=topics) for q in ARQMATH3_QUESTIONS]
    )
    return pool


def test_answers_stored_revised_and_kept_when_left_out() -> None:
    pool = asked_pool()
    assignment = assign(pool)
    hit = pool.hits[0][0]
    user = assignment.assessor
    judgment_submit(
        assignment=assignment, hit=hit, assessor=user, grade=2, answers={"mg": True, "ui": False}
    )
    # The same again: no new revision.
    judgment_submit(
        assignment=assignment, hit=hit, assessor=user, grade=2, answers={"mg": True, "ui": False}
    )
    judgment = Judgment.objects.get(hit=hit)
    assert (judgment.revision, judgment.answers) == (1, {"mg": True, "ui": False})
    # A changed answer alone is a new revision; the old one is kept.
    judgment_submit(
        assignment=assignment, hit=hit, assessor=user, grade=2, answers={"mg": False, "ui": True}
    )
    # A submit without answers (a grade change) keeps the stored answers.
    judgment_submit(assignment=assignment, hit=hit, assessor=user, grade=3)
    revisions = list(
        JudgmentRevision.objects.filter(judgment__hit=hit).values_list("grade", "answers")
    )
    assert revisions == [
        (2, {"mg": True, "ui": False}),
        (2, {"mg": False, "ui": True}),
        (3, {"mg": False, "ui": True}),
    ]


def test_answers_refused_where_not_asked_and_nothing_stored() -> None:
    pool = asked_pool(on_topic=False)
    assignment = assign(pool)
    with pytest.raises(JudgmentInvalid, match="question 'mg' is not asked on this topic"):
        judgment_submit(
            assignment=assignment,
            hit=pool.hits[0][0],
            assessor=assignment.assessor,
            grade=1,
            answers={"mg": True},
        )
    assert not Judgment.objects.exists()


def test_answers_over_rest_with_client_token_idempotent() -> None:
    pool = asked_pool()
    assignment = assign(pool)
    client = APIClient()
    client.force_authenticate(assignment.assessor)
    url = reverse("assessment_api:item-judgments", args=[assignment.pk, pool.items[0].pk])
    hit = pool.hits[0][0].pk
    body = {
        "judgments": [{"hit": hit, "grade": 3, "answers": {"mg": False, "ui": True}}],
        "client_token": "t1",
    }
    for _ in range(2):  # a retried request
        response = client.post(url, body, format="json")
        assert response.status_code == 200, response.content
    [out] = response.json()["judgments"]
    assert out["answers"] == {"mg": False, "ui": True}
    assert JudgmentRevision.objects.filter(judgment__hit_id=hit).count() == 1
    bad = client.post(
        url, {"judgments": [{"hit": hit, "grade": 3, "answers": {"zz": True}}]}, format="json"
    )
    assert bad.status_code == 400
    assert "not asked on this topic" in bad.json()["problems"][str(hit)]
    items = client.get(reverse("assessment_api:assignment-items", args=[assignment.pk]))
    first = items.json()["results"][0]["hits"][0]
    assert first["answers"] == {"mg": False, "ui": True}


def test_organizer_form_asks_questions_on_chosen_topics_and_plain_form_post_answers() -> None:
    pool = answer_pool(items=2)
    organizer = Client()
    organizer.force_login(UserFactory.create(is_staff=True, is_superuser=True))
    page = reverse("assessment:organize_guidelines", args=[pool.topic.task_id])
    form = organizer.get(page).content.decode()
    assert 'name="question-mg-enabled"' in form  # ARQMath-3's questions are offered, off
    data = form_of(scale_as_json(default_guidelines("answer").scale), relevance_level="2")
    data.update(
        {
            "question-codes": "mg ui",
            "question-mg-enabled": "1",
            "question-mg-label": "Machine-generated?",
            "question-mg-keys": "b",
            "question-mg-topics": f"{pool.topic.number}, A.77",
            "question-ui-label": "Unrelated information?",  # not enabled: not asked
            "question-ui-keys": "u",
        }
    )
    response = organizer.post(page, data)
    assert response.status_code == 302, response.content.decode()[-2000:]
    stored = TaskGuidelines.objects.get(task=pool.topic.task).scale["questions"]
    assert [(q["code"], q["keys"], q["topics"]) for q in stored] == [
        ("mg", ["b"], [pool.topic.number, "A.77"])
    ]
    # Saving the page again keeps the question (it is in the form).
    assert 'name="question-mg-enabled" value="1" checked' in organizer.get(page).content.decode()

    assignment = assign(pool)
    assessor = Client()
    assessor.force_login(assignment.assessor)
    url = reverse("assessment:judge", args=[assignment.pk, pool.items[0].pk])
    html = assessor.get(url).content.decode()
    hit = pool.hits[0][0].pk
    assert f'name="answer-{hit}-mg"' in html
    assert f'name="answer-{hit}-ui"' not in html
    # Without JavaScript: the ticked box is yes, an asked unticked one would be no.
    posted = assessor.post(
        url, {f"choice-{hit}": "1", f"asked-{hit}": "mg", f"answer-{hit}-mg": "yes"}
    )
    assert posted.status_code == 302
    assert Judgment.objects.get(hit_id=hit).answers == {"mg": True}


def test_judgments_csv_has_the_answers() -> None:
    pool = asked_pool()
    assignment = assign(pool)
    judgment_submit(
        assignment=assignment,
        hit=pool.hits[0][0],
        assessor=assignment.assessor,
        grade=2,
        answers={"ui": True, "mg": False},
    )
    organizer = Client()
    organizer.force_login(UserFactory.create(is_staff=True, is_superuser=True))
    url = reverse("assessment:organize_export_judgments", args=[pool.topic.task_id])
    text = b"".join(organizer.get(url).streaming_content).decode()  # type: ignore[attr-defined]
    [row] = list(csv.DictReader(io.StringIO(text)))
    assert row["answers"] == "mg=no ui=yes"
