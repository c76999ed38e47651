"""The nugget pages in real Chromium: a nugget made from selected document text, a machine
proposal edited (from a file, and from a judge endpoint: the project's fake judge server as a
separate process), answers labelled with the keyboard alone, and the scores they give."""

from __future__ import annotations

import io
import json

import pytest

from assessment.models import Assignment
from collection.models import Document, RetrievalTask, Topic
from config.celery import app as celery_app
from judges.core.endpoints import EndpointFields
from judges.services.endpoints import endpoint_add
from nuggets.models import CitationLabel, Nugget, NuggetLabel, NuggetProposal
from nuggets.services.nuggets import nugget_add
from nuggets.services.runs import rag_run_submit
from tests.factories.collection import (
    DocumentCollectionFactory,
    DocumentFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.factories.pooling import TeamFactory
from tests.integration.judge_server import judge_server, server_stats

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BODY_A = "Nuggets are short facts that a good answer contains. They are marked vital or okay."
BODY_B = "Assessors decide whether each answer supports each nugget."


def rag_task() -> tuple[RetrievalTask, Topic]:
    segments = DocumentCollectionFactory.create(name="segments")
    DocumentFactory.create(collection=segments, docno="seg_a", body=BODY_A)
    DocumentFactory.create(collection=segments, docno="seg_b", body=BODY_B)
    task = RetrievalTaskFactory.create(
        kind=RetrievalTask.Kind.RAG, collection=segments, campaign__name="RAG-24"
    )
    topic = TopicFactory.create(task=task, number="1", title="What is nugget evaluation?")
    for team, run_id, citations in (("teamA", "runA", [0]), ("teamB", "runB", [0, 1])):
        record = {
            "run_id": run_id,
            "topic_id": "1",
            "topic": topic.title,
            "references": ["seg_a", "seg_b"],
            "response_length": 12,
            "answer": [
                {"text": "Nugget evaluation checks facts in an answer.", "citations": citations},
                {"text": f"This answer is from {run_id}.", "citations": []},
            ],
        }
        rag_run_submit(
            task=task,
            team=TeamFactory.create(name=team),
            stream=io.BytesIO(json.dumps(record).encode()),
            file_name=f"{run_id}.jsonl",
            uploaded_by=None,
        )
    return task, topic


def test_a_nugget_is_made_from_selected_text_and_a_proposal_edited_when_using_keys(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    _task, topic = rag_task()
    UserFactory.create(username="org", is_staff=True)
    NuggetProposal.objects.create(
        topic=topic, text="answers cite segments", importance="okay", provenance="gpt-4o"
    )
    login("org")
    page.goto(f"/nuggets/topics/{topic.pk}/")
    # Select "short facts that a good answer contains" in the first document.
    page.evaluate(
        """() => {
          const node = document.querySelector('.source-doc[data-docno="seg_a"] .source-body p')
            .firstChild;
          const start = node.textContent.indexOf('short facts');
          const range = document.createRange();
          range.setStart(node, start);
          range.setEnd(node, start + 'short facts that a good answer contains'.length);
          const selection = window.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
        }"""
    )
    page.wait_for_function(
        "() => document.getElementById('nugget-text').value.startsWith('short facts')"
    )
    page.keyboard.press("a")
    page.keyboard.press("Enter")
    page.wait_for_selector("#nugget-list li:has-text('short facts')")
    made = Nugget.objects.get(topic=topic)
    assert made.text == "short facts that a good answer contains"
    assert made.origin == "person"
    page.keyboard.press("v")  # the new nugget (selected) becomes vital
    page.wait_for_selector("#nugget-list .importance.vital")
    # To the proposal, edit it, save with Enter.
    page.keyboard.press("j")
    page.keyboard.press("e")
    page.keyboard.press("Control+a")
    page.keyboard.type("answers cite the segments they use")
    page.keyboard.press("Enter")
    page.wait_for_selector("#nugget-list li:has-text('answers cite the segments they use')")
    screenshot("nugget-editor")
    proposal = NuggetProposal.objects.get()
    assert proposal.decision == "edited"
    assert proposal.nugget is not None
    assert proposal.nugget.text == "answers cite the segments they use"
    assert proposal.nugget.origin == "machine"
    assert Nugget.objects.get(pk=made.pk).importance == "vital"


def test_a_proposal_from_a_judge_endpoint_is_edited_when_asked_from_the_editor(
    page, login, screenshot, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    _task, topic = rag_task()
    # An HTML segment: shown as formatted text, never as raw tags, and sent as its text.
    Document.objects.filter(docno="seg_b").update(
        body="<p>Assessors decide <b>whether</b> each answer supports each nugget.</p>",
        body_format="html",
    )
    UserFactory.create(username="org", is_staff=True)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("")
    # No broker, as in a deployment without Redis: the request runs in the web process.
    celery_app.conf.task_always_eager = True
    try:
        with judge_server(qrels) as base_url:
            endpoint_add(
                fields=EndpointFields(name="nuggetizer", base_url=base_url, model="fake-llm")
            )
            login("org")
            page.goto(f"/nuggets/topics/{topic.pk}/")
            page.click("#ask-proposals")
            # The server's rule: each cited segment's first sentence, the first one vital.
            page.wait_for_selector("#proposal-list li:has-text('Nuggets are short facts')")
            assert server_stats(base_url)["requests"] == 1
    finally:
        celery_app.conf.task_always_eager = False
    assert (
        page.locator(".messages").inner_text().strip().startswith("nuggetizer proposed 2 nuggets")
    )
    assert page.locator("#proposal-list li").count() == 2
    shown = page.locator('.source-doc[data-docno="seg_b"] .source-body')
    assert (
        shown.inner_text().strip() == "Assessors decide whether each answer supports each nugget."
    )
    assert shown.locator("b").inner_text() == "whether"
    screenshot("nugget-editor-endpoint-proposals-pending")
    page.keyboard.press("e")  # the first proposal (no nugget yet): edit it
    page.keyboard.press("Control+a")
    page.keyboard.type("nuggets are short facts of a good answer")
    page.keyboard.press("Enter")
    page.wait_for_selector("#nugget-list li:has-text('nuggets are short facts of a good answer')")
    page.keyboard.press("j")
    page.keyboard.press("n")  # reject the second
    page.wait_for_function("() => document.querySelectorAll('#proposal-list li').length === 0")
    page.reload()
    screenshot("nugget-editor-endpoint-proposals")
    edited, rejected = NuggetProposal.objects.order_by("pk")
    assert (edited.text, edited.importance) == (
        "Nuggets are short facts that a good answer contains.",
        "vital",
    )
    assert edited.decision == "edited"
    assert edited.machine_answer is not None
    assert edited.machine_answer.model == "fake-llm"
    assert edited.nugget is not None
    assert edited.nugget.text == "nuggets are short facts of a good answer"
    assert edited.nugget.origin == "machine"
    assert edited.nugget.provenance.startswith("nuggetizer · fake-llm · nugget prompt v1")
    assert edited.nugget.provenance.endswith("edited by org")
    assert (rejected.text, rejected.decision) == (
        "Assessors decide whether each answer supports each nugget.",
        "rejected",
    )
    assert "2 proposed" in page.locator(".nugget-asks").inner_text()


def test_answers_are_labelled_with_the_keyboard_and_scored_when_judged(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    task, topic = rag_task()
    organizer = UserFactory.create(username="org", is_staff=True)
    texts = ["checks facts", "vital or okay", "assessors decide"]
    for text, importance in zip(texts, ["vital", "okay", "vital"], strict=True):
        nugget_add(topic=topic, text=text, importance=importance, user=organizer)
    assessor = UserFactory.create(username="ann")
    assignment = Assignment.objects.create(topic=topic, assessor=assessor, purpose="official")
    login("ann")
    page.goto(f"/nuggets/assignments/{assignment.pk}/")
    assert "runA" not in page.locator(".nugget-bar").inner_text()  # blind to run and team
    first_answer = page.locator(".answer-text").inner_text()
    for key in ("s", "p", "n"):
        page.keyboard.press(key)
    page.wait_for_selector("#nugget-status:has-text('3 of 3')")
    page.keyboard.press("f")  # the second pass: the first citation fully supports its sentence
    page.wait_for_selector("#nugget-status:has-text('Citation saved')")
    screenshot("nugget-assign")
    citation = CitationLabel.objects.get()
    assert (citation.sentence, citation.segment, citation.support) == (0, "seg_a", "full")
    page.keyboard.press("]")
    page.wait_for_url("**?at=2")
    for key in ("p", "s", "s"):
        page.keyboard.press(key)
    page.wait_for_selector("#nugget-status:has-text('3 of 3')")
    assert NuggetLabel.objects.filter(assignment=assignment).count() == 6
    # The first answer's labels, by the run it came from (the page never said which).
    first_run = "runA" if "runA" in first_answer else "runB"
    given = {
        (label.answer.run.tag, label.nugget.text): label.support
        for label in NuggetLabel.objects.select_related("answer__run", "nugget")
    }
    second_run = "runB" if first_run == "runA" else "runA"
    assert [given[(first_run, t)] for t in texts] == ["support", "partial_support", "not_support"]
    assert [given[(second_run, t)] for t in texts] == ["partial_support", "support", "support"]

    page.context.clear_cookies()  # the organizer's session from here on
    login("org")
    page.goto(f"/nuggets/tasks/{task.pk}/scores/")
    screenshot("nugget-scores")
    # vital = (1 + 0) / 2 and (0.5 + 1) / 2, written out from the definitions.
    rows = {
        r.locator("td").first.inner_text(): r.locator("td").nth(3).inner_text()
        for r in page.locator("table.scores").first.locator("tbody tr").all()
    }
    assert rows[first_run] == f"{(1 + 0) / 2:.4f}"
    assert rows[second_run] == f"{(0.5 + 1) / 2:.4f}"


def test_rag_runs_show_what_they_hold_when_listed_on_the_runs_page(page, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    rag_task()  # runA cites seg_a once; runB cites seg_a and seg_b in its first sentence
    UserFactory.create(username="org", is_staff=True)
    login("org")
    page.goto("/runs/")
    row = page.locator("tr", has_text="runB")
    assert " ".join(row.locator(".run-contents").inner_text().split()) == (
        "1 answer 2 sentences · 2 citations"
    )
    screenshot("runs-rag")
    row.locator("a", has_text="runB").click()
    facts = " ".join(page.locator(".facts").inner_text().split())
    assert "Citations 2 of 2 distinct segments" in facts
    assert "Sentences 2" in facts
    screenshot("run-detail-rag")
