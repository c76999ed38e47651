"""Storing a run's grades as the machine judge's judgments, with their provenance.

As a grades file is stored (assessment.services.machine_judges): one machine assignment per
topic, the judging service's bulk path (the task's scale, the pool lock, a revision of every
change). Only the hits the run covered are touched; the judge's other grades stay. Each grade
records the answer it came from (JudgeGradeSource).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db import transaction

from assessment.models import Assignment, MachineJudge
from assessment.selectors.guidelines import guidelines_current
from assessment.services.judging import HitVerdict, machine_judgments_store
from judges.models import JudgeGradeSource, JudgeRun

__all__ = ["run_grades_store"]


def run_grades_store(
    *, run: JudgeRun, graded: Iterable[tuple[int, int, int, int]]
) -> tuple[int, int]:
    """Store ``graded`` = (topic id, hit id, grade, answer id) as ``run.judge``'s grades, one
    transaction a topic. Returns (created, changed)."""
    judge: MachineJudge = run.judge
    current = guidelines_current(task=run.task)
    per_topic: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for topic_id, hit_id, grade, answer_id in graded:
        per_topic[topic_id].append((hit_id, grade, answer_id))
    created = changed = 0
    for topic_id in sorted(per_topic):
        rows = per_topic[topic_id]
        with transaction.atomic():
            assignment = Assignment.objects.filter(
                topic_id=topic_id,
                assessor_id=judge.account_id,
                purpose=Assignment.Purpose.MACHINE,
                revoked_at__isnull=True,
            ).first()
            if assignment is None:
                assignment = Assignment.objects.create(
                    topic_id=topic_id,
                    assessor_id=judge.account_id,
                    purpose=Assignment.Purpose.MACHINE,
                    created_by=run.requested_by,
                )
            made, altered, _ = machine_judgments_store(
                assignment=assignment,
                verdicts=[HitVerdict(hit_id=hit, grade=grade) for hit, grade, _ in rows],
                scale=current.scale,
                guidelines_version_id=current.version_id,
            )
            created += made
            changed += altered
            JudgeGradeSource.objects.bulk_create(
                [
                    JudgeGradeSource(judge=judge, hit_id=hit, answer_id=answer, run=run)
                    for hit, _, answer in rows
                ],
                update_conflicts=True,
                unique_fields=["judge", "hit"],
                update_fields=["answer", "run"],
            )
    return created, changed
