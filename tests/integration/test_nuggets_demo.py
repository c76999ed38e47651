"""``manage.py demo`` builds the RAG campaign through the nugget entry points."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from assessment.models import Assignment
from collection.models import RetrievalTask
from demo.rag_campaign import RAG_CAMPAIGN, RAG_JUDGE
from nuggets.models import (
    CitationLabel,
    NuggetAdjudication,
    NuggetLabel,
    NuggetProposal,
    NuggetPublicationEvent,
)
from nuggets.selectors import task_nugget_scores

pytestmark = pytest.mark.django_db


def test_the_demo_builds_a_rag_campaign_judged_by_people_and_a_machine_when_run(
    tmp_path: Path,
) -> None:
    call_command(
        "demo", "--dir", str(tmp_path), "--threads", "60", "--topics", "4", stdout=io.StringIO()
    )
    task = RetrievalTask.objects.get(campaign__name=RAG_CAMPAIGN)
    assert task.kind == RetrievalTask.Kind.RAG
    assert sorted(task.runs.values_list("file_format", flat=True)) == [
        "trec-rag-2024",
        "trec-rag-2024",
        "trec-rag-2025",
    ]
    decisions = set(NuggetProposal.objects.values_list("decision", flat=True))
    assert decisions == {"accepted", "edited", "rejected", "pending"}
    purposes = set(
        NuggetLabel.objects.values_list("assignment__purpose", "assignment__assessor__username")
    )
    assert {("official", "alice"), ("dual", "bob"), (Assignment.Purpose.MACHINE, RAG_JUDGE)} <= (
        purposes
    )
    assert CitationLabel.objects.exists()
    scores = task_nugget_scores(task)
    assert len(scores.topics) == 3
    # The organizer decided a couple of disputes and published the scores as they stand.
    assert NuggetAdjudication.objects.filter(answer__run__task=task).count() == 2
    (event,) = NuggetPublicationEvent.objects.filter(task=task)
    assert event.action == "publish"
    published = {row["run"]: row["measures"] for row in event.snapshot.scores["runs"]}
    assert published == {row.run: row.measures for row in scores.runs}
    kestrel = next(row for row in scores.runs if row.run == "kestrel-rag")
    assert len(kestrel.per_topic) == 2  # one topic unanswered: 0 there
