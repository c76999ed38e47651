"""An assessor's labels under their own assignment: which nuggets an answer supports, and
whether each cited segment supports its sentence."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from nuggets.access import own_nugget_assignment
from nuggets.core.citations import CitationSupport
from nuggets.core.scores import Support
from nuggets.services.labels import (
    CitationVerdict,
    LabelRefused,
    citation_labels_submit,
    nugget_labels_submit,
)

SUPPORT = [s.value for s in Support]
CITATION_SUPPORT = [s.value for s in CitationSupport]
MAX_LABELS = 1000  # a topic's nuggets (nuggetizer.MAX_NUGGETS_PER_TOPIC)


class LabelsSerializer(serializers.Serializer[Any]):
    answer = serializers.IntegerField(min_value=1)
    labels = serializers.DictField(child=serializers.ChoiceField(SUPPORT), allow_empty=False)
    client_token = serializers.CharField(required=False, allow_blank=True, max_length=64)

    def validate_labels(self, value: dict[str, str]) -> dict[int, str]:
        if len(value) > MAX_LABELS:
            raise serializers.ValidationError(f"at most {MAX_LABELS} labels a request")
        try:
            return {int(key): support for key, support in value.items()}
        except ValueError as exc:
            raise serializers.ValidationError("labels map nugget ids to a support") from exc


class AssignmentLabelsView(APIView):
    """POST the labels of one answer under the caller's own assignment (idempotent by
    client_token; a changed label is revised, every value kept)."""

    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser]

    @extend_schema(request=LabelsSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = own_nugget_assignment(request.user, assignment_id)
        body = LabelsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            saved = nugget_labels_submit(
                assignment_id=assignment.pk,
                answer_id=data["answer"],
                labels=data["labels"],
                assessor=request.user,  # type: ignore[arg-type]
                client_token=data.get("client_token", ""),
            )
        except LabelRefused as exc:
            return Response({"detail": exc.message}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {
                "labels": {str(label.nugget_id): label.support for label in saved.labels},
                "created": saved.created,
                "changed": saved.changed,
            }
        )


class CitationVerdictSerializer(serializers.Serializer[Any]):
    sentence = serializers.IntegerField(min_value=0, max_value=10_000)
    segment = serializers.CharField(max_length=200)
    support = serializers.ChoiceField(CITATION_SUPPORT)


class CitationLabelsSerializer(serializers.Serializer[Any]):
    answer = serializers.IntegerField(min_value=1)
    labels = serializers.ListField(
        child=CitationVerdictSerializer(), allow_empty=False, max_length=MAX_LABELS
    )
    client_token = serializers.CharField(required=False, allow_blank=True, max_length=64)


class AssignmentCitationsView(APIView):
    """POST whether each cited segment supports its sentence (full, partial, none) under the
    caller's own assignment (idempotent by client_token; changes revised, history kept)."""

    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser]

    @extend_schema(request=CitationLabelsSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = own_nugget_assignment(request.user, assignment_id)
        body = CitationLabelsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            saved = citation_labels_submit(
                assignment_id=assignment.pk,
                answer_id=data["answer"],
                verdicts=[CitationVerdict(**v) for v in data["labels"]],
                assessor=request.user,  # type: ignore[arg-type]
                client_token=data.get("client_token", ""),
            )
        except LabelRefused as exc:
            return Response({"detail": exc.message}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {
                "labels": [
                    {"sentence": c.sentence, "segment": c.segment, "support": c.support}
                    for c in saved
                ]
            }
        )
