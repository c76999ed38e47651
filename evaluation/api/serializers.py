"""Serializers of the evaluation API: qrels versions, export requests, readiness, results,
publication."""

from rest_framework import serializers

from collection.models import RetrievalTask
from evaluation.models import EvaluationResult, PublicationEvent, QrelsVersion


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
            "pool_items",
            "judged_items",
            "unjudged_items",
            "pool_topics",
            "complete_topics",
            "unjudged_topics",
            "created_by",
            "created_at",
        ]


class QrelsExportSerializer(serializers.Serializer):
    task = serializers.PrimaryKeyRelatedField(queryset=RetrievalTask.objects.all())
    min_relevant = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        help_text="Drop topics with fewer H+M items; absent or null: the task's setting; 0: off.",
    )
    use_dual = serializers.BooleanField(default=True)
    allow_incomplete = serializers.BooleanField(
        default=False, help_text="Export although pool items are unjudged (recorded)."
    )
    level = serializers.ChoiceField(choices=["item", "instance"], default="item")
    label = serializers.CharField(  # type: ignore[assignment]  # a field, not Field.label
        max_length=100, required=False, allow_blank=True, default=""
    )


class TopicReadinessSerializer(serializers.Serializer):
    topic = serializers.CharField()
    items = serializers.IntegerField()
    judged = serializers.IntegerField()
    flagged = serializers.IntegerField()
    unjudged = serializers.IntegerField()
    relevant = serializers.IntegerField(help_text="H+M items so far")
    dropped = serializers.CharField(help_text="why the minimum-relevant rule drops it, or empty")


class QrelsReadinessSerializer(serializers.Serializer):
    task = serializers.IntegerField()
    min_relevant = serializers.IntegerField(allow_null=True)
    complete = serializers.BooleanField()
    items = serializers.IntegerField()
    judged = serializers.IntegerField()
    flagged = serializers.IntegerField()
    unjudged = serializers.IntegerField()
    topics = TopicReadinessSerializer(many=True)


class EvaluationResultSerializer(serializers.ModelSerializer):
    team = serializers.CharField(source="run.team.name")
    tag = serializers.CharField(source="run.tag")
    task = serializers.IntegerField(source="run.task_id")
    current = serializers.SerializerMethodField(
        help_text="False when the run was replaced after this result was computed."
    )
    qrels_complete = serializers.SerializerMethodField(
        help_text="False when the qrels were exported with unjudged items; null if unknown."
    )

    def get_current(self, result: EvaluationResult) -> bool:
        return result.run_version == result.run.version

    def get_qrels_complete(self, result: EvaluationResult) -> bool | None:
        unjudged = result.qrels.unjudged_items
        return None if unjudged is None else unjudged == 0

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
            "qrels_complete",
            "average",
            "run_version",
            "current",
            "measures",
            "per_topic",
            "created_at",
        ]


class PublicationEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = PublicationEvent
        fields = ["id", "action", "qrels", "qrels_checksum", "by_name", "at", "details"]


class PublicationSerializer(serializers.Serializer):
    """A task's publication state and its record."""

    task = serializers.IntegerField(source="task_id")
    published = serializers.BooleanField()
    qrels = serializers.IntegerField(source="qrels_id", allow_null=True)
    changed_at = serializers.DateTimeField(allow_null=True)
    events = PublicationEventSerializer(many=True)


class PublishSerializer(serializers.Serializer):
    qrels = serializers.IntegerField(help_text="the item-level qrels version to make official")


class OfficialMeasuresSerializer(serializers.Serializer):
    """A task's official measures: as stored, the kind's defaults, and what scores it now."""

    task_id = serializers.IntegerField(read_only=True)
    official_measures = serializers.ListField(
        child=serializers.CharField(max_length=100, trim_whitespace=True),
        max_length=40,
        allow_empty=True,
        help_text="trec_eval or ir_measures names; empty: the kind's defaults.",
    )
    defaults = serializers.CharField(read_only=True)
    scored_with = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        allow_null=True,
        help_text="The names results are scored with; null: ARQMath's own measures.",
    )
