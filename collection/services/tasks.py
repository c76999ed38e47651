"""Finding a campaign's task by the name a person gives, and creating one with the defaults of
its kind (collection/core/task_defaults.py)."""

from __future__ import annotations

from collection.core.task_defaults import KIND_DEFAULTS, task_defaults
from collection.core.task_names import (
    TaskNameError,
    TaskRef,
    choose_task,
    kind_of,
    task_name_problem,
)
from collection.models import Campaign, DocumentCollection, RetrievalTask


def task_named(campaign_name: str, wanted: str) -> RetrievalTask:
    """The campaign's task ``wanted`` names (its name, or the kind of its only task of that
    kind), with its campaign; TaskNameError listing the candidates otherwise."""
    tasks = list(
        RetrievalTask.objects.select_related("campaign", "collection").filter(
            campaign__name=campaign_name
        )
    )
    chosen = choose_task(
        (TaskRef(t.pk, t.name, t.kind) for t in tasks), wanted, campaign=campaign_name
    )
    return next(t for t in tasks if t.pk == chosen.pk)


def task_get_or_create(
    *,
    campaign: Campaign,
    kind: str,
    name: str | None = None,
    collection: DocumentCollection | None = None,
) -> tuple[RetrievalTask, bool]:
    """The campaign's task named ``name`` (default: the kind), created with its kind's defaults
    when there is none.

    An existing task keeps its settings: the organizer may have changed them."""
    fields: dict[str, object] = {**task_defaults(kind).as_fields(), "kind": kind}
    if collection is not None:
        fields["collection"] = collection
    if kind == RetrievalTask.Kind.OPENQA:
        # Made explicit at creation, so a second answer task added later changes nothing.
        answers = list(campaign.tasks.filter(kind=RetrievalTask.Kind.ANSWER)[:2])
        if len(answers) == 1:
            fields["answer_task"] = answers[0]
    task, created = RetrievalTask.objects.get_or_create(
        campaign=campaign, name=name or kind, defaults=fields
    )
    if task.kind != kind:
        raise TaskNameError(
            f"task {task.name!r} of {campaign.name!r} is a {task.kind} task, not {kind}"
        )
    return task, created


def task_kind_named(*, campaign_name: str, task: str, kind: str | None = None) -> str:
    """The kind of the task an import names (task_for_import), before anything is created:
    ``kind`` when given, else the named task's, else the kind ``task`` spells."""
    if kind is not None:
        if kind not in KIND_DEFAULTS:
            raise TaskNameError(f"unknown task kind {kind[:40]!r}: use {'|'.join(KIND_DEFAULTS)}")
        return kind
    named = (
        RetrievalTask.objects.filter(campaign__name=campaign_name, name=task.strip())
        .values_list("kind", flat=True)
        .first()
    )
    found = named or kind_of(task)
    if found is None:
        raise TaskNameError(
            f"campaign {campaign_name!r} has no task named {task.strip()[:60]!r}: give its kind "
            "to create it"
        )
    return found


def task_for_import(
    *,
    campaign_name: str,
    task: str,
    kind: str | None = None,
    create: bool = True,
    collection: DocumentCollection | None = None,
) -> tuple[RetrievalTask, bool]:
    """The task an import names, created when missing (unless ``create`` is False); (task,
    created).

    ``task`` is a task's name, or a kind spelling (answer, task1, document, …) naming the
    campaign's only task of that kind, created under the kind's name when the campaign has none.
    With ``kind``, ``task`` is always a name: the task of that name, or a new one of that kind.
    TaskNameError when the campaign has several tasks of the kind, or the name is unusable."""
    task = task.strip()
    if kind is not None and kind not in KIND_DEFAULTS:
        raise TaskNameError(f"unknown task kind {kind[:40]!r}: use {'|'.join(KIND_DEFAULTS)}")
    campaign = Campaign.objects.filter(name=campaign_name).first()
    tasks = list(campaign.tasks.select_related("campaign", "collection")) if campaign else []
    named = next((t for t in tasks if t.name == task), None)
    if named is not None:
        if kind is not None and named.kind != kind:
            raise TaskNameError(
                f"task {task!r} of {campaign_name!r} is a {named.kind} task, not {kind}"
            )
        return named, False
    if kind is None:
        kind = kind_of(task)
        if kind is None:
            raise TaskNameError(
                f"campaign {campaign_name!r} has no task named {task[:60]!r}: give its kind "
                "to create it"
            )
        of_kind = [t for t in tasks if t.kind == kind]
        if of_kind:  # one: it; several: an error naming them
            chosen = choose_task(
                (TaskRef(t.pk, t.name, t.kind) for t in of_kind), task, campaign=campaign_name
            )
            return next(t for t in of_kind if t.pk == chosen.pk), False
        task = kind
    problem = task_name_problem(task)
    if problem:
        raise TaskNameError(problem)
    if not create:
        raise TaskNameError(
            f"campaign {campaign_name!r} has no {kind} task named {task!r} (create=False)"
        )
    if campaign is None:
        campaign, _ = Campaign.objects.get_or_create(name=campaign_name)
    return task_get_or_create(campaign=campaign, kind=kind, name=task, collection=collection)
