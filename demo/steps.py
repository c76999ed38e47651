"""The steps of ``manage.py demo``, in order, and the reset that undoes them.

Each step takes the ``Demo`` context (``demo.arqmath_campaign``). A new step is one line in
``STEPS``, e.g.::

    ("build pools", lambda demo: demo.write(demo_build_pools(demo.campaign))),
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import User
from django.db import transaction

from assessment.models import Adjudication, Judgment
from collection.models import Campaign, Thread
from demo.arqmath_campaign import (
    CAMPAIGN,
    Demo,
    step_import_collection,
    step_import_topics,
    step_runs,
    step_users,
    step_write_files,
    team_names,
)
from demo.assignments import demo_assign
from demo.people import USERS
from demo.pools import demo_build_pools
from demo.rag_campaign import build_rag_demo, rag_demo_reset
from demo.results import demo_evaluate
from demo.training import demo_training_and_dual
from demo.trec_campaign import (
    TREC_CAMPAIGN,
    TREC_COLLECTION,
    build_trec_demo,
    trec_demo_reset,
    trec_team_names,
)
from pooling.models import Team

__all__ = ["STEPS", "demo_reset"]


def step_trec(demo: Demo) -> None:
    build_trec_demo(
        folder=demo.folder / "trec",
        seed=demo.seed,
        documents=demo.documents,
        topics=demo.topics,
        users=demo.users,
        write=demo.write,
    )


def step_rag(demo: Demo) -> None:
    build_rag_demo(
        folder=demo.folder / "rag",
        seed=demo.seed,
        collection=TREC_COLLECTION,
        trec_campaign=TREC_CAMPAIGN,
        users=demo.users,
        write=demo.write,
    )


STEPS: list[tuple[str, Callable[[Demo], None]]] = [
    ("write the synthetic collection, topics and runs", step_write_files),
    ("import the collection", step_import_collection),
    ("import the topics of both tasks", step_import_topics),
    ("create the organizer, assessors and participants", step_users),
    ("submit the runs", step_runs),
    ("build the pools of both tasks", lambda d: d.write(demo_build_pools(d.campaign))),
    ("assign topics to alice and bob", lambda d: d.write(demo_assign(d.campaign))),
    # After alice's and bob's topics: the simulated colleagues take the rest.
    ("training rounds and dual assessments", lambda d: d.write(demo_training_and_dual(d.campaign))),
    ("export qrels and evaluate the runs", lambda d: d.write(demo_evaluate(d.campaign))),
    ("build the TREC-style news campaign", step_trec),
    ("build the RAG campaign judged by nuggets", step_rag),
]


def demo_reset() -> None:
    """Delete the demo campaigns (their tasks, topics, runs, pools, judgments cascade), their
    users and teams, the whole Math SE collection and the demo's document collection."""
    with transaction.atomic():
        # Judgments and adjudications are protected against cascades (nothing an assessor said
        # is lost by accident): the reset removes them explicitly first.
        in_demo = {"hit__item__topic__task__campaign__name": CAMPAIGN}
        Adjudication.objects.filter(**in_demo).delete()
        Judgment.objects.filter(**in_demo).delete()
        rag_demo_reset()  # its task names the TREC demo's collection
        trec_demo_reset()
        Campaign.objects.filter(name=CAMPAIGN).delete()
        teams = {team for *_, team in USERS} | team_names() | trec_team_names()
        Team.objects.filter(name__in=teams).delete()
        User.objects.filter(username__in=[username for username, *_ in USERS]).delete()
        Thread.objects.all().delete()  # posts, comments and formulas cascade
