"""Agreement of nugget labels: each second opinion (a dual assessor or a machine judge) against
the final labels of the same (answer, nugget) pairs, over the task's topics: an organizer's
adjudication where there is one, else the official assessor's label (the labels the scores
count). How many compared pairs were adjudicated is given with each row.

Cohen's kappa (``assessment.core.agreement``, one home for it) three-way over not_support <
partial_support < support, and two-way with partial support counted as no support (as the
strict scores count it), beside the share of pairs labelled alike.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from assessment.core.agreement import Agreement, cohen_kappa, percentage_agreement
from assessment.models import Assignment
from collection.models import RetrievalTask
from nuggets.core.scores import Support
from nuggets.models import NuggetAdjudication, NuggetLabel

ORDER = {Support.NONE: 0, Support.PARTIAL: 1, Support.SUPPORT: 2}


@dataclass(frozen=True)
class LabelAgreement:
    assessor: str
    purpose: str
    pairs: int
    agreement: Agreement
    kappa: Agreement
    kappa_strict: Agreement
    adjudicated: int  # of the pairs, those whose final label is an adjudication


def nugget_label_agreement(task: RetrievalTask) -> list[LabelAgreement]:
    """One row per second opinion (assessor and purpose), against the final labels."""
    official: dict[tuple[int, int], int] = {}
    others: dict[tuple[str, str], dict[tuple[int, int], int]] = defaultdict(dict)
    rows = NuggetLabel.objects.filter(
        assignment__topic__task=task, assignment__revoked_at__isnull=True
    ).values_list(
        "answer_id", "nugget_id", "support", "assignment__purpose", "assignment__assessor__username"
    )
    for answer_id, nugget_id, support, purpose, username in rows:
        grade = ORDER[Support(support)]
        if purpose == Assignment.Purpose.OFFICIAL:
            official[(answer_id, nugget_id)] = grade
        elif purpose in (Assignment.Purpose.DUAL, Assignment.Purpose.MACHINE):
            others[(username, purpose)][(answer_id, nugget_id)] = grade
    adjudicated = set()
    finals = NuggetAdjudication.objects.filter(answer__run__task=task).values_list(
        "answer_id", "nugget_id", "support"
    )
    for answer_id, nugget_id, support in finals:
        official[(answer_id, nugget_id)] = ORDER[Support(support)]
        adjudicated.add((answer_id, nugget_id))
    found = []
    for (username, purpose), rating in sorted(others.items()):
        strict_a = {k: int(v == 2) for k, v in official.items()}
        strict_b = {k: int(v == 2) for k, v in rating.items()}
        agreement = percentage_agreement(official, rating)
        found.append(
            LabelAgreement(
                assessor=username,
                purpose=purpose,
                pairs=agreement.n,
                agreement=agreement,
                kappa=cohen_kappa(official, rating, categories=(0, 1, 2)),
                kappa_strict=cohen_kappa(strict_a, strict_b, categories=(0, 1)),
                adjudicated=len(adjudicated.intersection(rating)),
            )
        )
    return found
