"""Adjudication of disputed nugget labels: the answers whose labels disagree, and an
organizer's final labels for one answer."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from collection.models import RetrievalTask
from kernel.access import IsOrganizer
from nuggets.access import rag_task_for
from nuggets.api.views.labels import MAX_LABELS, SUPPORT
from nuggets.models import ADJUDICATION_NOTE_MAX_CHARS
from nuggets.selectors.adjudication import STATES, answer_adjudication, answer_disputes
from nuggets.services.adjudication import NuggetAdjudicationError, nugget_adjudication_decide


class NuggetDisputeQuerySerializer(serializers.Serializer[Any]):
    state = serializers.ChoiceField(list(STATES), required=False, default="undecided")
    machine = serializers.BooleanField(required=False, default=False)


class NuggetAdjudicationSerializer(serializers.Serializer[Any]):
    answer = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
    finals = serializers.DictField(child=serializers.ChoiceField(SUPPORT), allow_empty=False)
    note = serializers.CharField(
        required=False, allow_blank=True, max_length=ADJUDICATION_NOTE_MAX_CHARS
    )
    machine = serializers.BooleanField(required=False, default=False)

    def validate_finals(self, value: dict[str, str]) -> dict[int, str]:
        if len(value) > MAX_LABELS:
            raise serializers.ValidationError(f"at most {MAX_LABELS} final labels a request")
        if not all(key.isascii() and key.isdigit() and 0 < len(key) < 19 for key in value):
            raise serializers.ValidationError("finals map nugget ids to a support")
        return {int(key): support for key, support in value.items()}


def _dispute_json(task: RetrievalTask, answer_id: int, machine: bool) -> dict[str, Any]:
    """One answer's live nuggets with every label given and the final label, blind to run and
    team as the page is."""
    shown = answer_adjudication(task, answer_id, with_machine=machine)
    if shown is None:  # the service has just accepted it: only a concurrent delete
        raise Http404(f"answer {answer_id} is not one of this task's")
    return {
        "answer": shown.answer.pk,
        "topic": shown.answer.topic.number,
        "nuggets": [
            {
                "id": v.nugget.pk,
                "text": v.nugget.text,
                "importance": v.nugget.importance,
                "disputed": v.disputed,
                "labels": [
                    {"assessor": o.assessor, "purpose": o.purpose, "support": o.support}
                    for o in v.opinions
                ],
                "final": v.final.support if v.final else None,
                "note": v.final.note if v.final else "",
            }
            for v in shown.nuggets
        ],
    }


class NuggetAdjudicationView(APIView):
    """GET the answers whose nugget labels disagree (``state``: undecided | all; ``machine``:
    machine judges' labels count too); POST an organizer's final labels for one answer (the
    adjudication page's service: all or nothing, a label sent as stored is left as it is)."""

    permission_classes = [IsOrganizer]
    parser_classes = [JSONParser]

    @extend_schema(parameters=[NuggetDisputeQuerySerializer], responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, task_id: int) -> Response:
        task = rag_task_for(request.user, task_id)
        query = NuggetDisputeQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        state, machine = query.validated_data["state"], query.validated_data["machine"]
        disputes = answer_disputes(task, with_machine=machine)
        listed = [d for d in disputes if state == "all" or not d.is_decided]
        return Response(
            {
                "state": state,
                "machine": machine,
                "undecided": sum(1 for d in disputes if not d.is_decided),
                "answers": [
                    {
                        "answer": d.answer_id,
                        "topic": d.topic,
                        "disputed": d.disputed,
                        "decided": d.decided,
                    }
                    for d in listed
                ],
            }
        )

    @extend_schema(request=NuggetAdjudicationSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, task_id: int) -> Response:
        task = rag_task_for(request.user, task_id)
        body = NuggetAdjudicationSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            made = nugget_adjudication_decide(
                task=task,
                answer_id=data["answer"],
                finals=data["finals"],
                decided_by=request.user,  # type: ignore[arg-type]
                note=data.get("note", ""),
                with_machine=data["machine"],
            )
        except NuggetAdjudicationError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        body_out = _dispute_json(task, data["answer"], data["machine"])
        body_out["changed"] = sorted(a.nugget_id for a in made)
        return Response(body_out)
