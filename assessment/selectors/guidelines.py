"""A task's guidelines in force, rendered for pages, and its versions.

The latest TaskGuidelines version of a task is in force; a task without one uses the built-in
defaults of its kind (version 0 on pages). Every page that shows grades, keys or definitions
(judging, legend, help, adjudication, training, dashboard, item list) reads them from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from django.db.models import Count, F, JSONField, OuterRef, QuerySet, Subquery

from assessment.core.guidelines import GradeScale, Guidelines, scale_from_json
from assessment.core.guidelines_defaults import default_guidelines
from assessment.core.guidelines_markdown import markdown_html
from assessment.models import Assignment, Judgment, TaskGuidelines
from collection.models import RetrievalTask
from kernel.prepared import prepared_rows

__all__ = [
    "AssignmentScale",
    "CurrentGuidelines",
    "GuidelinesVersionRow",
    "RenderedChoice",
    "RenderedQuestion",
    "guidelines_current",
    "guidelines_for_assignment",
    "guidelines_rendered",
    "guidelines_version",
    "guidelines_versions",
]


@dataclass(frozen=True)
class CurrentGuidelines:
    """The guidelines a task is judged under now."""

    task_id: int
    kind: str
    version: int  # 0: the built-in defaults
    version_id: int | None  # the TaskGuidelines row, None for the defaults
    guidelines: Guidelines
    relevance_level: int
    created_at: datetime | None = None
    created_by: str = ""
    note: str = ""

    @property
    def scale(self) -> GradeScale:
        return self.guidelines.scale

    @property
    def is_default(self) -> bool:
        return self.version_id is None


def _from_row(task: RetrievalTask, row: TaskGuidelines | None) -> CurrentGuidelines:
    if row is None:
        return CurrentGuidelines(
            task_id=task.pk,
            kind=task.kind,
            version=0,
            version_id=None,
            guidelines=default_guidelines(task.kind),
            relevance_level=task.relevance_level,
        )
    return CurrentGuidelines(
        task_id=task.pk,
        kind=task.kind,
        version=row.version,
        version_id=row.pk,
        guidelines=Guidelines(row.instructions, scale_from_json(row.scale)),
        relevance_level=task.relevance_level,
        created_at=row.created_at,
        created_by=row.created_by.get_username() if row.created_by else "",
        note=row.note,
    )


def _latest_version(task_id: int) -> QuerySet[TaskGuidelines]:
    return (
        TaskGuidelines.objects.filter(task_id=task_id)
        .select_related("created_by")
        .order_by("-version")[:1]
    )


def guidelines_current(*, task: RetrievalTask) -> CurrentGuidelines:
    """The task's guidelines in force (one query, its SQL built once: every judging page
    asks, kernel.prepared)."""
    rows = prepared_rows(TaskGuidelines, _latest_version, task_id=task.pk)
    return _from_row(task, rows[0] if rows else None)


def guidelines_version(*, task: RetrievalTask, version: int) -> CurrentGuidelines | None:
    """One saved version of the task's guidelines (0: the defaults), or None."""
    if version == 0:
        return _from_row(task, None)
    row = (
        TaskGuidelines.objects.filter(task=task, version=version)
        .select_related("created_by")
        .first()
    )
    return _from_row(task, row) if row is not None else None


class AssignmentScale(NamedTuple):
    """What a submit to an assignment is checked against and records."""

    scale: GradeScale
    version_id: int | None  # the TaskGuidelines row in force, None for the defaults
    topic_id: int | None  # None: no such assignment
    topic_number: str = ""  # which of the scale's extra questions its hits answer


def _assignment_with_guidelines(assignment_id: int) -> QuerySet[Assignment]:
    latest = TaskGuidelines.objects.filter(task=OuterRef("topic__task_id")).order_by("-version")
    return (
        Assignment.objects.filter(pk=assignment_id)
        .only("pk", "topic_id")
        .annotate(
            task_kind=F("topic__task__kind"),
            topic_number=F("topic__number"),
            guidelines_id=Subquery(latest.values("pk")[:1]),
            guidelines_scale=Subquery(latest.values("scale")[:1], output_field=JSONField()),
        )
    )


def guidelines_for_assignment(*, assignment_id: int) -> AssignmentScale:
    """The scale an assignment's judgments are checked against, the version id they record
    and the assignment's topic (the judging service locks its pool first), in one query whose
    SQL is built once (every submit asks). An unknown assignment gets the answer defaults and
    no topic: the judging service then refuses it as not found."""
    rows = prepared_rows(Assignment, _assignment_with_guidelines, assignment_id=assignment_id)
    if not rows:
        return AssignmentScale(default_guidelines("answer").scale, None, None)
    row = rows[0]
    if row.guidelines_id is None:
        scale = default_guidelines(row.task_kind).scale
        return AssignmentScale(scale, None, row.topic_id, row.topic_number)
    return AssignmentScale(
        scale_from_json(row.guidelines_scale), row.guidelines_id, row.topic_id, row.topic_number
    )


