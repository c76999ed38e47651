"""Judging a document: the page, the no-JavaScript form and the REST API.

The pool is made as pooling makes a document pool (key = docno, one hit with the document).
"""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from assessment.core.guidelines import scale_as_json, scale_from_json
from assessment.models import Judgment
from assessment.services.guidelines import guidelines_save
from collection.core.document_html import DISPLAY_MAX_CHARS
from tests.factories import DocumentFactory, UserFactory
from tests.integration.document_pool import (
    TOPIC_DESCRIPTION,
    TOPIC_NARRATIVE,
    document_pool,
)
from tests.integration.test_judging_pools import SECRET_RUN_TAG, SECRET_TEAM, assign

pytestmark = pytest.mark.django_db


def _client(username: str) -> Client:
    client = Client()
    client.force_login(UserFactory.create(username=username))
    return client


def _judge(assignment_id: int, item_id: int) -> str:
    return reverse("assessment:judge", args=[assignment_id, item_id])


def _api(assignment_id: int, item_id: int) -> str:
    return reverse("assessment_api:item-judgments", args=[assignment_id, item_id])


def _post_json(client: Client, url: str, body: dict) -> object:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def _pane(html: str) -> str:
    """The item pane of a judging page (the document and its grade control)."""
    return html.split('aria-label="Item to judge"', 1)[1].split("</section>", 1)[0]


def test_page_shows_topic_fields_then_document_title_and_sanitized_body_when_html_document(
    django_assert_max_num_queries,  # type: ignore[no-untyped-def]
) -> None:
    pool = document_pool(items=3)
    assignment = assign(pool, "alice")
    client = _client("alice")
    with django_assert_max_num_queries(7):  # session, user, assignment, hits, document,
        # statuses, guidelines: as many as an answer page (its post instead of the document)
        response = client.get(_judge(assignment.pk, pool.items[1].pk))
    assert response.status_code == 200
    html = response.content.decode()
    # The topic pane: title, description, the narrative labelled as the criterion.
    assert "Hubble telescope achievements</h1>" in html
    assert TOPIC_DESCRIPTION in html
    narrative = html.split("topic-narrative", 1)[1].split("</section>", 1)[0]
    assert "your criterion" in narrative
    assert TOPIC_NARRATIVE.replace("\n", "<br>") in narrative
    # The document: title (its tags dropped), then the body, sanitized.
    pane = _pane(html)
    assert pane.index('class="doc-title"') < pane.index('class="doc-body"')
    assert "Hubble measures the universe</h2>" in pane
    assert "<b>Hubble</b> has measured the expansion" in pane
    for hostile in ("<script", "alert(", "onclick", "javascript:", "evil.example", "<style"):
        assert hostile not in pane, hostile
    assert '<span class="inert-link">achievements</span>' in pane
    assert "[image: deep field]" in pane
    assert pool.items[1].key in pane  # the docno names the document
    # Terms to highlight come from the title; the page loads highlight.js and no MathJax.
    assert '<script id="query-terms" type="application/json">' in html
    assert '["hubble", "telescope", "achievements"]' in html
    assert "js/highlight.js" in html
    assert "mathjax" not in html.lower().split("</main>", 1)[1]


def test_plain_text_document_keeps_paragraphs_and_shows_markup_as_text_when_judged() -> None:
    pool = document_pool(items=1)
    assignment = assign(pool, "alice")
    html = _client("alice").get(_judge(assignment.pk, pool.items[0].pk)).content.decode()
    body = _pane(html).split('class="doc-body" data-highlight>', 1)[1].split("</div>", 1)[0]
    assert body == (
        "<p>The Hubble telescope sent back new pictures of a distant galaxy.<br>"
        "Astronomers called the images a triumph.</p>\n"
        "<p>Telescopes on the ground cannot see as far; a &lt;script&gt;alert(1)&lt;/script&gt; "
        "stays text.</p>"
    )


