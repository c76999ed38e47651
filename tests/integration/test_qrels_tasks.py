"""Formula and open-QA tasks in the app: qrels by visual id and instance, answers by key."""

import pytest

from assessment.models import Assignment, Judgment
from collection.models import RetrievalTask
from evaluation.core.answers import answer_id
from evaluation.models import EvaluationJob, EvaluationResult
from evaluation.services import evaluation_job_run, qrels_export
from pooling.core.algorithms import answer_key
from tests.factories import (
    AssignmentFactory,
    ContributionFactory,
    FormulaFactory,
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    RetrievalTaskFactory,
    RunFactory,
    RunRowFactory,
    TopicFactory,
)

pytestmark = pytest.mark.django_db


def test_formula_qrels_take_max_instance_grade_and_runs_score_by_visual_id_when_judged() -> None:
    # One H+M formula in the topic: the minimum-relevant rule is off to keep it.
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.FORMULA, min_relevant=0)
    topic = TopicFactory.create(task=task, number="B.1")
    formulas = {
        n: FormulaFactory.create(formula_id=n, visual_id=visual)
        for n, visual in ((11, "500"), (12, "500"), (13, "600"), (14, "700"))
    }
    assignment = AssignmentFactory.create(topic=topic)
    judged: dict[str, list[tuple[int, int | None, str]]] = {
        "500": [(11, 1, ""), (12, 3, "")],
        "600": [(13, 0, "")],
        "700": [(14, None, "dont_know")],
    }
    for order, (visual, instances) in enumerate(judged.items()):
        item = PoolItemFactory.create(
            topic=topic, key=visual, visual_id=visual, post_id=None, display_order=order
        )
        for position, (formula_id, grade, flag) in enumerate(instances):
            hit = HitFactory.create(
                item=item,
                formula_id=formula_id,
                post_id=formulas[formula_id].post_id,
                position=position,
            )
            JudgmentFactory.create(
                assignment=assignment, hit=hit, grade=grade, flag=flag, comment="?" if flag else ""
            )
    items = qrels_export(task=task)
    assert items.content == "B.1\t0\t500\t3\nB.1\t0\t600\t0\n"  # 700 only flagged: unjudged
    instance_qrels = qrels_export(task=task, level="instance")
    assert instance_qrels.content == "B.1\t0\t11\t1\nB.1\t0\t12\t3\nB.1\t0\t13\t0\n"

    run = RunFactory.create(task=task)
    for rank, (formula_id, score) in enumerate(((13, 3.0), (11, 2.0), (12, 1.0), (14, 0.5)), 1):
        RunRowFactory.create(
            run=run, topic=topic, formula_id=formula_id, post_id=None, rank=rank, score=score
        )
    evaluation_job_run(job=EvaluationJob.objects.create(task=task, qrels=items))
    result = EvaluationResult.objects.get(run=run)
    # Visual ids ranked 600 (N), 500 (H); 700 is unjudged and dropped.
    assert result.measures["map_prime"] == pytest.approx(0.5)
    assert result.per_topic["B.1"]["judged_at_10"] == pytest.approx(2 / 3)


def test_openqa_qrels_count_flags_as_zero_and_runs_get_ar_and_p1_when_judged() -> None:
    # Task 3 rows are one per run's answer id, not one per answer text.
    answer_task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER, min_relevant=0)
    openqa = RetrievalTaskFactory.create(
        kind=RetrievalTask.Kind.OPENQA,
        campaign=answer_task.campaign,
        answer_task=answer_task,
        min_relevant=0,
    )
    pooled = {n: TopicFactory.create(task=answer_task, number=n) for n in ("A.1", "A.2")}
    own = {n: TopicFactory.create(task=openqa, number=n) for n in ("A.1", "A.2")}
    texts = {"A.1": "Because $x^2 \\geq 0$.", "A.2": "No idea."}
    grades = {"A.1": (3, ""), "A.2": (None, Judgment.Flag.SYSTEM_FAILURE)}
    run = RunFactory.create(task=openqa)
    post_item = PoolItemFactory.create(topic=pooled["A.1"], display_order=99)
    for number, topic in pooled.items():
        RunRowFactory.create(
            run=run, topic=own[number], post_id=None, rank=1, score=1.0, answer=texts[number]
        )
        assignment = AssignmentFactory.create(topic=topic, purpose=Assignment.Purpose.OFFICIAL)
        item = PoolItemFactory.create(
            topic=topic, key=answer_key(texts[number]), post_id=None, answer=texts[number]
        )
        ContributionFactory.create(item=item, run=run, rank=1)
        grade, flag = grades[number]
        JudgmentFactory.create(
            assignment=assignment,
            hit=HitFactory.create(item=item, post_id=None),
            grade=grade,
            flag=flag,
            comment="broken" if flag else "",
        )
        if number == "A.1":  # an ordinary answer post in the same pool is not Task 3's
            JudgmentFactory.create(
                assignment=assignment, hit=HitFactory.create(item=post_item), grade=1
            )
    qrels = qrels_export(task=openqa)
    ids = {n: answer_id(run.pk, answer_key(texts[n])) for n in texts}
    assert qrels.content == f"A.1\t0\t{ids['A.1']}\t3\nA.2\t0\t{ids['A.2']}\t0\n"
    assert str(post_item.post_id) not in qrels_export(task=openqa).content
    assert f"\t{post_item.post_id}\t1" in qrels_export(task=answer_task).content

    evaluation_job_run(job=EvaluationJob.objects.create(task=openqa, qrels=qrels))
    result = EvaluationResult.objects.get(run=run)
    assert result.measures["ar"] == pytest.approx(1.5)
    assert result.measures["p1"] == pytest.approx(0.5)
    assert result.measures["answers"] == ids
