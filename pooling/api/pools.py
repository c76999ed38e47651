"""REST endpoints of the pools (organizers): figures of a task's pools, build status, builds.

GET  /api/pools/<task_id>/        the figures of the pool page, as JSON
GET  /api/pools/<task_id>/build/  the latest build's status (what the progress bar polls)
POST /api/pools/<task_id>/build/  queue a build (202 with its status; 503 with a "try again"
                                  detail when the task queue is unavailable). An optional body
                                  picks a budgeted strategy for a document task:
                                  {"strategy": "mm-ns:0.5", "budget": 20, "scope": "topic",
                                  "seed": 3}; "strategy": null goes back to the task's rules;
                                  without "strategy" the last build's strategy is kept.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from collection.access import task_for
from collection.models import RetrievalTask
from kernel.access import IsOrganizer
from kernel.queue import QueueUnavailable
from pooling.core.algorithms.strategies import StrategyError
from pooling.core.algorithms.strategies.priority import (
    BUDGET_SCOPES,
    MAX_BUDGET,
    STRATEGY_HELP,
    PoolStrategy,
    pool_strategy,
)
from pooling.selectors.pool_cache import cached_pool_stats
from pooling.selectors.pools import build_status, latest_build
from pooling.selectors.priority_dashboard import priority_spend
from pooling.selectors.strategy_inputs import STRATEGY_KINDS, current_strategy
from pooling.services.pool_jobs import pool_build_request, pool_builds_reap


class BuildStatusSerializer(serializers.Serializer):
    build = serializers.IntegerField(allow_null=True)
    status = serializers.CharField()
    topics_done = serializers.IntegerField()
    topics_total = serializers.IntegerField()
    stats = serializers.DictField(child=serializers.IntegerField(), required=False)
    error = serializers.CharField(required=False, allow_blank=True)
    created_at = serializers.DateTimeField(required=False)
    finished_at = serializers.DateTimeField(required=False, allow_null=True)
    attempts = serializers.IntegerField(required=False)
    worker_lost_at = serializers.DateTimeField(required=False, allow_null=True)
    detail = serializers.CharField(required=False)


class BuildRequestSerializer(serializers.Serializer):
    strategy = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, max_length=40, help_text=STRATEGY_HELP
    )
    budget = serializers.IntegerField(required=False, min_value=1, max_value=MAX_BUDGET)
    scope = serializers.ChoiceField(choices=list(BUDGET_SCOPES), default="topic")
    seed = serializers.IntegerField(required=False, min_value=0, max_value=2**31 - 1)

    def to_strategy(self, task: RetrievalTask) -> PoolStrategy | None:
        """The strategy asked for (validated data), the last build's when none was named."""
        data = self.validated_data
        if "strategy" not in data:
            return current_strategy(task.pk)
        text = (data["strategy"] or "").strip()
        if not text:
            return None
        if task.kind not in STRATEGY_KINDS:
            raise serializers.ValidationError(
                {"strategy": ["budgeted strategies pool document and answer tasks only"]}
            )
        if data.get("budget") is None:
            raise serializers.ValidationError({"budget": ["a strategy needs a budget"]})
        seed = data.get("seed", task.pool_seed)
        try:
            return pool_strategy(text, data["budget"], data["scope"], seed)
        except StrategyError as error:
            raise serializers.ValidationError({"strategy": [str(error)]}) from error


class PoolStatsView(APIView):
    permission_classes = [IsOrganizer]

    @extend_schema(
        responses=OpenApiTypes.OBJECT,
        description="Per topic, run, team and run pair figures of the task's pools (staff).",
    )
    def get(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        stats = cached_pool_stats(task).as_dict()
        stats["build"] = build_status(latest_build(task))
        spend = priority_spend(task)  # judgments change it: never cached
        stats["priority"] = spend.as_dict() if spend is not None else None
        return Response(stats)


class PoolBuildView(APIView):
    permission_classes = [IsOrganizer]
    serializer_class = BuildStatusSerializer

    @extend_schema(responses=BuildStatusSerializer)
    def get(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        pool_builds_reap()  # what the progress bar polls: a dead worker's build moves on
        return Response(build_status(latest_build(task)))

    @extend_schema(
        request=BuildRequestSerializer,
        responses={202: BuildStatusSerializer, 400: OpenApiTypes.OBJECT, 503: OpenApiTypes.OBJECT},
    )
    def post(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        asked = BuildRequestSerializer(data=request.data)
        asked.is_valid(raise_exception=True)
        strategy = asked.to_strategy(task)
        try:
            build = pool_build_request(task=task, requested_by=request.user, strategy=strategy)
        except QueueUnavailable as error:
            body = {**build_status(latest_build(task)), "detail": str(error)}
            return Response(body, status=503, headers={"Retry-After": "30"})
        return Response(build_status(build), status=202)
