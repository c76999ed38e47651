"""Evaluation API: qrels versions (staff) and results (staff; participants once published)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

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

    permission_classes = [IsAdminUser]
    serializer_class = QrelsVersionSerializer

    def get_queryset(self) -> QuerySet[QrelsVersion]:
        versions = QrelsVersion.objects.select_related("created_by").defer("content")
        task = self.request.query_params.get("task", "")
        return versions.filter(task_id=int(task)) if task.isdigit() else versions

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
    permission_classes = [IsAdminUser]
    serializer_class = QrelsVersionSerializer
    queryset = QrelsVersion.objects.select_related("created_by").defer("content")


class QrelsDownloadView(APIView):
    """The qrels file itself: ``topic 0 id grade``, tab-separated."""

    permission_classes = [IsAdminUser]

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
        results = EvaluationResult.objects.select_related("run__team").order_by("run_id", "-id")
        params = self.request.query_params
        if params.get("task", "").isdigit():
            results = results.filter(run__task_id=int(params["task"]))
        if params.get("qrels", "").isdigit():
            results = results.filter(qrels_id=int(params["qrels"]))
        user = self.request.user
        if user.is_staff:
            return results
        return results.filter(
            run__task__campaign__results_published=True, run__team__members=user.pk
        ).distinct()

    @extend_schema(
        parameters=[TASK_PARAMETER, OpenApiParameter("qrels", int, description="qrels version")]
    )
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)
