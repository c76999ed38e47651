"""A RAG task's nugget scores from the official labels, with the assessors' agreement."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from collection.access import task_for
from kernel.access import IsOrganizer
from nuggets.selectors import task_nugget_scores
from nuggets.selectors.agreement import nugget_label_agreement


class TaskScoresView(APIView):
    """GET every run's nugget scores from the official labels (organizers)."""

    permission_classes = [IsOrganizer]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        scores = task_nugget_scores(task)
        return Response(
            {
                "topics": scores.topics,
                "note": "a run without an answer to a topic scores 0 there",
                "agreement": [
                    {
                        "assessor": row.assessor,
                        "purpose": row.purpose,
                        "pairs": row.pairs,
                        "adjudicated": row.adjudicated,
                        "agreement": row.agreement.value,
                        "kappa": row.kappa.value,
                        "kappa_strict": row.kappa_strict.value,
                    }
                    for row in nugget_label_agreement(task)
                ],
                "runs": [
                    {
                        "run": row.run,
                        "team": row.team,
                        "measures": row.measures,
                        "per_topic": row.per_topic,
                        "judged": row.judged,
                        "to_judge": row.to_judge,
                        "support_precision": row.support_precision,
                        "support_recall": row.support_recall,
                    }
                    for row in scores.runs
                ],
            }
        )
