"""Evaluation API: qrels versions and readiness (staff), results (staff; participants their
own runs on published tasks), publication (staff)."""

from __future__ import annotations

from dataclasses import asdict

from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from collection.access import task_for
from collection.models import RetrievalTask
from evaluation import selectors
from evaluation.access import publication_task_for, results_visible_to
from evaluation.api.serializers import (
    EvaluationResultSerializer,
    OfficialMeasuresSerializer,
    PublicationSerializer,
    PublishSerializer,
    QrelsExportSerializer,
    QrelsReadinessSerializer,
    QrelsVersionSerializer,
)
from evaluation.core.official import default_text, official_measure_names
from evaluation.models import EvaluationResult, PublicationEvent, QrelsVersion
from evaluation.services import (
    OfficialMeasuresError,
    PublicationError,
    QrelsExportError,
    QrelsIncompleteError,
    official_measures_set,
    qrels_export,
    qrels_policy,
    results_publish,
    results_withdraw,
)
from kernel.access import IsOrganizer
from kernel.params import parse_choice, parse_id, parse_int

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
        task = data["task"]
        policy = qrels_policy(
            task=task, use_dual=data["use_dual"], min_relevant=data.get("min_relevant")
        )
        try:
            version = qrels_export(
                task=task,
                policy=policy,
                level=data["level"],
                created_by=request.user,
                label=data["label"],
                allow_incomplete=data["allow_incomplete"],
            )
        except QrelsIncompleteError as error:
            unjudged = {t.topic: t.unjudged for t in error.readiness.incomplete_topics}
            return Response(
                {"detail": f"{error} (allow_incomplete)", "unjudged": unjudged},
                status=status.HTTP_400_BAD_REQUEST,
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


class QrelsReadinessView(APIView):
    """How complete a task's judging is, per topic, before an export (the qrels page's table).
    ``min_relevant`` and ``use_dual`` preview another policy than the task's default."""

    permission_classes = [IsOrganizer]

    @extend_schema(
        parameters=[
            OpenApiParameter("min_relevant", int, description="default: the task's setting"),
            OpenApiParameter("use_dual", bool, description="default: true"),
        ],
        responses={200: QrelsReadinessSerializer},
    )
    def get(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        params = request.query_params
        policy = qrels_policy(
            task=task,
            use_dual=parse_choice(
                params.get("use_dual"), name="use_dual", choices=["true", "false"], default="true"
            )
            == "true",
            min_relevant=parse_int(
                params.get("min_relevant"), name="min_relevant", low=0, high=1000, default=None
            ),
        )
        readiness = selectors.task_readiness(task, policy)
        body = {
            "task": task.pk,
            "min_relevant": readiness.min_relevant,
            "complete": readiness.complete,
            "items": readiness.items,
            "judged": readiness.judged,
            "flagged": readiness.flagged,
            "unjudged": readiness.unjudged,
            "topics": [asdict(t) for t in readiness.topics],
        }
        return Response(QrelsReadinessSerializer(body).data)


class ResultListView(generics.ListAPIView):
    """Evaluation results: staff see all (``current`` says whether the run was replaced
    since); a participant sees their teams' current results on each published task's
    official qrels."""

    serializer_class = EvaluationResultSerializer

    def get_queryset(self) -> QuerySet[EvaluationResult]:
        results = results_visible_to(self.request.user).select_related("run__team", "qrels")
        results = results.defer("qrels__content")
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


class PublicationView(APIView):
    """A task's publication: GET its state and record, POST ``{"qrels": id}`` to publish with
    that official qrels version, DELETE to withdraw (the record stays)."""

    permission_classes = [IsOrganizer]

    def _state(self, task: RetrievalTask) -> Response:
        publication = selectors.publication_of(task)
        body = {
            "task_id": task.pk,
            "published": bool(publication and publication.published),
            "qrels_id": publication.qrels_id if publication else None,
            "changed_at": publication.changed_at if publication else None,
            "events": PublicationEvent.objects.filter(task=task),
        }
        return Response(PublicationSerializer(body).data)

    @extend_schema(responses={200: PublicationSerializer})
    def get(self, request: Request, task_id: int) -> Response:
        return self._state(publication_task_for(request.user, task_id))

    @extend_schema(request=PublishSerializer, responses={200: PublicationSerializer})
    def post(self, request: Request, task_id: int) -> Response:
        task = publication_task_for(request.user, task_id)
        incoming = PublishSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        qrels = QrelsVersion.objects.filter(task=task, pk=incoming.validated_data["qrels"]).first()
        if qrels is None:
            raise ValidationError({"qrels": f"no qrels version of task {task.pk} has that id"})
        try:
            results_publish(task=task, qrels=qrels, by=request.user)
        except PublicationError as error:
            raise ValidationError({"detail": str(error)}) from error
        return self._state(task)

    @extend_schema(responses={200: PublicationSerializer})
    def delete(self, request: Request, task_id: int) -> Response:
        task = publication_task_for(request.user, task_id)
        try:
            results_withdraw(task=task, by=request.user)
        except PublicationError as error:
            raise ValidationError({"detail": str(error)}) from error
        return self._state(task)


class OfficialMeasuresView(APIView):
    """A task's official measures: GET them, PUT ``{"official_measures": [names]}`` to set them
    (checked by the measure parser: an unknown name is a 400 naming it; ``[]``: the defaults)."""

    permission_classes = [IsOrganizer]

    def _state(self, task: RetrievalTask) -> Response:
        body = {
            "task_id": task.pk,
            "official_measures": task.official_measures,
            "defaults": default_text(task.kind),
            "scored_with": official_measure_names(task.kind, task.official_measures),
        }
        return Response(OfficialMeasuresSerializer(body).data)

    @extend_schema(responses={200: OfficialMeasuresSerializer})
    def get(self, request: Request, task_id: int) -> Response:
        return self._state(task_for(request.user, task_id))

    @extend_schema(request=OfficialMeasuresSerializer, responses={200: OfficialMeasuresSerializer})
    def put(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        incoming = OfficialMeasuresSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        try:
            official_measures_set(task=task, names=incoming.validated_data["official_measures"])
        except OfficialMeasuresError as error:
            raise ValidationError({"official_measures": [str(error)]}) from error
        return self._state(task)

    @extend_schema(request=OfficialMeasuresSerializer, responses={200: OfficialMeasuresSerializer})
    def post(self, request: Request, task_id: int) -> Response:
        """The same as PUT, for clients that only POST."""
        return self.put(request, task_id)
