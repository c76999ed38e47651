"""The nugget pages in real Chromium: a nugget made from selected document text, a machine
proposal edited, answers labelled with the keyboard alone, and the scores they give."""

from __future__ import annotations

import io
import json

import pytest

from assessment.models import Assignment
from collection.models import RetrievalTask, Topic
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
          const node = document.querySelector('.source-doc[data-docno="seg_a"] .source-body')
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
