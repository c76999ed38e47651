"""The simulated assessors' verdicts, stored through the judging service like a person's.

Each pool item's verdicts of one assignment go to ``item_submit`` together (what pressing Enter
on the judging page does), so the demo's judgments obey every rule an assessor's do: the
task's grade scale, comments with flags, the assignment's scope, revisions, the topic's pool
lock. Only afterwards does the demo date them back over the last days (the service stamps
"now"), so the dashboard's progress chart spans days as in a real campaign: the timestamps
are the one thing it writes itself.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.utils import timezone

from assessment.models import Judgment
from assessment.services.judging import HitVerdict, item_submit
from demo.simulation import SimulatedJudgment
from pooling.models import PoolItem

__all__ = ["simulated_submit"]


def simulated_submit(judgments: Sequence[SimulatedJudgment]) -> int:
    """Submit ``judgments`` item by item through ``item_submit``; returns how many were
    stored. Raises the service's errors (JudgmentInvalid, JudgingNotFound) unchanged."""
    by_item: dict[tuple[int, int], list[SimulatedJudgment]] = defaultdict(list)
    for judgment in judgments:
        by_item[(judgment.assignment.pk, judgment.hit.item_id)].append(judgment)
    assessors = {
        user.pk: user
        for user in User.objects.filter(pk__in={j.assignment.assessor_id for j in judgments})
    }
    moments: dict[int, datetime] = {}
    for (_assignment_id, item_id), verdicts in by_item.items():
        assignment = verdicts[0].assignment
        stored = item_submit(
            assignment=assignment,
            item=PoolItem(pk=item_id),
            assessor=assessors[assignment.assessor_id],
            verdicts=[
                HitVerdict(hit_id=v.hit.hit_id, grade=v.grade, flag=v.flag, comment=v.comment)
                for v in verdicts
            ],
            active_seconds=sum(v.seconds for v in verdicts),
        )
        when = {v.hit.hit_id: v.when for v in verdicts}
        moments.update({j.pk: when[j.hit_id] for j in stored})
    _date_back(moments)
    return len(moments)


def _date_back(moments: dict[int, datetime]) -> None:
    """Show each judgment as given on its simulated day (one update per day)."""
    now = timezone.now()
    by_day: dict[int, list[int]] = defaultdict(list)
    for pk, when in moments.items():
        by_day[(now - when).days].append(pk)
    for days, pks in by_day.items():
        moment = now - timedelta(days=days, hours=3)
        Judgment.objects.filter(pk__in=pks).update(created_at=moment, updated_at=moment)