# --- Rendering for pages --------------------------------------------------------------------


@dataclass(frozen=True)
class RenderedChoice:
    """A grade or flag as pages show it: label, keys, definition HTML, colour family."""

    value: str  # the grade as text, or the flag code
    label: str
    keys: tuple[str, ...]
    definition_html: str
    tone: str  # high | medium | low | not | flag
    is_flag: bool = False

    @property
    def key(self) -> str:
        return self.keys[0] if self.keys else ""


@dataclass(frozen=True)
class RenderedQuestion:
    """An extra question as pages show it, with the topics it is asked on."""

    code: str
    label: str
    keys: tuple[str, ...]
    definition_html: str
    topics: tuple[str, ...]  # empty: every topic

    @property
    def key(self) -> str:
        return self.keys[0] if self.keys else ""

    @property
    def topics_text(self) -> str:
        if not self.topics:
            return "asked on every topic"
        shown = ", ".join(self.topics[:10])
        more = f" and {len(self.topics) - 10} more" if len(self.topics) > 10 else ""
        plural = "s" if len(self.topics) != 1 else ""
        return f"asked on {len(self.topics)} topic{plural}: {shown}{more}"


@dataclass(frozen=True)
class RenderedGuidelines:
    instructions_html: str
    grades: list[RenderedChoice]
    flags: list[RenderedChoice]
    current: CurrentGuidelines
    questions: tuple[RenderedQuestion, ...] = ()

    @property
    def choices(self) -> list[RenderedChoice]:
        return [*self.grades, *self.flags]

    def questions_on(self, topic: str) -> list[RenderedQuestion]:
        """The extra questions an assessor of ``topic`` answers for each hit."""
        return [q for q in self.questions if not q.topics or topic in q.topics]

    @property
    def grade_keys(self) -> list[str]:
        """Each grade's first key, top grade first (the inline legend: "3 2 1 0")."""
        return [g.key for g in self.grades]

    def judge_data(self) -> dict[str, Any]:
        """What static/js/judge.js reads (json_script): key -> choice, flags, the hint."""
        scale = self.current.scale
        return {
            "keys": scale.key_map(),
            "flags": {f.code: f.label for f in scale.flags},
            "hint": f"Choose one of {scale.choices_text()}.",
        }


def guidelines_rendered(current: CurrentGuidelines) -> RenderedGuidelines:
    """Markdown rendered to safe HTML (cached per text) and each grade's colour family."""
    scale = current.scale
    level = current.relevance_level
    grades = [
        RenderedChoice(
            str(g.value), g.label, g.keys, markdown_html(g.definition), scale.tone(g.value, level)
        )
        for g in scale.grades
    ]
    flags = [
        RenderedChoice(f.code, f.label, f.keys, markdown_html(f.definition), "flag", is_flag=True)
        for f in scale.flags
    ]
    questions = tuple(
        RenderedQuestion(q.code, q.label, q.keys, markdown_html(q.definition), q.topics)
        for q in scale.questions
    )
    instructions = markdown_html(current.guidelines.instructions)
    return RenderedGuidelines(instructions, grades, flags, current, questions)


# --- Versions --------------------------------------------------------------------------------


@dataclass(frozen=True)
class GuidelinesVersionRow:
    version: int  # 0: the built-in defaults
    created_at: datetime | None
    created_by: str
    note: str
    scale_text: str  # "grades 0-3 · System failure, Do not know"
    judgments: int  # judgments whose current value was given under this version
    is_current: bool


def _scale_text(scale: GradeScale) -> str:
    flags = ", ".join(f.label for f in scale.flags) or "no flags"
    return f"grades {scale.range_text()} · {flags}"


def guidelines_versions(*, task: RetrievalTask) -> list[GuidelinesVersionRow]:
    """Every version, newest first, with how many of the task's judgments were made under it;
    the defaults last, when they are in force or judgments were made under them. Two queries."""
    rows = list(
        TaskGuidelines.objects.filter(task=task).select_related("created_by").order_by("-version")
    )
    counts: dict[int | None, int] = dict(
        Judgment.objects.filter(assignment__topic__task=task)
        .values("guidelines_version_id")
        .annotate(n=Count("id"))
        .values_list("guidelines_version_id", "n")
    )
    result = [
        GuidelinesVersionRow(
            version=row.version,
            created_at=row.created_at,
            created_by=row.created_by.get_username() if row.created_by else "",
            note=row.note,
            scale_text=_scale_text(scale_from_json(row.scale)),
            judgments=counts.get(row.pk, 0),
            is_current=i == 0,
        )
        for i, row in enumerate(rows)
    ]
    if not rows or counts.get(None):
        result.append(
            GuidelinesVersionRow(
                version=0,
                created_at=None,
                created_by="",
                note="built-in defaults",
                scale_text=_scale_text(default_guidelines(task.kind).scale),
                judgments=counts.get(None, 0),
                is_current=not rows,
            )
        )
    return result
