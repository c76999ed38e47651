"""Reads of the published nugget scores: the task's state (the latest publication event) and
the frozen figures a user may see, with the rule of every task's results
(``evaluation.access``): organizers see every run, anybody else only their own teams' runs,
and only while the scores are published."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import OuterRef, Subquery

from collection.models import RetrievalTask
from kernel.access import is_organizer, is_person
from nuggets.models import NuggetPublicationEvent, NuggetScoreSnapshot
from pooling.models import Team


@dataclass(frozen=True)
class NuggetPublicationState:
    published: bool
    latest: NuggetPublicationEvent | None

    @property
    def snapshot(self) -> NuggetScoreSnapshot | None:
        return self.latest.snapshot if self.latest else None


def nugget_publication_state(task: RetrievalTask) -> NuggetPublicationState:
    latest = (
        NuggetPublicationEvent.objects.filter(task=task)
        .select_related("snapshot")
        .order_by("-at", "-id")
        .first()
    )
    published = latest is not None and latest.action == NuggetPublicationEvent.Action.PUBLISH
    return NuggetPublicationState(published, latest)


def nugget_scores_task_ids(user: Any) -> list[int]:
    """The RAG tasks whose nugget scores page ``user`` may open, in one query: organizers every
    RAG task (they publish and withdraw there); anybody else the tasks their teams ran whose
    latest publication event is a publication, so a withdrawal takes the task away."""
    tasks = RetrievalTask.objects.filter(kind=RetrievalTask.Kind.RAG)
    if is_organizer(user):
        return list(tasks.values_list("pk", flat=True))
    if not is_person(user):
        return []
    latest_action = (
        NuggetPublicationEvent.objects.filter(task=OuterRef("pk"))
        .order_by("-at", "-id")
        .values("action")[:1]
    )
    return list(
        tasks.annotate(latest_action=Subquery(latest_action))
        .filter(
            latest_action=NuggetPublicationEvent.Action.PUBLISH,
            pk__in=Team.objects.filter(members=user).values("runs__task_id"),
        )
        .values_list("pk", flat=True)
    )


def nugget_publication_events(task: RetrievalTask) -> list[NuggetPublicationEvent]:
    return list(
        NuggetPublicationEvent.objects.filter(task=task)
        .select_related("snapshot")
        .order_by("-at", "-id")
    )


@dataclass(frozen=True)
class PublishedScores:
    state: NuggetPublicationState
    topics: list[str]
    measures: list[str]
    runs: list[dict[str, Any]]  # the snapshot's rows the user may see


def published_nugget_scores(user: Any, task: RetrievalTask) -> PublishedScores | None:
    """The published snapshot's rows ``user`` may see; None when the user may not open the
    scores at all (not published, or not a person). Organizers see the last snapshot even
    after a withdrawal."""
    state = nugget_publication_state(task)
    snapshot = state.snapshot
    organizer = is_organizer(user)
    if snapshot is None or not is_person(user) or not (state.published or organizer):
        return None
    rows = snapshot.scores["runs"]
    if not organizer:
        teams = set(Team.objects.filter(members=user).values_list("pk", flat=True))
        rows = [row for row in rows if row["team_id"] in teams]
    topics = snapshot.scores["topics"]
    # Each row's per-topic measures in the topics' order (None: the run did not answer).
    rows = [{**row, "cells": [row["per_topic"].get(t) for t in topics]} for row in rows]
    return PublishedScores(state, topics, snapshot.scores["measures"], rows)
