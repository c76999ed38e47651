"""Pages that show a task's guidelines: judging, item list, the organizer's
guidelines page with preview and versions, adjudication, training, agreement and the admin."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from assessment.models import Assignment, Judgment, TaskGuidelines
from assessment.services.guidelines import guidelines_save
from assessment.services.judging import judgment_submit
from assessment.services.training import training_round_create
from tests.factories import AssignmentFactory, UserFactory
from tests.integration.test_guidelines_services import binary_scale
from tests.integration.test_judging_pools import answer_pool, assign

pytestmark = pytest.mark.django_db


def _client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def _organizer() -> Client:
    return _client(UserFactory.create(username="organizer", is_staff=True, is_superuser=True))


def _page(task_id: int) -> str:
    return reverse("assessment:organize_guidelines", args=[task_id])


def form_of(scale: dict, **fields: str) -> dict[str, str]:
    """The organizer form's fields for a scale's JSON."""
    data = {
        "instructions": fields.pop("instructions", ""),
        "top": str(max(g["value"] for g in scale["grades"])),
        "relevance_level": fields.pop("relevance_level", "1"),
        "note": fields.pop("note", ""),
        "action": fields.pop("action", "save"),
    }
    for g in scale["grades"]:
        data[f"grade-{g['value']}-label"] = g["label"]
        data[f"grade-{g['value']}-keys"] = " ".join(g["keys"])
        data[f"grade-{g['value']}-definition"] = g["definition"]
    for f in scale["flags"]:
        data[f"flag-{f['code']}-enabled"] = "1"
        data[f"flag-{f['code']}-label"] = f["label"]
        data[f"flag-{f['code']}-keys"] = " ".join(f["keys"])
        data[f"flag-{f['code']}-definition"] = f["definition"]
    data.update(fields)
    return data


def test_judging_page_shows_the_task_guidelines_and_keys_when_a_version_is_saved() -> None:
    pool = answer_pool(items=2)
    scale = binary_scale()
    scale["grades"][0]["definition"] = "Gives **real** help with $a_1*b*c_2$."
    guidelines_save(
        task=pool.topic.task, instructions="Think of *the asker*.", scale=scale, relevance_level=1
    )
    assignment = assign(pool, "alice")
    html = (
        _client(assignment.assessor)
        .get(reverse("assessment:judge", args=[assignment.pk, pool.items[0].pk]))
        .content.decode()
    )
    assert "Gives <strong>real</strong> help with $a_1*b*c_2$." in html
    assert "Think of <em>the asker</em>." in html
    hit = pool.hits[0][0].pk
    radios = re.findall(rf'name="choice-{hit}" value="([^"]+)"', html)
    assert radios == ["1", "0", "dont_know"]
    blob = re.search(r'<script id="judge-scale" type="application/json">(.*?)</script>', html)
    assert blob is not None
    data = json.loads(blob.group(1))
    assert data["keys"] == {"1": "1", "r": "1", "0": "0", "n": "0", "u": "dont_know"}
    assert data["flags"] == {"dont_know": "Unsure"}
    assert "High" not in html  # none of the defaults' labels


def test_judging_page_shows_the_defaults_in_our_words_when_task_has_no_version() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool, "alice")
    html = (
        _client(assignment.assessor)
        .get(reverse("assessment:judge", args=[assignment.pk, pool.items[0].pk]))
        .content.decode()
    )
    for label in ("High", "Medium", "Low", "Not relevant", "System failure", "Do not know"):
        assert label in html
    assert "settles the topic's question on its own" in html


def test_no_javascript_submit_is_refused_with_the_scale_message_when_grade_is_not_in_it() -> None:
    pool = answer_pool(items=1)
    guidelines_save(task=pool.topic.task, instructions="", scale=binary_scale(), relevance_level=1)
    assignment = assign(pool, "alice")
    hit = pool.hits[0][0].pk
    client = _client(assignment.assessor)
    url = reverse("assessment:judge", args=[assignment.pk, pool.items[0].pk])
    response = client.post(url, {f"choice-{hit}": "2"})
    assert response.status_code == 400
    assert "a grade is 0 or 1" in response.content.decode()
    api = reverse("assessment_api:item-judgments", args=[assignment.pk, pool.items[0].pk])
    answer = client.post(
        api, json.dumps({"judgments": [{"hit": hit, "grade": 3}]}), content_type="application/json"
    )
    assert answer.status_code == 400
    assert answer.json() == {"problems": {str(hit): "a grade is 0 or 1"}}
    assert not Judgment.objects.exists()


def test_item_list_shows_the_task_abbreviations_when_items_are_judged() -> None:
    pool = answer_pool(items=2)
    guidelines_save(task=pool.topic.task, instructions="", scale=binary_scale(), relevance_level=1)
    assignment = assign(pool, "alice")
    judgment_submit(
        assignment=assignment, hit=pool.hits[0][0], assessor=assignment.assessor, grade=1
    )
    html = (
        _client(assignment.assessor)
        .get(reverse("assessment:items", args=[assignment.pk]))
        .content.decode()
    )
    assert "<b>R N</b> the highest grade you gave" in html
    assert 'grade-high" href' in html
    assert re.search(r'<span class="tile-state">R</span>', html)


def test_guidelines_page_is_for_organizers_only_when_opened() -> None:
    pool = answer_pool(items=1)
    url = _page(pool.topic.task.pk)
    assert Client().get(url).status_code == 302
    assert _client(UserFactory.create()).get(url).status_code == 403


def test_guidelines_page_lists_defaults_and_renders_with_bounded_queries_when_opened(
    django_assert_max_num_queries,
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=1)
    client = _organizer()
    client.get(reverse("assessment:organize"))  # warm the session
    with django_assert_max_num_queries(8):
        response = client.get(_page(pool.topic.task.pk))
    html = response.content.decode()
    assert response.status_code == 200
    assert "In force: the built-in defaults" in html
    assert 'name="grade-3-label" value="High"' in html
    assert 'name="grade-3-keys" value="3 h"' in html


def test_preview_shows_the_new_texts_and_saves_nothing_when_asked() -> None:
    pool = answer_pool(items=1)
    task = pool.topic.task
    data = form_of(binary_scale(), action="preview", instructions="Look at **both** posts.")
    response = _organizer().post(_page(task.pk), data)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Preview — not saved yet" in html
    assert "Look at <strong>both</strong> posts." in html
    assert "Relevant" in html
    assert not TaskGuidelines.objects.exists()


def test_saving_from_the_page_makes_a_version_and_lists_its_judgments_when_valid() -> None:
    pool = answer_pool(items=2)
    task = pool.topic.task
    assignment = assign(pool, "alice")
    judgment_submit(
        assignment=assignment, hit=pool.hits[0][0], assessor=assignment.assessor, grade=2
    )
    client = _organizer()
    response = client.post(_page(task.pk), form_of(binary_scale(), note="binary from now on"))
    assert response.status_code == 302
    version = TaskGuidelines.objects.get(task=task)
    assert version.version == 1
    assert version.created_by is not None
    assert version.note == "binary from now on"
    task.refresh_from_db()
    assert task.relevance_level == 1
    judgment_submit(
        assignment=assignment, hit=pool.hits[1][0], assessor=assignment.assessor, grade=1
    )
    html = client.get(_page(task.pk)).content.decode()
    assert "Saved the guidelines as version 1." in html
    table = html[html.index('id="version-table"') :]
    rows = re.findall(r"<tr[^>]*>\s*<td>(\w+).*?<td class=\"num\">(\d+)</td>", table, re.S)
    assert rows == [("1", "1"), ("defaults", "1")]
    old = client.get(_page(task.pk) + "?version=0").content.decode()
    assert "The built-in defaults" in old


def test_page_lists_every_problem_and_saves_nothing_when_the_form_is_invalid() -> None:
    pool = answer_pool(items=1)
    task = pool.topic.task
    scale = binary_scale()
    scale["grades"][0]["keys"] = ["j", "r"]
    scale["grades"][1]["label"] = ""
    response = _organizer().post(_page(task.pk), form_of(scale, relevance_level="2"))
    html = response.content.decode()
    assert response.status_code == 400
    assert "grade 1: key &#x27;j&#x27; is reserved for &#x27;next hit&#x27;" in html
    assert "grade 0: the label is empty" in html
    assert "relevance level: 2 is not one of the grades 1..1" in html
    assert 'name="grade-1-keys" value="j r"' in html  # what was typed is kept
    assert not TaskGuidelines.objects.exists()


def test_page_refuses_a_scale_out_of_range_when_the_form_is_tampered_with() -> None:
    pool = answer_pool(items=1)
    data = form_of(binary_scale(), top="9")
    response = _organizer().post(_page(pool.topic.task.pk), data)
    assert response.status_code == 400
    assert "scale: the top grade is 1 to 4" in response.content.decode()


def test_adjudication_page_offers_the_task_grades_when_scale_is_binary() -> None:
    pool = answer_pool(items=1)
    task = pool.topic.task
    guidelines_save(task=task, instructions="", scale=binary_scale(), relevance_level=1)
    hit = pool.hits[0][0]
    for purpose, grade in ((Assignment.Purpose.OFFICIAL, 1), (Assignment.Purpose.DUAL, 0)):
        assignment = AssignmentFactory.create(topic=pool.topic, purpose=purpose)
        judgment_submit(assignment=assignment, hit=hit, assessor=assignment.assessor, grade=grade)
    html = (
        _organizer()
        .get(reverse("assessment:organize_adjudication", args=[task.pk]))
        .content.decode()
    )
    assert re.findall(r'name="grade" value="(\d)"', html) == ["1", "0"]
    assert "1 · Relevant" in html
    assert re.findall(r'<option value="(\d)"[^>]*>\d( \(flags too\))?</option>', html) == [
        ("0", " (flags too)"),
        ("1", ""),
    ]


def test_training_round_page_names_grades_by_the_task_scale_when_feedback_is_shown() -> None:
    pool = answer_pool(items=2)
    task = pool.topic.task
    guidelines_save(task=task, instructions="", scale=binary_scale(), relevance_level=1)
    alice = UserFactory.create(username="alice")
    training_round = training_round_create(
        task=task,
        name="R1",
        topics=[pool.topic],
        assessors=[alice],
        created_by=None,
        qrels={(pool.topic.number, i.key): 1 for i in pool.items},
        show_gold_after_submit=True,
    )
    assignment = Assignment.objects.get(training_round=training_round, assessor=alice)
    for hits in pool.hits:
        judgment_submit(assignment=assignment, hit=hits[0], assessor=alice, grade=0)
    client = _client(alice)
    url = reverse("assessment:training_round", args=[training_round.pk])
    client.post(url)
    html = client.get(url).content.decode()
    assert "0 · Not relevant" in html
    assert "1 · Relevant" in html
    assert "It helps." in html  # the definitions are one click away


def test_agreement_page_names_the_scale_when_it_is_binary() -> None:
    pool = answer_pool(items=1)
    task = pool.topic.task
    guidelines_save(task=task, instructions="", scale=binary_scale(), relevance_level=1)
    html = _organizer().get(reverse("assessment:organize_agreement", args=[task.pk])).content
    text = re.sub(r"<[^>]+>", "", html.decode())  # what the reader sees: κ sits in a span
    assert "κ 2-way" in text
    assert "grade ≥ 1 is relevant" in text


def test_admin_shows_versions_read_only_when_organizer_opens_them() -> None:
    pool = answer_pool(items=1)
    version = guidelines_save(
        task=pool.topic.task, instructions="", scale=binary_scale(), relevance_level=1
    )
    assert version is not None
    client = _organizer()
    listing = client.get(reverse("admin:assessment_taskguidelines_changelist"))
    assert listing.status_code == 200
    detail = client.get(reverse("admin:assessment_taskguidelines_change", args=[version.pk]))
    assert detail.status_code == 200
    assert "Relevant" in detail.content.decode()
    assert client.get(reverse("admin:assessment_taskguidelines_add")).status_code == 403
