"""Saving a task's judge prompt: checked, versioned, never edited in place (as guidelines are)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from collection.models import RetrievalTask
from judges.core.prompts import prompt_problems
from judges.models import JudgePrompt
from judges.selectors.prompts import judge_prompt
from judges.services.endpoints import EndpointError

__all__ = ["judge_prompt_save"]

NOTE_MAX = 200


def judge_prompt_save(
    *, task: RetrievalTask, template: str, note: str = "", created_by: Any = None
) -> JudgePrompt | None:
    """A new version of the task's prompt; the prompt in force again adds none (returns the
    version in force, None for the default). The task row is locked so two organizers saving
    at once get consecutive versions."""
    template = template.replace("\r\n", "\n").strip() + "\n"
    problems = prompt_problems(template)
    if len(note) > NOTE_MAX:
        problems.append(f"note: at most {NOTE_MAX} characters")
    if problems:
        raise EndpointError(problems)
    with transaction.atomic():
        RetrievalTask.objects.select_for_update().filter(pk=task.pk).first()
        current = judge_prompt(task)
        if current is not None and current.template.strip() == template.strip():
            return JudgePrompt.objects.filter(task=task, version=current.version).first()
        return JudgePrompt.objects.create(
            task=task,
            version=(current.version if current else 0) + 1,
            template=template,
            note=note.strip(),
            created_by=created_by if getattr(created_by, "pk", None) else None,
        )
