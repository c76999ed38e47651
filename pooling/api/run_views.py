"""``/api/runs/``: upload (multipart), list own runs, one run with its validation report."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle

from pooling.access import runs_visible_to, team_for_user
from pooling.api.run_serializers import (
    RunDetailSerializer,
    RunRejectedSerializer,
    RunSerializer,
    RunSubmittedSerializer,
    RunUploadSerializer,
)
from pooling.api.throttles import RUN_UPLOAD_SCOPE, run_upload_throttle
from pooling.models import Run
from pooling.services.runs import (
    ORGANIZER_FIELDS,
    RunValidationError,
    SubmissionRefused,
    run_submit,
)


class RunViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Runs of the caller's team (all runs for organizers)."""

    parser_classes = [MultiPartParser, FormParser]
    lookup_value_converter = "id"  # /api/runs/<id:pk>/: a bad or huge id is a 404
    throttle_scope = RUN_UPLOAD_SCOPE
    body_limit_setting = "RUN_UPLOAD_MAX_BYTES"  # kernel.request_limits: 413 before reading

    def get_queryset(self) -> QuerySet[Run]:
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular building the schema
            return Run.objects.none()
        return runs_visible_to(self.request.user)

    def get_serializer_class(self) -> type:
        return {"create": RunUploadSerializer, "retrieve": RunDetailSerializer}.get(
            self.action or "", RunSerializer
        )

    def get_throttles(self) -> list[BaseThrottle]:
        # Only uploads are throttled: they parse and store up to 200 MB. The /runs/ form spends
        # from the same budget (pooling.api.throttles).
        return [run_upload_throttle()] if self.action == "create" else []

    @extend_schema(
        request={"multipart/form-data": RunUploadSerializer},
        responses={201: RunSubmittedSerializer, 400: RunRejectedSerializer},
        summary="Upload a run file",
        description="Validates the whole file; stores it only when it has no error. "
        "Re-uploading a tag before the deadline replaces that run.",
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        upload = RunUploadSerializer(data=request.data, context={"request": request})
        upload.is_valid(raise_exception=True)
        data = upload.validated_data
        team = team_for_user(request.user, team_name=data.get("team"))  # type: ignore[arg-type]
        if team is None:
            detail = (
                f"you are not a member of team {data['team']!r}"
                if data.get("team")
                else "name your team: you belong to no team or to several"
            )
            return Response({"detail": detail}, status=status.HTTP_400_BAD_REQUEST)
        organizer_fields = {name: data[name] for name in ORGANIZER_FIELDS if name in data}
        try:
            submission = run_submit(
                task=data["task"],
                team=team,
                tag=data["tag"],
                role=data["role"],
                stream=data["file"],
                file_name=data["file"].name or "",
                uploaded_by=request.user,  # type: ignore[arg-type]
                is_manual=data["is_manual"],
                declared_data=data["declared_data"],
                description=data["description"],
                organizer_fields=organizer_fields,
            )
        except RunValidationError as exc:
            return Response(
                {"detail": str(exc), "report": exc.report}, status=status.HTTP_400_BAD_REQUEST
            )
        except SubmissionRefused as exc:
            return Response({"detail": exc.message}, status=status.HTTP_400_BAD_REQUEST)
        body = {
            "run": RunDetailSerializer(submission.run).data,
            "created": submission.created,
            "warnings": submission.warnings,
        }
        return Response(body, status=status.HTTP_201_CREATED)
