"""Which of a campaign's tasks a name given by a person means (commands, uploads, imports).

A campaign may hold several tasks of one kind, so a task is named by its short name. The kind,
or a spelling ARQMath's files and papers use (task1, 2, …), still names a task when the
campaign has exactly one of that kind: the commands of a campaign with one task per kind work
as they always did. When several tasks share the kind, the caller must say which one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Accepted spellings of a task's kind on the command line and in ARQMath file names.
KIND_SPELLINGS = {
    "answer": "answer",
    "task1": "answer",
    "1": "answer",
    "formula": "formula",
    "task2": "formula",
    "2": "formula",
    "openqa": "openqa",
    "task3": "openqa",
    "3": "openqa",
    "document": "document",  # TREC-style tasks: TREC runs with the collection's docnos
    "rag": "rag",  # TREC RAG: generated answers citing the collection's segments
}

TASK_NAME_MAX_CHARS = 40
_TASK_NAME = re.compile(r"[A-Za-z0-9_-]+")  # a slug, as the model field validates it


@dataclass(frozen=True, slots=True)
class TaskRef:
    """A stored task as the lookup sees it."""

    pk: int
    name: str
    kind: str


class TaskNameError(ValueError):
    """The name given names no task, or several: the message says which names exist."""


def kind_of(spelling: str) -> str | None:
    """The kind a spelling names (``task1`` -> ``answer``); None when it names no kind."""
    return KIND_SPELLINGS.get(spelling.strip().lower())


def task_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a task's name, or None when it can."""
    if not name:
        return "a task name must not be empty"
    if len(name) > TASK_NAME_MAX_CHARS:
        return f"a task name has at most {TASK_NAME_MAX_CHARS} characters"
    if not _TASK_NAME.fullmatch(name):
        return (
            f"task name {name[:60]!r} is not a short name: use letters, digits, "
            "- and _ (e.g. task1, covid-docs)"
        )
    return None


def _listing(tasks: Iterable[TaskRef]) -> str:
    return ", ".join(f"{t.name} ({t.kind})" for t in sorted(tasks, key=lambda t: t.name))


def choose_task(tasks: Iterable[TaskRef], wanted: str, *, campaign: str) -> TaskRef:
    """The task ``wanted`` names among a campaign's ``tasks``.

    A task's own name wins; otherwise a kind spelling names the campaign's only task of that
    kind. TaskNameError, listing the candidates, when there is none or more than one."""
    tasks = list(tasks)
    given = wanted.strip()
    for task in tasks:
        if task.name == given:
            return task
    kind = kind_of(given)
    if kind is None:
        known = _listing(tasks) or "none"
        raise TaskNameError(
            f"campaign {campaign!r} has no task named {given[:60]!r} (tasks: {known})"
        )
    of_kind = [t for t in tasks if t.kind == kind]
    if len(of_kind) == 1:
        return of_kind[0]
    if not of_kind:
        raise TaskNameError(f"campaign {campaign!r} has no {kind} task")
    raise TaskNameError(
        f"campaign {campaign!r} has {len(of_kind)} {kind} tasks: name one of them "
        f"({_listing(of_kind)})"
    )


def leading_task(words: Sequence[str], names: Iterable[str]) -> tuple[str, int] | None:
    """The task a file name's ``-``-separated ``words`` start with, and how many words it
    takes: one of ``names`` (a task's name may itself hold ``-``; the longest wins), else a
    kind spelling (``task1``), which ``choose_task`` then resolves; None when neither fits."""
    for name in sorted(names, key=len, reverse=True):
        taken = name.count("-") + 1
        if "-".join(words[:taken]) == name:
            return name, taken
    if words and kind_of(words[0]) is not None:
        return words[0], 1
    return None
