"""Evaluation API: qrels versions (staff) and results (staff; participants once published)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.access import IsOrganizer, results_visible_to
from config.params import parse_id
from evaluation.api.serializers import (
    EvaluationResultSerializer,
    QrelsExportSerializer,
    QrelsVersionSerializer,
)
from evaluation.models import EvaluationResult, QrelsVersion
from evaluation.qrels import DEFAULT_PRECEDENCE, QrelsPolicy
from evaluation.services import QrelsExportError, qrels_export

TASK_PARAMETER = OpenApiParameter("task", int, description="only this retrieval task")


class QrelsListView(generics.ListAPIView):
    """Frozen qrels versions, newest first. POST exports a new one from the judgments."""

    permission_classes = [IsOrganizer]
    serializer_class = QrelsVersionSerializer

    def get_queryset(self) -> QuerySet[QrelsVersion]:
        versions = QrelsVersion.objects.select_related("created_by").defer("content")
        task = parse_id(self.request.query_params.get("task"), name="task", default=None)
        return versions if task is None else versions.filter(task_id=task)

    @extend_schema(parameters=[TASK_PARAMETER])
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(request=QrelsExportSerializer, responses={201: QrelsVersionSerializer})
    def post(self, request: Request) -> Response:
        incoming = QrelsExportSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        precedence = DEFAULT_PRECEDENCE
        if not data["use_dual"]:
            precedence = tuple(s for s in precedence if s != "dual")
        try:
            version = qrels_export(
                task=data["task"],
                policy=QrelsPolicy(precedence, data.get("min_relevant")),
                level=data["level"],
                created_by=request.user,
                label=data["label"],
            )
        except QrelsExportError as error:
            raise ValidationError({"detail": str(error)}) from error
        return Response(QrelsVersionSerializer(version).data, status=status.HTTP_201_CREATED)


class QrelsDetailView(generics.RetrieveAPIView):
    permission_classes = [IsOrganizer]
    serializer_class = QrelsVersionSerializer
    queryset = QrelsVersion.objects.select_related("created_by").defer("content")


class QrelsDownloadView(APIView):
    """The qrels file itself: ``topic 0 id grade``, tab-separated."""

    permission_classes = [IsOrganizer]

    @extend_schema(responses={(200, "text/tab-separated-values"): str})
    def get(self, request: Request, pk: int) -> HttpResponse:
        version = get_object_or_404(QrelsVersion, pk=pk)
        response = HttpResponse(
            version.content, content_type="text/tab-separated-values; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="qrels-{version.checksum[:8]}.tsv"'
        response["X-Qrels-Checksum"] = version.checksum
        return response


class ResultListView(generics.ListAPIView):
    """Evaluation results: staff see all; a participant sees their teams' runs once the
    campaign's results are published."""

    serializer_class = EvaluationResultSerializer

    def get_queryset(self) -> QuerySet[EvaluationResult]:
        results = results_visible_to(self.request.user).select_related("run__team")
        params = self.request.query_params
        task = parse_id(params.get("task"), name="task", default=None)
        qrels = parse_id(params.get("qrels"), name="qrels", default=None)
        if task is not None:
            results = results.filter(run__task_id=task)
        if qrels is not None:
            results = results.filter(qrels_id=qrels)
        return results.order_by("run_id", "-id")

    @extend_schema(
        parameters=[TASK_PARAMETER, OpenApiParameter("qrels", int, description="qrels version")]
    )
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)
