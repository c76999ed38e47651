"""Benchmark: live agreement and the organizer dashboard on a campaign of ARQMath size.

10 assessors, 100 topics with 500 hits each, every hit judged officially and 20% of the topics
dual-assessed (60,000 judgments), plus a training round. Times, on a throwaway PostgreSQL
database: the whole agreement table (pairwise 4-way/binary/weighted kappas, per-assessor means,
Krippendorff's alpha), the dashboard selector, and rendering the dashboard and agreement pages
through Django's test client. Peer: scikit-learn's ``cohen_kappa_score`` computing the same
four kappas per pair (4-way, binary, linear, quadratic) from the same ratings, timed beside our
pure core on that input. Target: under 300 ms each.

    .venv/bin/python bench/agreement.py [--small] [--assessors N] [--topics N] [--hits N]
        [--dual-share F] [--repeat N]

Uses DATABASE_URL (default postgres://postgres@127.0.0.1:5432/qrelsmith) and creates, then
drops, the database ``bench_agreement_<name>``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.urls import reverse  # noqa: E402


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Median wall time in ms over ``repeat`` runs (after one warm-up) and the last result."""
    result = fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


def build(assessors: int, topics: int, hits: int, dual_share: float, seed: int) -> Any:
    from django.contrib.auth.models import User

    from assessment.models import Assignment, Judgment
    from assessment.services.training import training_round_create
    from collection.models import Campaign, RetrievalTask, Topic
    from pooling.models import Hit, PoolItem

    rng = random.Random(seed)
    campaign = Campaign.objects.create(name="Bench campaign")
    task = RetrievalTask.objects.create(
        campaign=campaign, kind=RetrievalTask.Kind.ANSWER, name=RetrievalTask.Kind.ANSWER
    )
    people = [User.objects.create(username=f"assessor{i:02d}") for i in range(assessors)]
    User.objects.create(username="organizer", is_staff=True)
    topic_rows = Topic.objects.bulk_create(
        Topic(task=task, number=f"A.{n + 1}", title=f"Topic {n + 1}", question="<p>?</p>")
        for n in range(topics)
    )
    items = PoolItem.objects.bulk_create(
        (
            PoolItem(
                topic=t, key=str(t.pk * 100_000 + k), post_id=t.pk * 100_000 + k, display_order=k
            )
            for t in topic_rows
            for k in range(hits)
        ),
        batch_size=5000,
    )
    hit_rows = Hit.objects.bulk_create(
        (Hit(item=i, post_id=i.post_id) for i in items), batch_size=5000
    )
    latent = {h.pk: rng.choices((0, 1, 2, 3), weights=(55, 20, 15, 10))[0] for h in hit_rows}
    hits_of: dict[int, list[int]] = {}
    for h, i in zip(hit_rows, items, strict=True):
        hits_of.setdefault(i.topic_id, []).append(h.pk)
    official = Assignment.objects.bulk_create(
        Assignment(topic=t, assessor=people[n % assessors], purpose="official")
        for n, t in enumerate(topic_rows)
    )
    dual_topics = rng.sample(range(topics), round(topics * dual_share))
    dual = Assignment.objects.bulk_create(
        Assignment(
            topic=topic_rows[n],
            assessor=people[(n + 1 + rng.randrange(assessors - 1)) % assessors],
            purpose="dual",
        )
        for n in dual_topics
    )
    accuracy = {p.pk: 0.55 + 0.4 * rng.random() for p in people}

    def report(hit_id: int, assessor_id: int) -> int:
        grade = latent[hit_id]
        if rng.random() < accuracy[assessor_id]:
            return grade
        return min(3, max(0, grade + rng.choice((-1, 1))))

    Judgment.objects.bulk_create(
        (
            Judgment(
                assignment=a,
                hit_id=h,
                assessor_id=a.assessor_id,
                grade=report(h, a.assessor_id),
                active_seconds=rng.lognormvariate(2.8, 0.7),
            )
            for a in [*official, *dual]
            for h in hits_of[a.topic_id]
        ),
        batch_size=5000,
    )
    training_topics = topic_rows[:2]
    gold = {
        (t.number, i.key): latent[h.pk]
        for t in training_topics
        for i, h in zip(items, hit_rows, strict=True)
        if i.topic_id == t.pk
    }
    training_round = training_round_create(
        task=task,
        name="Round 1",
        topics=training_topics,
        assessors=people,
        created_by=None,
        qrels=gold,
        items_per_topic=6,
        seed=seed,
    )
    round_hits = list(
        Hit.objects.filter(item__in=training_round.items.all()).values_list("pk", "item__topic_id")
    )
    Judgment.objects.bulk_create(
        Judgment(assignment=a, hit_id=h, assessor_id=a.assessor_id, grade=report(h, a.assessor_id))
        for a in training_round.assignments.all()
        for h, topic_id in round_hits
        if topic_id == a.topic_id
    )
    return task


