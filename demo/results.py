"""Demo step: qrels from the demo's judgments, and every run evaluated against them.

``demo_evaluate(campaign)`` exports each judged task's qrels (ARQMath's filter off and "export
anyway", so a half-judged demo still has topics; the versions say they are incomplete) and runs
the evaluation job in-process, so the results
page has tables, charts, significance and reusability to show. Idempotent: the same judgments
give the same frozen qrels version, and re-evaluating replaces the results.
"""

from __future__ import annotations

from collection.models import Campaign
from evaluation.models import EvaluationJob
from evaluation.services import QrelsExportError, evaluation_job_run, qrels_export, qrels_policy

__all__ = ["demo_evaluate"]


def demo_evaluate(campaign: Campaign | None) -> str:
    """Export qrels and evaluate the runs of every judged task; returns a summary line."""
    if campaign is None:
        return "  no campaign: skipped the evaluation"
    lines = []
    for task in campaign.tasks.order_by("kind", "name"):
        try:
            qrels = qrels_export(
                task=task,
                policy=qrels_policy(task=task, min_relevant=0),
                label="demo",
                allow_incomplete=True,
            )
        except QrelsExportError:
            lines.append(f"  {task.kind}: no judgments yet, not evaluated")
            continue
        job = EvaluationJob.objects.create(
            task=task, qrels=qrels, seed=campaign.seed, average=task.average
        )
        evaluation_job_run(job=job)
        lines.append(
            f"  {task.kind}: qrels {qrels.checksum[:12]} ({qrels.topic_count} topics, "
            f"{qrels.row_count} rows), {job.runs_done} runs evaluated: /results/{task.pk}/"
        )
    return "\n".join(lines)
