"""A RAG topic's nugget list: read it, and the organizers' changes to it (add, edit, move,
merge, delete, and decisions on machine proposals)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kernel.access import IsOrganizer
from nuggets.access import rag_topic_for
from nuggets.core.nuggetizer import MAX_NUGGET_CHARS
from nuggets.core.scores import Importance
from nuggets.selectors import topic_nuggets
from nuggets.services.nuggets import (
    NuggetError,
    nugget_add,
    nugget_delete,
    nugget_edit,
    nugget_merge,
    nugget_move,
    proposal_decide,
)

IMPORTANCE = [i.value for i in Importance]


def _nugget_json(topic_id: int) -> list[dict[str, Any]]:
    return [
        {
            "id": n.pk,
            "text": n.text,
            "importance": n.importance,
            "position": n.position,
            "origin": n.origin,
            "provenance": n.provenance,
        }
        for n in topic_nuggets(topic_id)
    ]


class NuggetChangeSerializer(serializers.Serializer[Any]):
    action = serializers.ChoiceField(
        ["add", "edit", "move", "merge", "delete", "accept", "edit_proposal", "reject"]
    )
    nugget = serializers.IntegerField(required=False, min_value=1)
    nuggets = serializers.ListField(
        child=serializers.IntegerField(min_value=1), required=False, max_length=100
    )
    proposal = serializers.IntegerField(required=False, min_value=1)
    text = serializers.CharField(required=False, max_length=MAX_NUGGET_CHARS)
    importance = serializers.ChoiceField(IMPORTANCE, required=False)
    position = serializers.IntegerField(required=False, min_value=0, max_value=100_000)


class TopicNuggetsView(APIView):
    """GET a RAG topic's nuggets; POST one change to them (organizers)."""

    permission_classes = [IsOrganizer]
    parser_classes = [JSONParser]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, topic_id: int) -> Response:
        topic = rag_topic_for(topic_id)
        return Response({"topic": topic.number, "nuggets": _nugget_json(topic.pk)})

    @extend_schema(request=NuggetChangeSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, topic_id: int) -> Response:
        topic = rag_topic_for(topic_id)
        change = NuggetChangeSerializer(data=request.data)
        change.is_valid(raise_exception=True)
        data = change.validated_data
        try:
            _apply_change(topic, data, request.user)
        except NuggetError as exc:
            return Response({"detail": exc.message}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"topic": topic.number, "nuggets": _nugget_json(topic.pk)})


def _required(data: dict[str, Any], name: str) -> Any:
    if name not in data:
        raise NuggetError(f"{data['action']} needs {name}")
    return data[name]


def _apply_change(topic: Any, data: dict[str, Any], user: Any) -> None:
    action = data["action"]
    if action == "add":
        nugget_add(
            topic=topic,
            text=_required(data, "text"),
            importance=data.get("importance", Importance.OKAY),
            user=user,
        )
    elif action == "edit":
        nugget_edit(
            topic=topic,
            nugget_id=_required(data, "nugget"),
            text=data.get("text"),
            importance=data.get("importance"),
            user=user,
        )
    elif action == "move":
        nugget_move(
            topic=topic,
            nugget_id=_required(data, "nugget"),
            position=_required(data, "position"),
            user=user,
        )
    elif action == "merge":
        nugget_merge(topic=topic, nugget_ids=_required(data, "nuggets"), user=user)
    elif action == "delete":
        nugget_delete(topic=topic, nugget_id=_required(data, "nugget"), user=user)
    else:
        decision = {"accept": "accepted", "edit_proposal": "edited", "reject": "rejected"}[action]
        proposal_decide(
            topic=topic,
            proposal_id=_required(data, "proposal"),
            decision=decision,
            text=data.get("text"),
            importance=data.get("importance"),
            user=user,
        )
