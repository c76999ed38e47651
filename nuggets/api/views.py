"""REST endpoints of the nuggets app: RAG run upload, nugget editing, labels, scores,
adjudication of disputed labels and publication of the scores."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from collection.access import task_for
from collection.models import RetrievalTask
from kernel.access import IsOrganizer, is_organizer
from nuggets.access import own_nugget_assignment, rag_topic_for
from nuggets.core.citations import CitationSupport
from nuggets.core.nuggetizer import MAX_NUGGET_CHARS
from nuggets.core.scores import Importance, Support
from nuggets.models import ADJUDICATION_NOTE_MAX_CHARS
from nuggets.selectors import task_nugget_scores, topic_nuggets
from nuggets.selectors.adjudication import STATES, answer_adjudication, answer_disputes
from nuggets.selectors.agreement import nugget_label_agreement
from nuggets.selectors.publication import nugget_publication_state, published_nugget_scores
from nuggets.services.adjudication import NuggetAdjudicationError, nugget_adjudication_decide
from nuggets.services.labels import (
    CitationVerdict,
    LabelRefused,
    citation_labels_submit,
    nugget_labels_submit,
)
from nuggets.services.nuggets import (
    NuggetError,
    nugget_add,
    nugget_delete,
    nugget_edit,
    nugget_merge,
    nugget_move,
    proposal_decide,
)
from nuggets.services.publication import (
    NuggetPublicationError,
    nugget_scores_publish,
    nugget_scores_withdraw,
)
from nuggets.services.runs import rag_run_submit
from pooling.access import team_for_user
from pooling.api.throttles import RUN_UPLOAD_SCOPE, run_upload_throttle
from pooling.services.runs import RunValidationError, SubmissionRefused

IMPORTANCE = [i.value for i in Importance]
SUPPORT = [s.value for s in Support]
CITATION_SUPPORT = [s.value for s in CitationSupport]
MAX_LABELS = 1000  # a topic's nuggets (nuggetizer.MAX_NUGGETS_PER_TOPIC)


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


def _nugget_json(topic_id: int) -> list[dict[str, Any]]:
    return [
        {
            "id": n.pk,
            "text": n.text,
            "importance": n.importance,
            "position": n.position,
            "origin": n.origin,
            "provenance": n.provenance,
        }
        for n in topic_nuggets(topic_id)
    ]


class NuggetChangeSerializer(serializers.Serializer[Any]):
    action = serializers.ChoiceField(
        ["add", "edit", "move", "merge", "delete", "accept", "edit_proposal", "reject"]
    )
    nugget = serializers.IntegerField(required=False, min_value=1)
    nuggets = serializers.ListField(
        child=serializers.IntegerField(min_value=1), required=False, max_length=100
    )
    proposal = serializers.IntegerField(required=False, min_value=1)
    text = serializers.CharField(required=False, max_length=MAX_NUGGET_CHARS)
    importance = serializers.ChoiceField(IMPORTANCE, required=False)
    position = serializers.IntegerField(required=False, min_value=0, max_value=100_000)


class TopicNuggetsView(APIView):
    """GET a RAG topic's nuggets; POST one change to them (organizers)."""

    permission_classes = [IsOrganizer]
    parser_classes = [JSONParser]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, topic_id: int) -> Response:
        topic = rag_topic_for(topic_id)
        return Response({"topic": topic.number, "nuggets": _nugget_json(topic.pk)})

    @extend_schema(request=NuggetChangeSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, topic_id: int) -> Response:
        topic = rag_topic_for(topic_id)
        change = NuggetChangeSerializer(data=request.data)
        change.is_valid(raise_exception=True)
        data = change.validated_data
        try:
            _apply_change(topic, data, request.user)
        except NuggetError as exc:
            return Response({"detail": exc.message}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"topic": topic.number, "nuggets": _nugget_json(topic.pk)})


def _required(data: dict[str, Any], name: str) -> Any:
    if name not in data:
        raise NuggetError(f"{data['action']} needs {name}")
    return data[name]


