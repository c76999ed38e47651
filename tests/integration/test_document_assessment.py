"""The rest of assessment for a document task: qrels with docnos, adjudication,
agreement, the dashboard and its exports, training rounds with gold qrels by docno.

Judgments go through the judging service; expectations are computed here from the grades the
test gives, by the rules of docs/evaluation.md
(adjudicated > official > dual, flags unjudged)
or with scikit-learn (kappa), never by the code under test.
"""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score

from assessment.models import Assignment, GoldGrade, Judgment
from assessment.selectors.agreement import task_agreement, training_feedback
from assessment.services.adjudication import adjudication_decide
from assessment.services.judging import judgment_submit
from assessment.services.training import (
    gold_qrels_parse,
    training_round_create,
    training_round_submit,
)
from collection.models import RetrievalTask
from evaluation.core.qrels import qrels_parse
from evaluation.services import qrels_export
from tests.factories import AssignmentFactory, UserFactory
from tests.integration.document_pool import document_pool, document_task, document_topic
from tests.integration.test_dashboard import MAX_QUERIES
from tests.integration.test_judging_pools import Pool

pytestmark = pytest.mark.django_db

# Per topic and document: (official, dual, adjudicated); a grade, a flag or None (not judged).
VERDICTS: dict[str, list[tuple[int | str | None, int | str | None, int | None]]] = {
    "301": [(2, 2, None), (1, 0, None), (0, 2, 1), ("dont_know", 1, None), (0, None, None)],
    "302": [(0, 0, None), (1, 2, None), (None, 2, None)],
    "303": [(0, 0, None), ("system_failure", None, None)],  # nothing relevant: dropped
}


def _submit(assignment: Assignment, hit: object, value: int | str) -> None:
    flag = value if isinstance(value, str) else ""
    judgment_submit(
        assignment=assignment,
        hit=hit,  # type: ignore[arg-type]
        assessor=assignment.assessor,
        grade=None if flag else value,  # type: ignore[arg-type]
        flag=flag,
        comment="cannot tell" if flag else "",
    )


def judged_document_task() -> tuple[RetrievalTask, dict[str, Pool]]:
    """Three topics of a document task, judged by alice (official) and bob (dual), with an
    organizer's decision where ``VERDICTS`` has one."""
    task = document_task(relevance_level=1, min_relevant=1)
    alice, bob = UserFactory.create(username="alice"), UserFactory.create(username="bob")
    boss = UserFactory.create(username="boss", is_staff=True)
    pools = {}
    for number, verdicts in VERDICTS.items():
        pool = document_pool(
            items=len(verdicts), topic=document_topic(task, number), docno_prefix="FT934"
        )
        official = AssignmentFactory.create(topic=pool.topic, assessor=alice)
        dual = AssignmentFactory.create(topic=pool.topic, assessor=bob, purpose="dual")
        for hits, (first, second, decided) in zip(pool.hits, verdicts, strict=True):
            if first is not None:
                _submit(official, hits[0], first)
            if second is not None:
                _submit(dual, hits[0], second)
            if decided is not None:
                adjudication_decide(hit=hits[0], grade=decided, note="", decided_by=boss)
        pools[number] = pool
    return task, pools


def expected_qrels(pools: dict[str, Pool]) -> list[tuple[str, str, int]]:
    """docs/evaluation.md: the adjudicated grade, else the official verdict, else the dual;
    a flag that counts leaves the document unjudged; topics with no grade >= 1 are dropped."""
    rows = []
    for number, verdicts in VERDICTS.items():
        topic_rows = []
        for item, (official, dual, decided) in zip(pools[number].items, verdicts, strict=True):
            counted = next(v for v in (decided, official, dual) if v is not None)
            if isinstance(counted, int):
                topic_rows.append((number, item.key, counted))
        if any(grade >= 1 for _, _, grade in topic_rows):
            rows += sorted(topic_rows, key=lambda row: row[1])  # zero-padded docnos
    return rows


def test_qrels_of_a_document_task_name_docnos_when_exported() -> None:
    task, pools = judged_document_task()
    version = qrels_export(task=task)
    rows = [(e.topic, e.doc, e.grade) for e in qrels_parse(version.content)]
    assert rows == expected_qrels(pools)
    assert rows[0] == ("301", "FT934-301-0000", 2)
    assert version.dropped_topics == [
        {"topic": "303", "relevant": 0, "reason": "0 relevant (≥ 1) items, fewer than 1"}
    ]
    lines = version.content.splitlines()
    assert all(line.count("\t") == 3 for line in lines)
    assert "FT934-301-0003" not in version.content  # alice said "do not know": unjudged
    assert "302\t0\tFT934-302-0002\t2\n" in version.content  # only bob judged it


def _organizer() -> Client:
    client = Client()
    client.force_login(UserFactory.create(username="chief", is_staff=True))
    return client


