"""The organizer's guidelines page (/organize/task/<id>/guidelines/).

Edit the instructions, the scale (0..G), each grade's and flag's label, keys and definition and
the relevance level; preview them as assessors will see them; save them as a new version; see
every version with the judgments made under it. Thin: the form is read into the scale's JSON,
the pure core validates it (assessment.core.guidelines), one service saves it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from assessment.core.guidelines import (
    FLAG_CODES,
    FLAG_LABELS,
    MAX_QUESTIONS,
    RESERVED_KEYS,
    GradeScale,
    Guidelines,
    GuidelinesInvalid,
    guidelines_problems,
    keys_parse,
    scale_as_json,
    scale_from_json,
)
from assessment.core.guidelines_defaults import ARQMATH3_QUESTIONS
from assessment.selectors.guidelines import (
    CurrentGuidelines,
    guidelines_current,
    guidelines_rendered,
    guidelines_version,
    guidelines_versions,
)
from assessment.services.guidelines import guidelines_save
from assessment.views.organize import organizer_of
from collection.access import task_for
from collection.models import RetrievalTask
from kernel.access import organizer_required
from kernel.core.grades import MAX_GRADE
from kernel.params import BadParameter, page_filter, parse_int

__all__ = ["guidelines_page"]

MAX_QUESTION_ROWS = MAX_QUESTIONS + len(ARQMATH3_QUESTIONS)


@dataclass
class GuidelinesInput:
    """What the form says, as the service takes it."""

    instructions: str
    scale: dict[str, Any]
    relevance_level: int
    note: str
    problems: list[str] = field(default_factory=list)


def _number(data: Mapping[str, str], name: str, what: str, problems: list[str]) -> int:
    try:
        return parse_int(data.get(name), name=name, low=0, high=99)
    except BadParameter:
        problems.append(f"{what}: choose a number")
        return 0


def guidelines_from_form(data: Mapping[str, str]) -> GuidelinesInput:
    """The scale JSON of the posted fields: the grades 0..top and the flags ticked."""
    problems: list[str] = []
    top = _number(data, "top", "scale", problems)
    level = _number(data, "relevance_level", "relevance level", problems)
    if problems or not 1 <= top <= MAX_GRADE:
        problems.append(f"scale: the top grade is 1 to {MAX_GRADE}")
        top = max(1, min(top, MAX_GRADE))
    grades = [
        {
            "value": value,
            "label": data.get(f"grade-{value}-label", ""),
            "keys": keys_parse(data.get(f"grade-{value}-keys", "")),
            "definition": data.get(f"grade-{value}-definition", ""),
        }
        for value in range(top, -1, -1)
    ]
    flags = [
        {
            "code": code,
            "label": data.get(f"flag-{code}-label", ""),
            "keys": keys_parse(data.get(f"flag-{code}-keys", "")),
            "definition": data.get(f"flag-{code}-definition", ""),
        }
        for code in FLAG_CODES
        if data.get(f"flag-{code}-enabled")
    ]
    codes = keys_parse(data.get("question-codes", ""))[:MAX_QUESTION_ROWS]
    questions = [
        {
            "code": code,
            "label": data.get(f"question-{code}-label", ""),
            "keys": keys_parse(data.get(f"question-{code}-keys", "")),
            "definition": data.get(f"question-{code}-definition", ""),
            "topics": keys_parse(data.get(f"question-{code}-topics", "")),
        }
        for code in dict.fromkeys(codes)
        if data.get(f"question-{code}-enabled")
    ]
    return GuidelinesInput(
        instructions=data.get("instructions", ""),
        scale={"grades": grades, "flags": flags, "questions": questions},
        relevance_level=level,
        note=data.get("note", ""),
        problems=problems,
    )


def _question_rows(scale: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A row for each question of the scale, then ARQMath-3's (MG, UI) when not in it, off."""
    given = scale.get("questions", [])
    asked = [q for q in given if isinstance(q, Mapping)] if isinstance(given, list) else []
    known = {q.code: q for q in ARQMATH3_QUESTIONS}
    rows: list[dict[str, Any]] = []
    for entry in [*asked, *(scale_as_json(GradeScale((), (), ARQMATH3_QUESTIONS))["questions"])]:
        code = str(entry.get("code", ""))
        if any(row["code"] == code for row in rows):
            continue
        topics = entry.get("topics", [])
        rows.append(
            {
                "code": code,
                "enabled": entry in asked,
                "label": entry.get("label", known[code].label if code in known else ""),
                "keys": " ".join(k for k in entry.get("keys", []) if isinstance(k, str)),
                "definition": entry.get("definition", ""),
                "topics": " ".join(t for t in topics if isinstance(t, str))
                if isinstance(topics, list)
                else str(topics),
            }
        )
    return rows[:MAX_QUESTION_ROWS]


