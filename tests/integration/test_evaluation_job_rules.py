"""Evaluation jobs rank as trec_eval 9 does and read imported qrels as trec_eval reads them.

Figures worked out by hand: ARQMath's prime measures at relevance level 2 on the small judged
task of ``evaluation_data``, with an imported qrels file and two of run alpha's scores closer
than float32 can tell apart.
"""

import pytest

from evaluation.models import EvaluationJob, EvaluationResult
from evaluation.services import evaluation_job_run, qrels_import
from pooling.models import RunRow
from tests.integration.evaluation_data import judged_answer_task

# 999 is in the pool but not judged (-1); "#" lines are skipped.
QRELS = (
    "# official qrels, as a sampled pool writes them\n"
    "A.1\t0\t101\t3\nA.1\t0\t102\t0\nA.1\t0\t103\t2\nA.1\t0\t999\t-1\n"
    "A.2\t0\t201\t2\nA.2\t0\t202\t3\n"
)
# Alpha, A.1 in trec_eval's order: 101 (rel), 102, 103 (rel); 999 dropped as unjudged.
# AP = (1/1 + 2/3) / 2; A.2: 202, 201 both relevant, AP = 1. Reordered by float32 ties
# (102 before 101) A.1's AP would be (1/2 + 2/3) / 2.
ALPHA_MAP = (5 / 6 + 1) / 2
# Beta, A.1: 105 (not in these qrels, dropped), 101: AP = 1/2; A.2 missing scores 0.
BETA_MAP = (1 / 2) / 2


@pytest.mark.django_db
def test_job_keeps_trec_eval_order_and_reads_negative_grades_as_unjudged() -> None:
    data = judged_answer_task()
    alpha_a1 = RunRow.objects.filter(run=data.alpha, topic=data.topics["A.1"])
    alpha_a1.filter(post_id=101).update(score=100000.151)
    alpha_a1.filter(post_id=102).update(score=100000.150)
    qrels = qrels_import(task=data.task, text=QRELS)
    job = evaluation_job_run(job=EvaluationJob.objects.create(task=data.task, qrels=qrels))
    assert job.status == EvaluationJob.Status.DONE
    results = {r.run.tag: r for r in EvaluationResult.objects.select_related("run")}
    assert results["alpha"].measures["map_prime"] == pytest.approx(ALPHA_MAP, abs=1e-12)
    assert results["beta"].measures["map_prime"] == pytest.approx(BETA_MAP, abs=1e-12)
    # 999 is not judged: 3 of alpha's 4 A.1 documents are.
    assert results["alpha"].per_topic["A.1"]["judged_at_10"] == pytest.approx(3 / 4)
    # The significance tests pair the same per-topic figures.
    (pair,) = job.significance["measures"]["map_prime"]
    assert pair["mean_difference"] == pytest.approx(ALPHA_MAP - BETA_MAP, abs=1e-12)
