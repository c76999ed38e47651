"""Upload of a RAG run (TREC RAG 2024 or 2025 JSONL) by a team."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from collection.models import RetrievalTask
from nuggets.services.runs import rag_run_submit
from pooling.access import team_for_user
from pooling.api.throttles import RUN_UPLOAD_SCOPE, run_upload_throttle
from pooling.services.runs import RunValidationError, SubmissionRefused


class RagRunUploadSerializer(serializers.Serializer[Any]):
    task = serializers.PrimaryKeyRelatedField(
        queryset=RetrievalTask.objects.filter(kind=RetrievalTask.Kind.RAG)
    )
    file = serializers.FileField()
    tag = serializers.CharField(required=False, max_length=40)
    team = serializers.CharField(required=False, max_length=100)
    description = serializers.CharField(required=False, allow_blank=True, max_length=4000)


class RagRunUploadView(APIView):
    """POST a TREC RAG 2024 or 2025 JSONL run (multipart: task, file, tag, team)."""

    parser_classes = [MultiPartParser, FormParser]
    permission_classes = [IsAuthenticated]
    throttle_scope = RUN_UPLOAD_SCOPE
    body_limit_setting = "RUN_UPLOAD_MAX_BYTES"  # kernel.request_limits: 413 before reading

    def get_throttles(self) -> list[Any]:
        return [run_upload_throttle()]

    @extend_schema(request=RagRunUploadSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request) -> Response:
        upload = RagRunUploadSerializer(data=request.data)
        upload.is_valid(raise_exception=True)
        data = upload.validated_data
        team = team_for_user(request.user, team_name=data.get("team"))
        if team is None:
            return Response(
                {"detail": "name your team: you belong to no such team, or to several"},
                status=status.HTTP_400_BAD_REQUEST,
            )
        try:
            submission = rag_run_submit(
                task=data["task"],
                team=team,
                stream=data["file"],
                file_name=data["file"].name or "",
                uploaded_by=request.user,  # type: ignore[arg-type]
                tag=data.get("tag"),
                description=data.get("description", ""),
            )
        except RunValidationError as exc:
            return Response(
                {"detail": str(exc), "report": exc.report}, status=status.HTTP_400_BAD_REQUEST
            )
        except SubmissionRefused as exc:
            return Response({"detail": exc.message}, status=status.HTTP_400_BAD_REQUEST)
        run = submission.run
        body = {
            "run": {
                "id": run.pk,
                "tag": run.tag,
                "format": run.file_format,
                "version": run.version,
            },
            "answers": submission.answers,
            "created": submission.created,
        }
        return Response(body, status=status.HTTP_201_CREATED)