def test_adjudication_page_shows_the_disputed_document_when_assessors_disagree(
    django_assert_max_num_queries,  # type: ignore[no-untyped-def]
) -> None:
    task, pools = judged_document_task()
    client = _organizer()
    url = reverse("assessment:organize_adjudication", args=[task.pk])
    with django_assert_max_num_queries(MAX_QUERIES["assessment:organize_adjudication"]):
        response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    first = pools["301"].items[1]  # 1 against 0: the first undecided dispute in page order
    assert f"301 · document {first.key}" in html
    assert "Narrative · your criterion for relevance" in html
    assert 'class="doc-body" data-highlight><p>Since launch, <b>Hubble</b>' in html
    assert "js/highlight.js" in html
    pane = html.split('class="hit adj-hit"', 1)[1]
    for hostile in ("alert(", "onclick", "javascript:", "evil.example"):
        assert hostile not in pane, hostile

    hit = pools["301"].hits[1][0]
    saved = client.post(f"{url}?state=undecided", {"hit": hit.pk, "grade": "1", "seen": "0"})
    assert saved.status_code == 302
    message = client.get(saved["Location"]).content.decode()
    assert f"is the final grade of 301 · document {first.key}" in message
    content = qrels_export(task=task).content
    assert f"301\t0\t{first.key}\t1\n" in content


def _kappa(pairs: list[tuple[int, int]], labels: list[int]) -> float:
    a, b = zip(*pairs, strict=True)
    return float(cohen_kappa_score(a, b, labels=labels))


def test_agreement_uses_the_document_scale_when_task_judged_on_0_to_2() -> None:
    task, _pools = judged_document_task()
    graded = [
        (official, dual)
        for verdicts in VERDICTS.values()
        for official, dual, _ in verdicts
        if isinstance(official, int) and isinstance(dual, int)
    ]
    table = task_agreement(task=task)
    [pair] = table.pairs
    assert pair.shared == len(graded)
    assert pair.kappa.value == pytest.approx(_kappa(graded, [0, 1, 2]))
    binary = [(int(a >= 1), int(b >= 1)) for a, b in graded]
    assert pair.kappa_binary.value == pytest.approx(_kappa(binary, [0, 1]))

    client = _organizer()
    page = client.get(reverse("assessment:organize_agreement", args=[task.pk]))
    assert page.status_code == 200
    exported = client.get(reverse("assessment:organize_export_agreement", args=[task.pk]))
    text = b"".join(exported.streaming_content).decode()  # type: ignore[attr-defined]
    rows = list(csv.DictReader(io.StringIO(text)))
    first = next(r for r in rows if r["scope"] == "task")
    assert float(first["kappa_4way"]) == pytest.approx(pair.kappa.value, abs=1e-4)
    assert {"task topic 301", "task topic 302"} <= {r["scope"] for r in rows}


def test_judgments_export_labels_items_by_docno_when_document_task() -> None:
    task, pools = judged_document_task()
    response = _organizer().get(reverse("assessment:organize_export_judgments", args=[task.pk]))
    text = b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == Judgment.objects.count()
    keys = {item.key for pool in pools.values() for item in pool.items}
    assert {r["item"] for r in rows} == keys
    assert {(r["post_id"], r["formula_id"]) for r in rows} == {("", "")}


@pytest.mark.parametrize(
    "name",
    [
        "assessment:organize_task",
        "assessment:organize_assignments",
        "assessment:organize_training",
        "assessment:organize_agreement",
    ],
)
def test_organizer_pages_work_with_bounded_queries_when_document_task(
    name: str,
    django_assert_max_num_queries,  # type: ignore[no-untyped-def]
) -> None:
    task, _pools = judged_document_task()
    client = _organizer()
    with django_assert_max_num_queries(MAX_QUERIES[name]):
        response = client.get(reverse(name, args=[task.pk]))
    assert response.status_code == 200
    if name == "assessment:organize_task":
        assert "documents" in response.content.decode()


def test_training_round_takes_gold_by_docno_and_gives_feedback_when_submitted() -> None:
    task = document_task()
    pool = document_pool(items=3, topic=document_topic(task, "401"))
    keys = [item.key for item in pool.items]
    gold = gold_qrels_parse(
        "".join(f"401 0 {key} {grade}\n" for key, grade in zip(keys, (2, 0, 1), strict=True)),
        top=2,
    )
    assert gold == {("401", keys[0]): 2, ("401", keys[1]): 0, ("401", keys[2]): 1}
    carol = UserFactory.create(username="carol")
    training_round = training_round_create(
        task=task,
        name="Warm-up",
        topics=[pool.topic],
        assessors=[carol],
        created_by=None,
        qrels=gold,
        items_per_topic=3,
        show_gold_after_submit=True,
    )
    stored = dict(
        GoldGrade.objects.filter(training_round=training_round).values_list(
            "hit__item__key", "grade"
        )
    )
    assert stored == {key: grade for (_, key), grade in gold.items()}
    assignment = Assignment.objects.get(training_round=training_round, assessor=carol)
    for hits, grade in zip(pool.hits, (2, 1, 1), strict=True):
        _submit(assignment, hits[0], grade)
    training_round_submit(training_round=training_round, assessor=carol)
    feedback = training_feedback(training_round=training_round, assessor=carol)
    assert feedback is not None
    assert [(row.item_key, row.grade, row.gold) for row in feedback] == [
        (keys[0], 2, 2),
        (keys[1], 1, 0),
        (keys[2], 1, 1),
    ]
    client = Client()
    client.force_login(carol)
    page = client.get(reverse("assessment:training_round", args=[training_round.pk]))
    assert page.status_code == 200
    assert "<h2>401 · Hubble telescope achievements</h2>" in page.content.decode()