def test_no_run_team_rank_or_vote_reaches_assessor_when_document_pooled() -> None:
    pool = document_pool(items=2)
    assignment = assign(pool, "alice")
    client = _client("alice")
    for url in (
        _judge(assignment.pk, pool.items[0].pk),
        reverse("assessment:items", args=[assignment.pk]),
        _api(assignment.pk, pool.items[0].pk),
        reverse("assessment:home"),
    ):
        text = client.get(url).content.decode()
        assert SECRET_RUN_TAG not in text, url
        assert SECRET_TEAM not in text, url
        assert "0.75" not in text, url  # the hit's vote


def test_long_document_is_cut_with_a_note_when_body_is_ten_megabytes() -> None:
    pool = document_pool(items=1)
    paragraph = "The telescope saw far. " * 40 + "\n\n"
    body = paragraph * (10_000_000 // len(paragraph) + 1)
    document = pool.items[0].document
    assert document is not None
    document.body = body
    document.save(update_fields=["body"])
    assignment = assign(pool, "alice")
    response = _client("alice").get(_judge(assignment.pk, pool.items[0].pk))
    assert response.status_code == 200
    html = response.content.decode()
    note = re.search(r"Showing the first ([\d,]+) of ([\d,]+) characters\.", html)
    assert note is not None
    shown, total = (int(n.replace(",", "")) for n in note.groups())
    assert total == len(body)
    assert DISPLAY_MAX_CHARS - 200 <= shown <= DISPLAY_MAX_CHARS
    assert len(html) < 2 * DISPLAY_MAX_CHARS  # the rest never reaches the page
    assert html.count('class="doc-truncated') == 2  # above the document and at its end


def test_rest_api_judges_every_document_and_refuses_grades_off_the_scale_when_defaults() -> None:
    pool = document_pool(items=3)
    assignment = assign(pool, "alice")
    client = _client("alice")
    hit0 = pool.hits[0][0].pk
    # The default document scale is 0-2: 3 is not on it, and nothing is stored.
    refused = _post_json(
        client, _api(assignment.pk, pool.items[0].pk), {"judgments": [{"hit": hit0, "grade": 3}]}
    )
    assert refused.status_code == 400  # type: ignore[attr-defined]
    assert "0, 1 or 2" in refused.json()["problems"][str(hit0)]  # type: ignore[attr-defined]
    assert not Judgment.objects.exists()

    wanted = {0: 2, 1: 1, 2: 0}
    for i, grade in wanted.items():
        body = {"judgments": [{"hit": pool.hits[i][0].pk, "grade": grade}], "client_token": f"t{i}"}
        response = _post_json(client, _api(assignment.pk, pool.items[i].pk), body)
        assert response.status_code == 200, response.content  # type: ignore[attr-defined]
        state = response.json()  # type: ignore[attr-defined]
        assert (state["judged_hits"], state["total_hits"]) == (i + 1, 3)
    stored = dict(Judgment.objects.values_list("hit__item__key", "grade"))
    assert stored == {pool.items[i].key: grade for i, grade in wanted.items()}
    assert state["next_unjudged_url"] is None

    home = client.get(reverse("assessment:home")).content.decode()
    assert "<b>3</b> of 3 documents judged" in home


def test_flag_needs_a_comment_when_document_judged_without_javascript() -> None:
    pool = document_pool(items=2)
    assignment = assign(pool, "alice")
    client = _client("alice")
    hit = pool.hits[0][0].pk
    url = _judge(assignment.pk, pool.items[0].pk)
    refused = client.post(url, {f"choice-{hit}": "system_failure"})
    assert refused.status_code == 400
    assert "comment" in refused.content.decode()
    assert not Judgment.objects.exists()
    saved = client.post(url, {f"choice-{hit}": "system_failure", f"comment-{hit}": "Empty page"})
    assert saved.status_code == 302
    assert saved["Location"] == _judge(assignment.pk, pool.items[1].pk)
    judgment = Judgment.objects.get()
    assert (judgment.grade, judgment.flag, judgment.comment) == (
        None,
        "system_failure",
        "Empty page",
    )


@pytest.mark.parametrize(
    ("grades", "relevance_level", "accepted", "refused"),
    [
        ([(1, "Relevant", ["1", "r"]), (0, "Not relevant", ["0", "n"])], 1, 1, 2),
        (
            [
                (4, "Perfectly relevant", ["4", "p"]),
                (3, "Highly relevant", ["3", "h"]),
                (2, "Relevant", ["2", "r"]),
                (1, "Related", ["1", "e"]),
                (0, "Irrelevant", ["0", "i"]),
            ],
            2,
            4,
            5,
        ),
    ],
    ids=["binary", "0-4"],
)
def test_page_and_api_follow_the_organizers_scale_when_task_has_guidelines(
    grades: list[tuple[int, str, list[str]]], relevance_level: int, accepted: int, refused: int
) -> None:
    pool = document_pool(items=1)
    task = pool.topic.task
    scale = scale_as_json(
        scale_from_json(
            {
                "grades": [{"value": v, "label": label, "keys": keys} for v, label, keys in grades],
                "flags": [{"code": "dont_know", "label": "Unsure", "keys": ["u"]}],
            }
        )
    )
    guidelines_save(
        task=task,
        instructions="Judge by the narrative.",
        scale=scale,
        relevance_level=relevance_level,
    )
    assignment = assign(pool, "alice")
    client = _client("alice")
    pane = _pane(client.get(_judge(assignment.pk, pool.items[0].pk)).content.decode())
    for value, label, keys in grades:
        assert f'value="{value}"><span>{label} <kbd>{keys[0]}</kbd>' in pane
    assert 'value="system_failure"' not in pane
    hit = pool.hits[0][0].pk
    url = _api(assignment.pk, pool.items[0].pk)
    bad = _post_json(client, url, {"judgments": [{"hit": hit, "grade": refused}]})
    assert bad.status_code == 400  # type: ignore[attr-defined]
    good = _post_json(client, url, {"judgments": [{"hit": hit, "grade": accepted}]})
    assert good.status_code == 200  # type: ignore[attr-defined]
    assert Judgment.objects.get().grade == accepted


def test_item_list_and_home_name_documents_when_document_task(
    django_assert_max_num_queries,  # type: ignore[no-untyped-def]
) -> None:
    pool = document_pool(items=4)
    assignment = assign(pool, "alice")
    client = _client("alice")
    with django_assert_max_num_queries(12):
        items = client.get(reverse("assessment:items", args=[assignment.pk]))
    assert items.status_code == 200
    assert "of 4 documents" in items.content.decode()
    home = client.get(reverse("assessment:home")).content.decode()
    card = home.split('class="card-title', 1)[1].split("</p>", 1)[0]
    assert card == '">Hubble telescope achievements'  # plain text, outside MathJax's classes


def test_missing_document_says_so_when_hit_has_none() -> None:
    pool = document_pool(items=1)
    hit = pool.hits[0][0]
    hit.document = None
    hit.save(update_fields=["document"])
    assignment = assign(pool, "alice")
    html = _client("alice").get(_judge(assignment.pk, pool.items[0].pk)).content.decode()
    assert "This document is not in the collection" in html


def test_html_title_of_a_document_is_shown_as_text_when_it_holds_markup() -> None:
    pool = document_pool(items=1)
    document = DocumentFactory.create(
        collection=pool.topic.task.collection,
        title='<img src=x onerror="alert(1)">Moon &amp; <b>stars</b>',
        body="<p>x</p>",
        body_format="html",
    )
    hit = pool.hits[0][0]
    hit.document = document
    hit.save(update_fields=["document"])
    assignment = assign(pool, "alice")
    html = _client("alice").get(_judge(assignment.pk, pool.items[0].pk)).content.decode()
    assert '<h2 class="doc-title" data-highlight>Moon &amp; stars</h2>' in _pane(html)
    assert "onerror" not in html