def shared_ratings(task: Any) -> dict[int, dict[int, int]]:
    """Assessor -> hit -> grade for the hits two or more assessors graded (the table's input)."""
    from assessment.models import Judgment

    ratings: dict[int, dict[int, int]] = {}
    rows = Judgment.objects.filter(
        assignment__topic__task=task,
        assignment__purpose__in=["official", "dual"],
        grade__isnull=False,
    ).values_list("assessor_id", "hit_id", "grade")
    for assessor, hit, grade in rows:
        if grade is not None:
            ratings.setdefault(assessor, {})[hit] = grade
    graded_by: dict[int, int] = {}
    for rating in ratings.values():
        for hit in rating:
            graded_by[hit] = graded_by.get(hit, 0) + 1
    return {a: {h: g for h, g in r.items() if graded_by[h] > 1} for a, r in ratings.items()}


def ours_pairs(ratings: dict[int, dict[int, int]]) -> int:
    """Our pure core on the same input: 4-way, binary, linear, quadratic kappa per pair."""
    from assessment.core.agreement_tables import pairwise_agreements

    return len(pairwise_agreements(ratings))


def sklearn_pairs(ratings: dict[int, dict[int, int]]) -> int:
    """The peer: the same four kappas per pair through scikit-learn's cohen_kappa_score."""
    from sklearn.metrics import cohen_kappa_score

    people = sorted(ratings)
    computed = 0
    for i, a in enumerate(people):
        for b in people[i + 1 :]:
            shared = ratings[a].keys() & ratings[b].keys()
            if len(shared) < 2:
                continue
            x = [ratings[a][h] for h in shared]
            y = [ratings[b][h] for h in shared]
            for weights in (None, "linear", "quadratic"):
                cohen_kappa_score(x, y, labels=[0, 1, 2, 3], weights=weights)
            cohen_kappa_score([int(v >= 2) for v in x], [int(v >= 2) for v in y], labels=[0, 1])
            computed += 1
    return computed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="20 topics x 100 hits")
    parser.add_argument("--assessors", type=int, default=10)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--hits", type=int, default=500)
    parser.add_argument("--dual-share", type=float, default=0.2)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2022)
    args = parser.parse_args()
    if args.small:
        args.topics, args.hits = 20, 100

    setup_test_environment()
    test = settings.DATABASES["default"]["TEST"]
    test["NAME"] = f"bench_agreement_{settings.DATABASES['default']['NAME']}"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        run(args)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def run(args: argparse.Namespace) -> None:
    from django.contrib.auth.models import User

    from assessment.models import Judgment
    from assessment.selectors.agreement import task_agreement
    from assessment.selectors.dashboard import task_dashboard

    start = time.perf_counter()
    task = build(args.assessors, args.topics, args.hits, args.dual_share, args.seed)
    with connection.cursor() as cursor:
        # A live database has planner statistics (autovacuum); a fresh bulk load has none yet.
        cursor.execute("ANALYZE")
    judgments = Judgment.objects.count()
    print(
        f"campaign: {args.assessors} assessors, {args.topics} topics x {args.hits} hits, "
        f"{args.dual_share:.0%} dual-assessed, {judgments} judgments "
        f"(built in {time.perf_counter() - start:.1f} s)"
    )
    client = Client()
    client.force_login(User.objects.get(username="organizer"))
    dashboard_url = reverse("assessment:organize_task", args=[task.pk])
    agreement_url = reverse("assessment:organize_agreement", args=[task.pk])

    def page(url: str) -> Callable[[], int]:
        def get() -> int:
            response = client.get(url)
            assert response.status_code == 200, response.status_code
            return len(response.content)

        return get

    figures = [
        ("agreement table (selector: all pairs, means, alpha)", lambda: task_agreement(task=task)),
        ("dashboard selector (progress, time, risk)", lambda: task_dashboard(task=task)),
        ("dashboard page render /organize/task/<id>/", page(dashboard_url)),
        ("agreement page render /organize/task/<id>/agreement/", page(agreement_url)),
    ]
    ratings = shared_ratings(task)
    figures += [
        ("pure core only: 4 kappas per pair, same input", lambda: ours_pairs(ratings)),
        ("peer: scikit-learn cohen_kappa_score, same input", lambda: sklearn_pairs(ratings)),
    ]
    for label, fn in figures:
        ms, result = timed(fn, args.repeat)
        targeted = not label.startswith(("peer", "pure"))
        verdict = f"  (target < 300 ms: {'met' if ms < 300 else 'MISSED'})" if targeted else ""
        detail = f"{len(result.pairs)} pairs" if hasattr(result, "pairs") else ""
        print(f"{label:<58} {ms:8.1f} ms  {detail}{verdict}")


if __name__ == "__main__":
    main()
