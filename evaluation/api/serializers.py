"""Serializers of the evaluation API: qrels versions, export requests, results."""

from rest_framework import serializers

from collection.models import RetrievalTask
from evaluation.models import EvaluationResult, QrelsVersion


class QrelsVersionSerializer(serializers.ModelSerializer):
    task = serializers.IntegerField(source="task_id", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None)

    class Meta:
        model = QrelsVersion
        fields = [
            "id",
            "task",
            "label",
            "level",
            "policy",
            "checksum",
            "topic_count",
            "row_count",
            "dropped_topics",
            "created_by",
            "created_at",
        ]


class QrelsExportSerializer(serializers.Serializer):
    task = serializers.PrimaryKeyRelatedField(queryset=RetrievalTask.objects.all())
    min_relevant = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    use_dual = serializers.BooleanField(default=True)
    level = serializers.ChoiceField(choices=["item", "instance"], default="item")
    label = serializers.CharField(  # type: ignore[assignment]  # a field, not Field.label
        max_length=100, required=False, allow_blank=True, default=""
    )


class EvaluationResultSerializer(serializers.ModelSerializer):
    team = serializers.CharField(source="run.team.name")
    tag = serializers.CharField(source="run.tag")
    task = serializers.IntegerField(source="run.task_id")

    class Meta:
        model = EvaluationResult
        fields = [
            "id",
            "run",
            "team",
            "tag",
            "task",
            "qrels",
            "qrels_checksum",
            "measures",
            "per_topic",
            "created_at",
        ]
