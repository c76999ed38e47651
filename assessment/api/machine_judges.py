"""Machine judges over REST (organizers only).

GET    /api/organize/tasks/<task>/machine-judges/          the task's judges
POST   the same, multipart: name, file, format (auto|qrels|jsonl), description,
       counts_in_qrels → 201 (a new judge) or 200 (replaced or unchanged) with the report;
       400 listing every problem with file, line and field (nothing stored then)
GET    /api/organize/tasks/<task>/machine-judges/<judge>/  one judge
PATCH  the same {"counts_in_qrels": true|false}  (switching one on switches the other off)
DELETE the same → 204; 400 while a training round takes its gold from it
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assessment.core.judge_grades import FORMATS
from assessment.models import COMMENT_MAX_CHARS, MachineJudge
from assessment.selectors.guidelines import guidelines_current
from assessment.selectors.machine_judges import MachineJudgeRow, machine_judges_of
from assessment.services.machine_judges import (
    MachineJudgeError,
    machine_judge_counts_in_qrels,
    machine_judge_delete,
    machine_judge_import,
)
from collection.access import task_for
from collection.models import RetrievalTask
from kernel.access import IsOrganizer

__all__ = ["MachineJudgeView", "MachineJudgesView"]


class ImportRequest(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=list(FORMATS), default="auto")
    description = serializers.CharField(
        max_length=COMMENT_MAX_CHARS, required=False, default="", allow_blank=True
    )
    counts_in_qrels = serializers.BooleanField(required=False, default=False)
    unlisted_not_relevant = serializers.BooleanField(
        required=False,
        default=False,
        help_text="The file lists only relevant items: grade 0 every pooled hit of a topic it "
        "grades that it does not list.",
    )


class CountsRequest(serializers.Serializer):
    counts_in_qrels = serializers.BooleanField()


def _row_out(row: MachineJudgeRow) -> dict[str, Any]:
    judge = row.judge
    return {
        "id": judge.pk,
        "name": judge.name,
        "label": row.label,
        "description": judge.description,
        "source": judge.source_name,
        "sha256": judge.checksum,
        "counts_in_qrels": judge.counts_in_qrels,
        "unlisted_not_relevant": judge.unlisted_not_relevant,
        "topics": row.topics,
        "judged_hits": row.judged_hits,
        "grades": {str(grade): n for grade, n in sorted(row.grades.items())},
        "training_rounds": row.training_rounds,
        "created_at": judge.created_at,
        "created_by": judge.created_by.get_username() if judge.created_by else None,
    }


def _rows(task: RetrievalTask) -> list[MachineJudgeRow]:
    return machine_judges_of(task, top=guidelines_current(task=task).scale.top)


def _row(task: RetrievalTask, judge_id: int) -> MachineJudgeRow:
    for row in _rows(task):
        if row.pk == judge_id:
            return row
    raise MachineJudge.DoesNotExist


class MachineJudgesView(APIView):
    permission_classes = [IsOrganizer]
    parser_classes = [MultiPartParser, FormParser]
    body_limit_setting = "MACHINE_JUDGE_UPLOAD_MAX_BYTES"  # kernel.request_limits: 413 unread

    @extend_schema(
        responses=OpenApiTypes.OBJECT,
        summary="A task's machine judges",
        operation_id="organize_tasks_machine_judges_list",
    )
    def get(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        return Response([_row_out(row) for row in _rows(task)])

    @extend_schema(
        request={"multipart/form-data": ImportRequest},
        responses=OpenApiTypes.OBJECT,
        summary="Import a machine judge's grades (qrels or JSONL)",
    )
    def post(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        form = ImportRequest(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            judge, report = machine_judge_import(
                task=task,
                name=data["name"],
                source=data["file"],
                file_format=data["format"],
                description=data["description"],
                counts_in_qrels=data["counts_in_qrels"],
                unlisted_not_relevant=data["unlisted_not_relevant"],
                created_by=request.user,
            )
        except MachineJudgeError as error:
            return Response({"problems": error.problems}, status=status.HTTP_400_BAD_REQUEST)
        code = status.HTTP_201_CREATED if report.status == "created" else status.HTTP_200_OK
        return Response({"id": judge.pk, **report.as_dict()}, status=code)


class MachineJudgeView(APIView):
    permission_classes = [IsOrganizer]
    parser_classes = [JSONParser, FormParser]

    def _judge(
        self, request: Request, task_id: int, judge_id: int
    ) -> tuple[RetrievalTask, MachineJudge]:
        task = task_for(request.user, task_id)
        return task, get_object_or_404(MachineJudge, pk=judge_id, task=task)

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="One machine judge")
    def get(self, request: Request, task_id: int, judge_id: int) -> Response:
        task, judge = self._judge(request, task_id, judge_id)
        return Response(_row_out(_row(task, judge.pk)))

    @extend_schema(
        request=CountsRequest,
        responses=OpenApiTypes.OBJECT,
        summary="Whether a machine judge counts in official qrels",
    )
    def patch(self, request: Request, task_id: int, judge_id: int) -> Response:
        task, judge = self._judge(request, task_id, judge_id)
        form = CountsRequest(data=request.data)
        form.is_valid(raise_exception=True)
        before = machine_judge_counts_in_qrels(
            judge=judge, counts=form.validated_data["counts_in_qrels"]
        )
        return Response({**_row_out(_row(task, judge.pk)), "replaced": before})

    @extend_schema(responses={204: None}, summary="Delete a machine judge and its grades")
    def delete(self, request: Request, task_id: int, judge_id: int) -> Response:
        _, judge = self._judge(request, task_id, judge_id)
        try:
            machine_judge_delete(judge=judge)
        except MachineJudgeError as error:
            return Response({"problems": error.problems}, status=status.HTTP_400_BAD_REQUEST)
        return Response(status=status.HTTP_204_NO_CONTENT)