def _apply_change(topic: Any, data: dict[str, Any], user: Any) -> None:
    action = data["action"]
    if action == "add":
        nugget_add(
            topic=topic,
            text=_required(data, "text"),
            importance=data.get("importance", Importance.OKAY),
            user=user,
        )
    elif action == "edit":
        nugget_edit(
            topic=topic,
            nugget_id=_required(data, "nugget"),
            text=data.get("text"),
            importance=data.get("importance"),
            user=user,
        )
    elif action == "move":
        nugget_move(
            topic=topic,
            nugget_id=_required(data, "nugget"),
            position=_required(data, "position"),
            user=user,
        )
    elif action == "merge":
        nugget_merge(topic=topic, nugget_ids=_required(data, "nuggets"), user=user)
    elif action == "delete":
        nugget_delete(topic=topic, nugget_id=_required(data, "nugget"), user=user)
    else:
        decision = {"accept": "accepted", "edit_proposal": "edited", "reject": "rejected"}[action]
        proposal_decide(
            topic=topic,
            proposal_id=_required(data, "proposal"),
            decision=decision,
            text=data.get("text"),
            importance=data.get("importance"),
            user=user,
        )


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


class TaskScoresView(APIView):
    """GET every run's nugget scores from the official labels (organizers)."""

    permission_classes = [IsOrganizer]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        scores = task_nugget_scores(task)
        return Response(
            {
                "topics": scores.topics,
                "note": "a run without an answer to a topic scores 0 there",
                "agreement": [
                    {
                        "assessor": row.assessor,
                        "purpose": row.purpose,
                        "pairs": row.pairs,
                        "adjudicated": row.adjudicated,
                        "agreement": row.agreement.value,
                        "kappa": row.kappa.value,
                        "kappa_strict": row.kappa_strict.value,
                    }
                    for row in nugget_label_agreement(task)
                ],
                "runs": [
                    {
                        "run": row.run,
                        "team": row.team,
                        "measures": row.measures,
                        "per_topic": row.per_topic,
                        "judged": row.judged,
                        "to_judge": row.to_judge,
                        "support_precision": row.support_precision,
                        "support_recall": row.support_recall,
                    }
                    for row in scores.runs
                ],
            }
        )


def _rag_task(user: Any, task_id: int) -> RetrievalTask:
    task = task_for(user, task_id)
    if task.kind != RetrievalTask.Kind.RAG:
        raise Http404(f"task {task.pk} is not a RAG task")
    return task


class NuggetDisputeQuerySerializer(serializers.Serializer[Any]):
    state = serializers.ChoiceField(list(STATES), required=False, default="undecided")
    machine = serializers.BooleanField(required=False, default=False)


class NuggetAdjudicationSerializer(serializers.Serializer[Any]):
    answer = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
    finals = serializers.DictField(child=serializers.ChoiceField(SUPPORT), allow_empty=False)
    note = serializers.CharField(
        required=False, allow_blank=True, max_length=ADJUDICATION_NOTE_MAX_CHARS
    )
    machine = serializers.BooleanField(required=False, default=False)

    def validate_finals(self, value: dict[str, str]) -> dict[int, str]:
        if len(value) > MAX_LABELS:
            raise serializers.ValidationError(f"at most {MAX_LABELS} final labels a request")
        if not all(key.isascii() and key.isdigit() and 0 < len(key) < 19 for key in value):
            raise serializers.ValidationError("finals map nugget ids to a support")
        return {int(key): support for key, support in value.items()}


def _dispute_json(task: RetrievalTask, answer_id: int, machine: bool) -> dict[str, Any]:
    """One answer's live nuggets with every label given and the final label, blind to run and
    team as the page is."""
    shown = answer_adjudication(task, answer_id, with_machine=machine)
    if shown is None:  # the service has just accepted it: only a concurrent delete
        raise Http404(f"answer {answer_id} is not one of this task's")
    return {
        "answer": shown.answer.pk,
        "topic": shown.answer.topic.number,
        "nuggets": [
            {
                "id": v.nugget.pk,
                "text": v.nugget.text,
                "importance": v.nugget.importance,
                "disputed": v.disputed,
                "labels": [
                    {"assessor": o.assessor, "purpose": o.purpose, "support": o.support}
                    for o in v.opinions
                ],
                "final": v.final.support if v.final else None,
                "note": v.final.note if v.final else "",
            }
            for v in shown.nuggets
        ],
    }