def _form_rows(scale: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every possible grade row (4..0) and flag row, filled from a scale's JSON."""
    grades = {g.get("value"): g for g in scale.get("grades", []) if isinstance(g, Mapping)}
    flags = {f.get("code"): f for f in scale.get("flags", []) if isinstance(f, Mapping)}
    grade_rows = [
        {
            "value": value,
            "label": grades.get(value, {}).get("label", ""),
            "keys": " ".join(grades.get(value, {}).get("keys", [])),
            "definition": grades.get(value, {}).get("definition", ""),
        }
        for value in range(MAX_GRADE, -1, -1)
    ]
    flag_rows = [
        {
            "code": code,
            "name": FLAG_LABELS[code],
            "enabled": code in flags,
            "label": flags.get(code, {}).get("label", FLAG_LABELS[code]),
            "keys": " ".join(flags.get(code, {}).get("keys", [])),
            "definition": flags.get(code, {}).get("definition", ""),
        }
        for code in FLAG_CODES
    ]
    return grade_rows, flag_rows


def _checked(task: RetrievalTask, given: GuidelinesInput) -> CurrentGuidelines:
    """The submitted guidelines as the judging page would show them, or GuidelinesInvalid
    with every problem of the form at once."""
    problems = list(given.problems)
    scale: GradeScale | None = None
    try:
        scale = scale_from_json(given.scale)
    except GuidelinesInvalid as error:
        problems += error.problems
    problems += guidelines_problems(
        instructions=given.instructions.strip(),
        top=len(given.scale["grades"]) - 1,  # the form's scale, valid or not
        relevance_level=given.relevance_level,
        note=given.note.strip(),
    )
    if problems or scale is None:
        raise GuidelinesInvalid(problems)
    return CurrentGuidelines(
        task_id=task.pk,
        kind=task.kind,
        version=-1,
        version_id=None,
        guidelines=Guidelines(given.instructions.strip(), scale),
        relevance_level=given.relevance_level,
    )


def _context(
    task: RetrievalTask,
    current: CurrentGuidelines,
    form: Mapping[str, Any],
    **extra: Any,
) -> dict[str, Any]:
    grade_rows, flag_rows = _form_rows(form["scale"])
    return {
        "task": task,
        "current": current,
        "rendered": guidelines_rendered(current),
        "versions": guidelines_versions(task=task),
        "form": form,
        "grade_rows": grade_rows,
        "flag_rows": flag_rows,
        "question_rows": (question_rows := _question_rows(form["scale"])),
        "question_codes": " ".join(row["code"] for row in question_rows),
        "tops": list(range(1, MAX_GRADE + 1)),
        "levels": list(range(1, MAX_GRADE + 1)),
        "reserved": sorted(RESERVED_KEYS.items()),
        **extra,
    }


def _form_of(current: CurrentGuidelines) -> dict[str, Any]:
    return {
        "instructions": current.guidelines.instructions,
        "scale": scale_as_json(current.scale),
        "top": current.scale.top,
        "relevance_level": current.relevance_level,
        "note": "",
    }


def _form_of_input(given: GuidelinesInput) -> dict[str, Any]:
    return {
        "instructions": given.instructions,
        "scale": given.scale,
        "top": len(given.scale["grades"]) - 1,
        "relevance_level": given.relevance_level,
        "note": given.note,
    }


@organizer_required
@require_http_methods(["GET", "POST"])
def guidelines_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    current = guidelines_current(task=task)
    if request.method == "GET":
        shown = None
        asked = page_filter(  # 0 is the built-in defaults
            request,
            parse_int,
            request.GET.get("version"),
            name="version",
            low=0,
            high=2**31,
            default=None,
        )
        if asked is not None:
            shown = guidelines_version(task=task, version=asked)
        extra = {"viewing": guidelines_rendered(shown)} if shown is not None else {}
        return render(
            request, "organize/guidelines.html", _context(task, current, _form_of(current), **extra)
        )
    given = guidelines_from_form(request.POST)
    try:
        checked = _checked(task, given)
        if request.POST.get("action") == "preview":
            preview = guidelines_rendered(checked)
            context = _context(task, current, _form_of_input(given), preview=preview)
            return render(request, "organize/guidelines.html", context)
        saved = guidelines_save(
            task=task,
            instructions=given.instructions,
            scale=given.scale,
            relevance_level=given.relevance_level,
            note=given.note,
            created_by=organizer_of(request),
        )
    except GuidelinesInvalid as error:
        context = _context(task, current, _form_of_input(given), problems=error.problems)
        return render(request, "organize/guidelines.html", context, status=400)
    if saved is not None and saved.version != current.version:
        messages.success(request, f"Saved the guidelines as version {saved.version}.")
    elif given.relevance_level != current.relevance_level:
        messages.success(
            request,
            f"The relevance level is now {given.relevance_level}; "
            "the guidelines themselves did not change (no new version).",
        )
    else:
        messages.info(request, "Nothing changed in the guidelines: no new version.")
    return redirect("assessment:organize_guidelines", task_id=task.pk)
