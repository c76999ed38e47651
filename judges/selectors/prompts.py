"""A task's judge prompt in force (its latest version, or the built-in default as version 0)
and the grades it presents."""

from __future__ import annotations

from dataclasses import dataclass

from assessment.selectors.guidelines import guidelines_current
from collection.models import RetrievalTask
from judges.core.prompts import DEFAULT_PROMPT, ScaleGrade
from judges.models import JudgePrompt

__all__ = ["PromptInForce", "judge_prompt", "judge_prompt_versions", "scale_grades"]


@dataclass(frozen=True)
class PromptInForce:
    version: int  # 0: the built-in default
    template: str
    note: str = ""


def judge_prompt(task: RetrievalTask, version: int | None = None) -> PromptInForce | None:
    """Version ``version`` of the task's prompt (None: the latest); None if it has no such
    version."""
    rows = JudgePrompt.objects.filter(task=task)
    row = rows.filter(version=version).first() if version else rows.order_by("-version").first()
    if row is None:
        return PromptInForce(0, DEFAULT_PROMPT, "built-in default") if not version else None
    return PromptInForce(row.version, row.template, row.note)


def judge_prompt_versions(task: RetrievalTask) -> list[JudgePrompt]:
    return list(JudgePrompt.objects.filter(task=task).select_related("created_by")[:100])


def scale_grades(task: RetrievalTask) -> list[ScaleGrade]:
    """The task's grades in force, as the prompt lists them."""
    scale = guidelines_current(task=task).scale
    return [ScaleGrade(g.value, g.label, g.definition) for g in scale.grades]
