"""Saving a task's guidelines: validated, versioned, never edited in place."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from assessment.core.guidelines import (
    GradeScale,
    GuidelinesInvalid,
    QuestionDefinition,
    guidelines_problems,
    scale_as_json,
    scale_from_json,
)
from assessment.models import TaskGuidelines
from assessment.selectors.guidelines import guidelines_current
from collection.models import RetrievalTask
from kernel.core.grades import MAX_GRADE

__all__ = ["GuidelinesInvalid", "guidelines_questions_set", "guidelines_save"]


def guidelines_save(
    *,
    task: RetrievalTask,
    instructions: str,
    scale: Any,
    relevance_level: int,
    note: str = "",
    created_by: User | None = None,
) -> TaskGuidelines | None:
    """Store the task's guidelines as a new version and its relevance level.

    ``scale`` is the scale's JSON (see assessment.core.guidelines). Everything is validated first
    and nothing is stored on a problem (GuidelinesInvalid lists every one). Saving what is
    already in force adds no version (returns None when the defaults stay in force); a
    changed relevance level alone is stored on the task without a new version. The task row
    is locked, so two organizers saving at once get consecutive versions.
    """
    try:
        parsed: GradeScale | None = scale_from_json(scale)
        problems: list[str] = []
    except GuidelinesInvalid as error:
        parsed, problems = None, list(error.problems)
    instructions, note = instructions.strip(), note.strip()
    top = parsed.top if parsed is not None else MAX_GRADE
    problems += guidelines_problems(
        instructions=instructions, top=top, relevance_level=relevance_level, note=note
    )
    if problems or parsed is None:
        raise GuidelinesInvalid(problems)
    with transaction.atomic():
        locked = RetrievalTask.objects.select_for_update().get(pk=task.pk)
        if locked.relevance_level != relevance_level:
            locked.relevance_level = relevance_level
            locked.save(update_fields=["relevance_level"])
            task.relevance_level = relevance_level
        current = guidelines_current(task=locked)
        if current.guidelines.instructions.strip() == instructions and scale_as_json(
            current.scale
        ) == scale_as_json(parsed):
            if current.version_id is None:
                return None
            return TaskGuidelines.objects.get(pk=current.version_id)
        return TaskGuidelines.objects.create(
            task=locked,
            version=current.version + 1,
            instructions=instructions,
            scale=scale_as_json(parsed),
            note=note,
            created_by=created_by,
        )


def guidelines_questions_set(
    *,
    task: RetrievalTask,
    questions: Sequence[QuestionDefinition],
    note: str = "",
    created_by: User | None = None,
) -> TaskGuidelines | None:
    """Ask ``questions`` beside the grade from now on (none: stop asking), keeping the rest of
    the guidelines in force: a new version, so each judgment's version says what was asked."""
    current = guidelines_current(task=task)
    scale = replace(current.scale, questions=tuple(questions))
    asked = ", ".join(q.code for q in questions) or "none"
    return guidelines_save(
        task=task,
        instructions=current.guidelines.instructions,
        scale=scale_as_json(scale),
        relevance_level=task.relevance_level,
        note=note or f"Extra questions: {asked}",
        created_by=created_by,
    )
