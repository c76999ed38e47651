"""REST endpoints of the judges app (organizers only): endpoints, judge runs and their
status (which the progress bar polls; reading it runs the reaper, as pool builds' does)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assessment.services.machine_judge_files import MachineJudgeError
from collection.access import task_for
from judges.core.endpoints import EndpointFields
from judges.models import JudgeEndpoint, JudgeRun
from judges.selectors.runs import endpoint_as_dict, run_status, runs_of
from judges.selectors.work import DEFAULT_SAMPLE_SEED
from judges.services.endpoints import EndpointError, endpoint_add, endpoint_remove
from judges.services.runs import judge_run_cancel, judge_run_request, judge_runs_reap
from kernel.access import IsOrganizer
from kernel.queue import QueueUnavailable


class EndpointSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    base_url = serializers.CharField(max_length=500)
    model = serializers.CharField(max_length=200)
    api_key_env = serializers.CharField(
        max_length=100, required=False, default="", allow_blank=True
    )
    concurrency = serializers.IntegerField(min_value=1, max_value=256, default=4)
    requests_per_minute = serializers.IntegerField(min_value=0, default=0)
    timeout_seconds = serializers.FloatField(min_value=0.001, max_value=3600, default=60.0)
    price_per_1k_tokens = serializers.FloatField(min_value=0, max_value=1000, default=0.0)


class JudgeRunSerializer(serializers.Serializer):
    endpoint = serializers.CharField(max_length=100, help_text="The endpoint's name.")
    judge = serializers.CharField(max_length=100)
    prompt_version = serializers.IntegerField(min_value=0, required=False, allow_null=True)
    limit = serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        help_text="Judge a random sample of this many pool items (default: every item).",
    )
    sample_seed = serializers.IntegerField(
        min_value=0,
        default=DEFAULT_SAMPLE_SEED,
        help_text="The seed of the limit's sample; the same seed draws the same items.",
    )
    logprobs = serializers.BooleanField(default=False)


def _problems(errors: dict) -> list[str]:
    return [f"{name}: {' '.join(str(e) for e in errs)}" for name, errs in errors.items()]


class EndpointListView(APIView):
    permission_classes = [IsOrganizer]

    @extend_schema(operation_id="judges_endpoints_list", responses=OpenApiTypes.OBJECT)
    def get(self, request: Request) -> Response:
        return Response([endpoint_as_dict(e) for e in JudgeEndpoint.objects.all()[:200]])

    @extend_schema(request=EndpointSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request) -> Response:
        data = EndpointSerializer(data=request.data)
        if not data.is_valid():
            return Response({"problems": _problems(data.errors)}, status=400)
        try:
            endpoint = endpoint_add(
                fields=EndpointFields(**data.validated_data), created_by=request.user
            )
        except EndpointError as error:
            return Response({"problems": error.problems}, status=400)
        return Response(endpoint_as_dict(endpoint), status=status.HTTP_201_CREATED)


class EndpointDetailView(APIView):
    permission_classes = [IsOrganizer]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, endpoint_id: int) -> Response:
        return Response(endpoint_as_dict(get_object_or_404(JudgeEndpoint, pk=endpoint_id)))

    @extend_schema(responses={204: None})
    def delete(self, request: Request, endpoint_id: int) -> Response:
        endpoint = get_object_or_404(JudgeEndpoint, pk=endpoint_id)
        try:
            endpoint_remove(endpoint=endpoint)
        except EndpointError as error:
            return Response({"problems": error.problems}, status=409)
        return Response(status=204)


class TaskRunsView(APIView):
    permission_classes = [IsOrganizer]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        judge_runs_reap()
        return Response([run_status(run) for run in runs_of(task)])

    @extend_schema(request=JudgeRunSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        data = JudgeRunSerializer(data=request.data)
        if not data.is_valid():
            return Response({"problems": _problems(data.errors)}, status=400)
        values = data.validated_data
        endpoint = JudgeEndpoint.objects.filter(name=values["endpoint"]).first()
        if endpoint is None:
            return Response(
                {"problems": [f"endpoint: no endpoint named {values['endpoint']!r}"]}, status=400
            )
        try:
            run = judge_run_request(
                task=task,
                endpoint=endpoint,
                judge_name=values["judge"],
                prompt_version=values.get("prompt_version"),
                limit=values.get("limit"),
                sample_seed=values["sample_seed"],
                logprobs=values["logprobs"],
                requested_by=request.user,
            )
        except (EndpointError, MachineJudgeError) as error:
            return Response({"problems": error.problems}, status=400)
        except QueueUnavailable as error:
            return Response({"detail": str(error), "status": "failed"}, status=503)
        run.refresh_from_db()
        return Response(run_status(run), status=status.HTTP_202_ACCEPTED)


class RunView(APIView):
    permission_classes = [IsOrganizer]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, run_id: int) -> Response:
        judge_runs_reap()
        run = get_object_or_404(JudgeRun.objects.select_related("judge"), pk=run_id)
        task_for(request.user, run.task_id)
        return Response(run_status(run))

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def delete(self, request: Request, run_id: int) -> Response:
        """Cancel the run (its answers so far are kept)."""
        run = get_object_or_404(JudgeRun.objects.select_related("judge"), pk=run_id)
        task_for(request.user, run.task_id)
        judge_run_cancel(run=run)
        run.refresh_from_db()
        return Response(run_status(run))