class NuggetAdjudicationView(APIView):
    """GET the answers whose nugget labels disagree (``state``: undecided | all; ``machine``:
    machine judges' labels count too); POST an organizer's final labels for one answer (the
    adjudication page's service: all or nothing, a label sent as stored is left as it is)."""

    permission_classes = [IsOrganizer]
    parser_classes = [JSONParser]

    @extend_schema(parameters=[NuggetDisputeQuerySerializer], responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, task_id: int) -> Response:
        task = _rag_task(request.user, task_id)
        query = NuggetDisputeQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        state, machine = query.validated_data["state"], query.validated_data["machine"]
        disputes = answer_disputes(task, with_machine=machine)
        listed = [d for d in disputes if state == "all" or not d.is_decided]
        return Response(
            {
                "state": state,
                "machine": machine,
                "undecided": sum(1 for d in disputes if not d.is_decided),
                "answers": [
                    {
                        "answer": d.answer_id,
                        "topic": d.topic,
                        "disputed": d.disputed,
                        "decided": d.decided,
                    }
                    for d in listed
                ],
            }
        )

    @extend_schema(request=NuggetAdjudicationSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, task_id: int) -> Response:
        task = _rag_task(request.user, task_id)
        body = NuggetAdjudicationSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            made = nugget_adjudication_decide(
                task=task,
                answer_id=data["answer"],
                finals=data["finals"],
                decided_by=request.user,  # type: ignore[arg-type]
                note=data.get("note", ""),
                with_machine=data["machine"],
            )
        except NuggetAdjudicationError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        body_out = _dispute_json(task, data["answer"], data["machine"])
        body_out["changed"] = sorted(a.nugget_id for a in made)
        return Response(body_out)


class NuggetPublicationSerializer(serializers.Serializer[Any]):
    action = serializers.ChoiceField(["publish", "withdraw"])


def _event_json(event: Any) -> dict[str, Any] | None:
    if event is None:
        return None
    return {
        "action": event.action,
        "at": event.at.isoformat(),
        "by": event.by_name,
        "checksum": event.snapshot.checksum,
    }


def _same(event: Any, latest: Any) -> bool:
    """The request changed nothing: the standing event was returned."""
    return latest is not None and event.pk == latest.pk


class NuggetPublicationView(APIView):
    """GET the published nugget scores (the frozen snapshot: each team its own runs while
    published, organizers every run); POST publish or withdraw them (organizers)."""

    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, task_id: int) -> Response:
        task = _rag_task(request.user, task_id)
        shown = published_nugget_scores(request.user, task)
        if shown is None:
            if is_organizer(request.user):
                return Response({"published": False, "latest": None, "topics": [], "runs": []})
            raise NotFound("the nugget scores of this task are not published")
        return Response(
            {
                "published": shown.state.published,
                "latest": _event_json(shown.state.latest),
                "note": "a run without an answer to a topic scores 0 there",
                "topics": shown.topics,
                "measures": shown.measures,
                "runs": [
                    {
                        "run": row["run"],
                        "team": row["team"],
                        "measures": row["measures"],
                        "per_topic": row["per_topic"],
                        "judged": row["judged"],
                        "to_judge": row["to_judge"],
                    }
                    for row in shown.runs
                ],
            }
        )

    @extend_schema(request=NuggetPublicationSerializer, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, task_id: int) -> Response:
        if not is_organizer(request.user):
            raise PermissionDenied("only organizers publish or withdraw scores")
        task = _rag_task(request.user, task_id)
        body = NuggetPublicationSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        action = body.validated_data["action"]
        state = nugget_publication_state(task)
        try:
            if action == "withdraw" and not state.published and state.latest is not None:
                event = state.latest  # withdrawn already: sending it again changes nothing
            else:
                event = (nugget_scores_publish if action == "publish" else nugget_scores_withdraw)(
                    task=task, by=request.user
                )
        except NuggetPublicationError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {"published": event.action == "publish", "latest": _event_json(event)},
            status=status.HTTP_200_OK if _same(event, state.latest) else status.HTTP_201_CREATED,
        )
