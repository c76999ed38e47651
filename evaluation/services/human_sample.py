"""Draw the pool items people judge beside a machine judge (people and machine together).

The draw is ``evaluation.core.human_sample``'s: stratified by the machine's grade, most of the
budget where it is least sure, the rest at random, each item's inclusion probability weighted
by how much it counts in the runs' official measures, and recorded with the item.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from assessment.models import MachineJudge
from assessment.selectors.agreement.table import scale_points
from assessment.services.assignments.rules import AssignmentError
from assessment.services.assignments.scoped import ItemsRouted, items_route
from collection.models import RetrievalTask
from evaluation.core.human_sample import (
    DEFAULT_UNCERTAIN_SHARE,
    SampleError,
    item_weight,
    sample_plan,
)
from evaluation.core.ppi import machine_norms, run_weights
from evaluation.models import HumanSample, HumanSampleChance, HumanSampleItem
from evaluation.selectors.human_sample import linear_measures_of, machine_item_grades, task_runs
from evaluation.selectors.sample_routing import sample_routing

__all__ = [
    "ItemsRouted",
    "SampleError",
    "human_sample_assign",
    "human_sample_draw",
    "routed_message",
]

MAX_BUDGET = 1_000_000


def human_sample_draw(
    *,
    task: RetrievalTask,
    judge: MachineJudge,
    budget: int,
    seed: int = 0,
    uncertain_share: float = DEFAULT_UNCERTAIN_SHARE,
    created_by: Any = None,
) -> HumanSample:
    """Draw about ``budget`` of the items ``judge`` graded for people to judge, replacing the
    judge's earlier draw. SampleError when the judge graded nothing or the budget is out of
    bounds."""
    if judge.task_id != task.pk:
        raise SampleError(f"machine judge {judge.name} is not a judge of this task")
    if not 1 <= budget <= MAX_BUDGET:
        raise SampleError(f"the human budget must be between 1 and {MAX_BUDGET:,}, not {budget}")
    machine = machine_item_grades(task, judge)
    measures, _ = linear_measures_of(task)
    topics = sorted({t for t, _ in machine})
    per_run: dict[str, dict[tuple[str, str], float]] = {}
    runs = task_runs(task) if measures else {}
    for m in measures:
        norms = machine_norms(m, machine, topics)
        for label, run in runs.items():
            per_run[f"{m.name} {label}"] = run_weights(m, run, topics, norms)
    weights = item_weight(per_run, machine) if per_run else None
    top = max(scale_points(task).categories)
    plan = sample_plan(
        machine,
        budget,
        rng=random.Random(seed),  # noqa: S311 (a reproducible draw, not a secret)
        top_grade=top,
        weights=weights,
        uncertain_share=uncertain_share,
    )
    with transaction.atomic():
        HumanSample.objects.filter(task=task, judge=judge).delete()
        sample = HumanSample.objects.create(
            task=task,
            judge=judge,
            budget=budget,
            seed=seed,
            uncertain_share=uncertain_share,
            machine_items=len(machine),
            created_by=created_by if getattr(created_by, "pk", None) else None,
        )
        HumanSampleItem.objects.bulk_create(
            [
                HumanSampleItem(
                    sample=sample,
                    topic=d.topic,
                    item=d.item,
                    stratum=d.stratum,
                    inclusion=d.inclusion,
                )
                for d in plan.draws
            ],
            batch_size=5000,
        )
        HumanSampleChance.objects.bulk_create(
            [
                HumanSampleChance(sample=sample, topic=t, item=i, inclusion=p)
                for (t, i), p in sorted(plan.chances.items())
            ],
            batch_size=5000,
        )
    return sample


def human_sample_assign(
    *, sample: HumanSample, assessors: Sequence[User], created_by: Any = None
) -> ItemsRouted:
    """Send the drawn items no person has judged yet to ``assessors``, topic by topic, as
    scoped official assignments (``assessment.services.assignments.scoped``): the assessors
    judge exactly those items, blind to the machine's grade and to why an item was drawn.
    Idempotent: what is already in a queue is not added again, so a second call adds nothing
    and a call after a new draw adds only its new items. A judgment already made counts.
    SampleError when no assessor is chosen or one may not be given topics."""
    waiting = sample_routing(sample).waiting
    try:
        return items_route(
            items=waiting,
            assessors=assessors,
            created_by=created_by if getattr(created_by, "pk", None) else None,
        )
    except AssignmentError as error:
        raise SampleError("; ".join(error.problems)) from None


def routed_message(routed: ItemsRouted, topic_numbers: dict[int, str]) -> str:
    """What sending a sample to assessors did, in the organizer's words (page, REST and
    command say the same): how many items went out, which new assignments hold them (topic →
    assessor), how many a whole-topic assignment already covered."""
    if not routed.added and not routed.created:
        sent = "Nothing new to send: every drawn item no person has judged is already queued"
    else:
        sent = f"Sent {routed.added} drawn item{'s' if routed.added != 1 else ''} to assessors"
    if routed.created:
        pairs = ", ".join(
            f"{topic_numbers.get(a.topic_id, a.topic_id)} → {a.assessor.get_username()}"
            for a in routed.created
        )
        sent += f"; new assignment{'s' if len(routed.created) != 1 else ''} {pairs}"
    if routed.covered:
        sent += f"; {routed.covered} already in a whole-topic assignment"
    return sent + "."
