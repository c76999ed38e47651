"""A RAG task whose assessors disagree on some nugget labels: two topics, three runs (runC
answers topic 1 only), an official assessor (alice), a dual one (bob) and a machine judge,
each labelling every answer through the labelling service. For the adjudication and
publication tests, integration and browser."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass

from django.contrib.auth.models import User

from assessment.models import Assignment
from collection.models import RetrievalTask, Topic
from nuggets.models import Nugget, RagAnswer
from nuggets.services.labels import nugget_labels_submit
from nuggets.services.nuggets import nugget_add
from nuggets.services.runs import rag_run_submit
from pooling.models import Team
from tests.factories.collection import (
    DocumentCollectionFactory,
    DocumentFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.factories.pooling import TeamFactory

NUGGETS = {
    "1": [
        ("nuggets are short facts", "vital"),
        ("assessors label each answer", "vital"),
        ("labels are support, partial or none", "okay"),
    ],
    "2": [("scores average over topics", "vital"), ("a missing topic scores zero", "okay")],
}
S, P, N = "support", "partial_support", "not_support"
# (run, topic) -> one (alice, bob, machine) triple per nugget of the topic, in NUGGETS' order.
LABELS: dict[tuple[str, str], list[tuple[str, str, str]]] = {
    ("runA", "1"): [(S, S, S), (P, S, P), (N, N, N)],  # people differ on nugget 2
    ("runA", "2"): [(S, S, S), (N, N, P)],  # only the machine differs, on nugget 2
    ("runB", "1"): [(S, N, S), (N, N, N), (P, S, S)],  # people differ on nuggets 1 and 3
    ("runB", "2"): [(P, P, P), (S, S, S)],
    ("runC", "1"): [(N, N, N), (S, S, S), (S, S, S)],
}
RUN_TOPICS = {"runA": ["1", "2"], "runB": ["1", "2"], "runC": ["1"]}


@dataclass(frozen=True)
class Disputes:
    task: RetrievalTask
    topics: dict[str, Topic]
    nuggets: dict[str, list[Nugget]]  # topic number -> its nuggets in order
    answers: dict[tuple[str, str], RagAnswer]  # (run, topic)
    teams: dict[str, Team]  # run -> team
    alice: User
    bob: User
    machine: User


def _upload(task: RetrievalTask, team: Team, run: str, topics: list[str]) -> None:
    records = [
        {
            "run_id": run,
            "topic_id": number,
            "topic": f"question {number}",
            "references": ["seg_a", "seg_b"],
            "response_length": 12,
            "answer": [
                {"text": f"Nuggets are short facts, says writer {run[-1]}.", "citations": [0]},
                {"text": "Assessors label each answer by hand.", "citations": [1]},
            ],
        }
        for number in topics
    ]
    rag_run_submit(
        task=task,
        team=team,
        stream=io.BytesIO("".join(json.dumps(r) + "\n" for r in records).encode()),
        file_name=f"{run}.jsonl",
        uploaded_by=None,
    )


def disputed_task() -> Disputes:
    segments = DocumentCollectionFactory.create(name="rag-segments")
    DocumentFactory.create(collection=segments, docno="seg_a", body="Nuggets are short facts.")
    DocumentFactory.create(collection=segments, docno="seg_b", body="Assessors label answers.")
    task = RetrievalTaskFactory.create(
        kind=RetrievalTask.Kind.RAG, collection=segments, campaign__name="RAG-24"
    )
    topics = {n: TopicFactory.create(task=task, number=n, title=f"question {n}") for n in "12"}
    teams = {}
    for run, numbers in RUN_TOPICS.items():
        teams[run] = TeamFactory.create(name=f"team-{run}")
        _upload(task, teams[run], run, numbers)
    nuggets = {
        number: [
            nugget_add(topic=topics[number], text=text, importance=importance, user=None)
            for text, importance in listed
        ]
        for number, listed in NUGGETS.items()
    }
    alice = UserFactory.create(username="alice")
    bob = UserFactory.create(username="bob")
    machine = UserFactory.create(username="judge-llm")
    answers = {
        (a.run.tag, a.topic.number): a for a in RagAnswer.objects.select_related("run", "topic")
    }
    for who, purpose, column in (
        (alice, Assignment.Purpose.OFFICIAL, 0),
        (bob, Assignment.Purpose.DUAL, 1),
        (machine, Assignment.Purpose.MACHINE, 2),
    ):
        for number, topic in topics.items():
            assignment = Assignment.objects.create(topic=topic, assessor=who, purpose=purpose)
            for (run, topic_number), triples in LABELS.items():
                if topic_number != number:
                    continue
                nugget_labels_submit(
                    assignment_id=assignment.pk,
                    answer_id=answers[(run, number)].pk,
                    labels={n.pk: t[column] for n, t in zip(nuggets[number], triples, strict=True)},
                    assessor=who,
                )
    return Disputes(task, topics, nuggets, answers, teams, alice, bob, machine)
