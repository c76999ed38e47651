"""REST for the pool planner of a document task (organizers): start a plan, poll it, fetch its
table in ``manage.py simulate_pools --format json``'s layout. The page
``/results/<task>/pool-planner/`` and these endpoints start plans through the same service."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.urls import reverse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from collection.access import task_for
from collection.models import RetrievalTask
from evaluation.core.planner_files import PlannerFileError
from evaluation.models import PoolPlanJob
from evaluation.selectors.planner import plan_status, task_plans
from evaluation.services.planner import (
    MAX_BUDGETS,
    MAX_STRATEGIES,
    PlanBusyError,
    PlanRequestError,
    pool_plan_request,
    pool_plans_reap,
    prior_from_upload,
)
from kernel.access import IsOrganizer
from kernel.queue import QueueUnavailable
from pooling.core.algorithms.strategies import (
    DEFAULT_STRATEGIES,
    Strategy,
    StrategyError,
    parse_strategy,
)

MAX_BUDGET = 10_000_000
MAX_MEASURES = 20
MAX_POOL_RUNS = 1000
MAX_RUN_NAME = 400  # team/tag


class StrategyField(serializers.CharField):
    """``NAME`` or ``NAME:PARAM`` (``depth``, ``rbp:0.9``, ``mm-ns``), read by the core's parser."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=40, **kwargs)

    def run_validation(self, data: Any = serializers.empty) -> Strategy:
        text = super().run_validation(data)  # a string of at most 40 characters
        try:
            return parse_strategy(text)
        except StrategyError as error:
            raise ValidationError(str(error)) from None


