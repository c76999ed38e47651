"""Reads for ARQMath-3's extra Task 3 figures: the answers to the assessors' extra questions
(MG, UI) and the texts Lexical Overlap compares (``evaluation.core.answer_questions``,
``evaluation.core.lexical_overlap``)."""

from __future__ import annotations

import re
from collections import defaultdict

from django.db.models import Case, IntegerField, Value, When

from assessment.models import Assignment, Judgment
from assessment.selectors.guidelines import guidelines_current
from assessment.selectors.handover import counted_judgments
from collection.models import Post, RetrievalTask
from collection.selectors import answer_task_of
from evaluation.core.answer_questions import REPORTED
from evaluation.core.lexical_overlap import Reference, usable_task1_answer
from evaluation.core.qrels import qrels_parse
from evaluation.selectors import pool_task_of, publication_of, task_item_filter
from kernel.core.grades import MAX_GRADE
from pooling.models import Run
from pooling.models import RunRow as RunRowModel

AnswerRow = tuple[int, int, str, str, int, float]  # run, team, topic, text, rank, score
_TAG = re.compile(r"<[^>]*>")


def questions_asked(task: RetrievalTask) -> dict[str, frozenset[str] | None]:
    """The reported questions (MG, UI) the guidelines in force ask where this task's answers are
    judged: code -> its topics (None: every topic). Empty when none is asked."""
    scale = guidelines_current(task=pool_task_of(task)).scale
    return {
        q.code: (frozenset(q.topics) if q.topics else None)
        for q in scale.questions
        if q.code in REPORTED
    }


def question_marks(task: RetrievalTask) -> dict[tuple[str, str], dict[str, bool]]:
    """(topic number, pool item key) -> the answers recorded with the judgment that counts:
    an official judgment before a dual one, the latest first, among those that answered."""
    official_first = Case(
        When(assignment__purpose=Assignment.Purpose.OFFICIAL, then=Value(0)),
        default=Value(1),
        output_field=IntegerField(),
    )
    rows = (
        Judgment.objects.filter(
            task_item_filter(task, "hit__item__"),
            counted_judgments(),
            assignment__purpose__in=[Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL],
        )
        .exclude(answers={})
        .order_by(official_first, "-updated_at", "-id")
        .values_list("hit__item__topic__number", "hit__item__key", "answers")
    )
    found: dict[tuple[str, str], dict[str, bool]] = {}
    for number, key, answers in rows.iterator(chunk_size=10_000):
        found.setdefault((number, key), {k: v for k, v in answers.items() if isinstance(v, bool)})
    return found


def openqa_answer_rows(task: RetrievalTask) -> dict[int, list[AnswerRow]]:
    """Every accepted run's answers with its team, in file order, by run."""
    rows = (
        RunRowModel.objects.filter(run__task=task, run__status=Run.Status.ACCEPTED)
        .order_by("run_id", "id")
        .values_list("run_id", "run__team_id", "topic__number", "answer", "rank", "score")
    )
    found: dict[int, list[AnswerRow]] = defaultdict(list)
    for row in rows.iterator(chunk_size=10_000):
        found[row[0]].append(row)
    return found


def task1_references(task: RetrievalTask, *, level: int) -> tuple[dict[str, list[Reference]], str]:
    """ARQMath-3's Task 1 references for LO: the relevant (grade >= ``level``) answer posts of
    the answer task's official qrels, of at most 1,200 characters of text; and the label of the
    qrels they came from ("" when the answer task has no official qrels)."""
    answer_task = answer_task_of(task)
    publication = publication_of(answer_task) if answer_task is not None else None
    if publication is None or publication.qrels is None:
        return {}, ""
    relevant: dict[int, list[str]] = defaultdict(list)
    for entry in qrels_parse(publication.qrels.content, trec_eval=True):
        if level <= entry.grade <= MAX_GRADE and entry.doc.isdigit():
            relevant[int(entry.doc)].append(entry.topic)
    found: dict[str, list[Reference]] = defaultdict(list)
    posts = Post.objects.filter(pk__in=list(relevant)).values_list("pk", "body")
    for post_id, body in posts.iterator(chunk_size=5_000):
        text = _TAG.sub(" ", body).strip()
        if usable_task1_answer(text):
            for topic in relevant[post_id]:
                found[topic].append(Reference(text, team=None, task1=True))
    label = publication.qrels.label or f"version {publication.qrels.pk}"
    return dict(found), label
