"""Publication of a RAG task's nugget scores: the frozen snapshot, published or withdrawn."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kernel.access import is_organizer
from nuggets.access import rag_task_for
from nuggets.selectors.publication import nugget_publication_state, published_nugget_scores
from nuggets.services.publication import (
    NuggetPublicationError,
    nugget_scores_publish,
    nugget_scores_withdraw,
)


class NuggetPublicationSerializer(serializers.Serializer[Any]):
    action = serializers.ChoiceField(["publish", "withdraw"])


def _event_json(event: Any) -> dict[str, Any] | None:
    if event is None:
        return None
    return {
        "action": event.action,
        "at": event.at.isoformat(),
        "by": event.by_name,
        "checksum": event.snapshot.checksum,
    }


def _same(event: Any, latest: Any) -> bool:
    """The request changed nothing: the standing event was returned."""
    return latest is not None and event.pk == latest.pk


class NuggetPublicationView(APIView):
    """GET the published nugget scores (the frozen snapshot: each team its own runs while
    published, organizers every run); POST publish or withdraw them (organizers)."""

    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, task_id: int) -> Response:
        task = rag_task_for(request.user, task_id)
        shown = published_nugget_scores(request.user, task)
        if shown is None:
            if is_organizer(request.user):
                return Response({"published": False, "latest": None, "topics": [], "runs": []})
            raise NotFound("the nugget scores of this task are not published")
        return Response(
            {
                "published": shown.state.published,
                "latest": _event_json(shown.state.latest),
                "note": "a run without an answer to a topic scores 0 there",
                "topics": shown.topics,
                "measures": shown.measures,
                "runs": [
                    {
                        "run": row["run"],
                        "team": row["team"],
                        "measures": row["measures"],
                        "per_topic": row["per_topic"],
                        "judged": row["judged"],
                        "to_judge": row["to_judge"],
                    }
                    for row in shown.runs
                ],
            }
        )

    @extend_schema(request=NuggetPublicationSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, task_id: int) -> Response:
        if not is_organizer(request.user):
            raise PermissionDenied("only organizers publish or withdraw scores")
        task = rag_task_for(request.user, task_id)
        body = NuggetPublicationSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        action = body.validated_data["action"]
        state = nugget_publication_state(task)
        try:
            if action == "withdraw" and not state.published and state.latest is not None:
                event = state.latest  # withdrawn already: sending it again changes nothing
            else:
                event = (nugget_scores_publish if action == "publish" else nugget_scores_withdraw)(
                    task=task, by=request.user
                )
        except NuggetPublicationError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {"published": event.action == "publish", "latest": _event_json(event)},
            status=status.HTTP_200_OK if _same(event, state.latest) else status.HTTP_201_CREATED,
        )