class PlanRequestSerializer(serializers.Serializer):
    source = serializers.ChoiceField(  # type: ignore[assignment]  # the field, not Field.source
        choices=PoolPlanJob.Source.choices,
        help_text="the prior judgments: an uploaded qrels file, an uploaded relevance-only file "
        "(``topic docno`` a line), or the task's judgments so far",
    )
    prior = serializers.FileField(
        required=False,
        help_text="the qrels or relevance-only file (multipart); not for ``judgments``",
    )
    strategies = serializers.ListField(
        child=StrategyField(),
        min_length=1,
        max_length=MAX_STRATEGIES,
        default=lambda: [parse_strategy(name) for name in DEFAULT_STRATEGIES],
        help_text="NAME or NAME:PARAM (depth rrf rbp mtf mm mm-ns hybrid); default: all seven",
    )
    budgets = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=MAX_BUDGET),
        max_length=MAX_BUDGETS,
        default=list,
        help_text="totals of judgments over all topics; empty: 10%, 20% and 40% of the prior",
    )
    measures = serializers.ListField(
        child=serializers.CharField(max_length=200),
        max_length=MAX_MEASURES,
        default=list,
        help_text="trec_eval names; empty: the task's official measures",
    )
    seed = serializers.IntegerField(default=0, min_value=0, max_value=2**31 - 1)
    pool_runs = serializers.ListField(
        child=serializers.CharField(max_length=MAX_RUN_NAME),
        required=False,
        allow_empty=False,
        max_length=MAX_POOL_RUNS,
        help_text="the runs strategies may pool from, named as the planner page lists them "
        "(the tag, or team/tag where two teams share one; simulate_pools' --pool-runs); "
        "default: every accepted run. Every accepted run is scored either way.",
    )
    judged_only = serializers.BooleanField(
        default=False,
        help_text="condensed replay (simulate_pools' --judged-only): every run keeps only the "
        "documents the prior judgments judged, so a shallow prior shows what a fully judged "
        "collection would; default false",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        uploaded = attrs.get("prior") is not None
        if attrs["source"] == PoolPlanJob.Source.JUDGMENTS and uploaded:
            raise ValidationError({"prior": "the judgments so far take no file"})
        if attrs["source"] != PoolPlanJob.Source.JUDGMENTS and not uploaded:
            raise ValidationError({"prior": f"a {attrs['source']} prior needs its file"})
        return attrs


MaxGroupDrop = inline_serializer(
    "PlanGroupDrop",
    {
        "drop": serializers.FloatField(),
        "group": serializers.CharField(allow_null=True, help_text="null: no group lost score"),
        "run": serializers.CharField(required=False, help_text="the group's run that lost most"),
    },
)


class PlanRowSerializer(serializers.Serializer):
    """One strategy at one budget, as ``simulate_pools --format json`` prints it."""

    strategy = serializers.CharField()
    budget = serializers.IntegerField()
    judgments = serializers.IntegerField()
    relevant = serializers.IntegerField()
    relevant_share = serializers.FloatField()
    tau = serializers.DictField(child=serializers.FloatField(allow_null=True))
    tau_ap = serializers.DictField(child=serializers.FloatField(allow_null=True))
    max_group_drop = serializers.DictField(child=MaxGroupDrop)


class PlanSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    task = serializers.IntegerField()
    status = serializers.CharField(help_text=" | ".join(PoolPlanJob.Status.values))
    joined = serializers.BooleanField(
        required=False, help_text="the same plan was already queued or running: this is it"
    )
    source = serializers.ChoiceField(choices=PoolPlanJob.Source.choices)  # type: ignore[assignment]
    source_name = serializers.CharField()
    prior_judgments = serializers.IntegerField()
    strategies = serializers.ListField(child=serializers.CharField())
    budgets = serializers.ListField(child=serializers.IntegerField())
    measures = serializers.ListField(child=serializers.CharField())
    seed = serializers.IntegerField()
    pool_runs = serializers.ListField(
        child=serializers.CharField(),
        help_text="the runs strategies pooled from (empty: every accepted run, a plan from "
        "before the choice)",
    )
    judged_only = serializers.BooleanField(
        help_text="runs were replayed condensed to the judged documents (false in plans from "
        "before the choice)"
    )
    steps_done = serializers.IntegerField()
    steps_total = serializers.IntegerField()
    attempts = serializers.IntegerField()
    error = serializers.CharField()
    worker_lost_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    result = serializers.CharField(help_text="where the table is, once the plan is done")


def plan_json(job: PoolPlanJob, *, joined: bool | None = None) -> dict[str, Any]:
    body = {
        **plan_status(job),
        "id": job.pk,
        "task": job.task_id,
        "source": job.source,
        "source_name": job.source_name,
        "prior_judgments": job.prior_judgments,  # type: ignore[attr-defined]
        "strategies": job.strategies,
        "budgets": job.budgets,
        "measures": job.measures,
        "seed": job.seed,
        "pool_runs": job.pool_runs,
        "judged_only": job.judged_only,
        "created_at": job.created_at,
        "finished_at": job.finished_at,
        "result": reverse("evaluation_api:pool-plan-result", args=[job.task_id, job.pk]),
    }
    del body["build"]
    if joined is not None:
        body["joined"] = joined
    return body


def _document_task(request: Request, task_id: int) -> RetrievalTask:
    task = task_for(request.user, task_id)
    if task.kind != RetrievalTask.Kind.DOCUMENT:
        raise Http404("The planner replays document tasks' runs.")
    return task


def _plan(task: RetrievalTask, plan_id: int) -> PoolPlanJob:
    job = task_plans(task).filter(pk=plan_id).first()
    if job is None:
        raise Http404(f"No pool plan {plan_id} of task {task.pk}.")
    return job


class PoolPlanListView(APIView):
    """GET: the task's plans, newest first. POST: start a plan (multipart with the ``prior``
    file, or JSON for the judgments so far); the same plan asked again while it runs is joined
    (200), another plan is refused (409) until it finishes."""

    permission_classes = [IsOrganizer]
    parser_classes = [MultiPartParser, FormParser, JSONParser]
    body_limit_setting = "QRELS_UPLOAD_MAX_BYTES"  # kernel.request_limits: 413 before reading

    @extend_schema(responses={200: PlanSerializer(many=True)})
    def get(self, request: Request, task_id: int) -> Response:
        task = _document_task(request, task_id)
        pool_plans_reap()
        return Response([PlanSerializer(plan_json(job)).data for job in task_plans(task)])

    @extend_schema(
        request={
            "multipart/form-data": PlanRequestSerializer,
            "application/json": PlanRequestSerializer,
        },
        responses={200: PlanSerializer, 202: PlanSerializer, 409: PlanSerializer},
    )
    def post(self, request: Request, task_id: int) -> Response:
        task = _document_task(request, task_id)
        given = PlanRequestSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        upload = data.get("prior")
        pool_plans_reap()  # a dead worker's plan moves on before it can block this one
        try:
            grades = prior_from_upload(
                task=task,
                source=data["source"],
                upload=upload,
                name=upload.name if upload is not None else "",
                size=upload.size if upload is not None else 0,
            )
            started = pool_plan_request(
                task=task,
                source=data["source"],
                source_name=upload.name if upload is not None else "",
                grades=grades,
                strategies=data["strategies"],
                budgets=data["budgets"],
                measures=data["measures"],
                seed=data["seed"],
                pool_runs=data.get("pool_runs"),
                judged_only=data["judged_only"],
                requested_by=request.user,
            )
        except PlannerFileError as error:
            raise ValidationError({"prior": [str(error)]}) from None
        except PlanBusyError as error:
            body = {**plan_json(_plan(task, error.job.pk)), "detail": str(error)}
            return Response(body, status=status.HTTP_409_CONFLICT)
        except PlanRequestError as error:
            raise ValidationError({error.field: [str(error)]}) from None
        except QueueUnavailable as error:
            return Response(
                {"detail": str(error)},
                status=status.HTTP_503_SERVICE_UNAVAILABLE,
                headers={"Retry-After": "30"},
            )
        code = status.HTTP_200_OK if started.joined else status.HTTP_202_ACCEPTED
        job = _plan(task, started.job.pk)
        return Response(PlanSerializer(plan_json(job, joined=started.joined)).data, code)


class PoolPlanDetailView(APIView):
    """One plan: its inputs and progress (what a client polls)."""

    permission_classes = [IsOrganizer]

    @extend_schema(responses={200: PlanSerializer})
    def get(self, request: Request, task_id: int, plan_id: int) -> Response:
        task = _document_task(request, task_id)
        pool_plans_reap()  # what a client polls: a dead worker's plan moves on
        return Response(PlanSerializer(plan_json(_plan(task, plan_id))).data)


class PoolPlanResultView(APIView):
    """A done plan's table: a list with one object per strategy and budget, the layout of
    ``manage.py simulate_pools --format json``. 409 while the plan is not done."""

    permission_classes = [IsOrganizer]

    @extend_schema(responses={200: PlanRowSerializer(many=True), 409: PlanSerializer})
    def get(self, request: Request, task_id: int, plan_id: int) -> Response:
        task = _document_task(request, task_id)
        job = PoolPlanJob.objects.filter(task=task, pk=plan_id).defer("grades").first()
        if job is None:
            raise Http404(f"No pool plan {plan_id} of task {task.pk}.")
        if job.status != PoolPlanJob.Status.DONE:
            body = {**plan_json(_plan(task, job.pk)), "detail": f"plan {job.pk} is {job.status}"}
            return Response(body, status=status.HTTP_409_CONFLICT)
        return Response(job.rows)
