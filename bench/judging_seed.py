"""The judging load test's database: a throwaway PostgreSQL database with assessors, topics,
posts, formulas, pools and official assignments, and a logged-in session per assessor
(bench/judging_load.py; Turkle's peer gets the same items)."""

from __future__ import annotations

import os
import random
import secrets
import sys
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

BENCH_DB = "bench_judging_load"
FORMULA_HITS = 5
POST_BODY = (
    "<p>Write <span class='math-container' id='{fid}'>$\\int_0^{{{n}}} x^2\\,dx = {n}^3/3$</span>"
    " and compare with <span class='math-container' id='{fid2}'>$\\sum_{{k=1}}^{{{n}}} k^2$</span>."
    "</p><p>Both grow like <em>n cubed</em>; see <a href='https://math.stackexchange.com/q/{n}'>"
    "this question</a>.</p>"
)


# ---- Setting up the database (runs in the bench process) ----------------------------------
def bench_database_url(name: str = BENCH_DB) -> tuple[str, str]:
    """(admin URL on the `postgres` database, URL of the bench database ``name``)."""
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/qrelsmith")
    parts = urlsplit(base)
    if parts.scheme not in ("postgres", "postgresql"):
        sys.exit("judging_load needs PostgreSQL: set DATABASE_URL to a postgres:// URL")
    admin = urlunsplit(parts._replace(path="/postgres"))
    return admin, urlunsplit(parts._replace(path=f"/{name}"))


def recreate_database(admin_url: str, drop_only: bool = False, name: str = BENCH_DB) -> None:
    """Drop the scratch database ``name`` (and create it afresh unless ``drop_only``)."""
    import psycopg2

    connection = psycopg2.connect(admin_url)
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            cursor.execute(f'CREATE DATABASE "{name}"')
    connection.close()


@dataclass
class Assessor:
    username: str
    session_key: str
    csrf: str
    assignment_id: int
    items: list[tuple[int, list[int]]]  # (item id, hit ids) in display order


def logged_in_session(user: Any) -> str:
    """The key of a session logged in as ``user``, as a password login leaves it."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    # The backend a password login records (the last: the lockout backend only guards).
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[-1]
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key or ""


def seed(assessors: int, hits: int, formula_share: float, rng: random.Random) -> list[Assessor]:
    """Users, topics, posts, formulas, pools and assignments; logged-in sessions."""
    from django.contrib.auth.models import User

    from assessment.models import Assignment
    from collection.models import Campaign, Formula, Post, RetrievalTask, Thread, Topic
    from pooling.models import Hit, PoolItem

    campaign = Campaign.objects.create(name="Load test")
    answer = RetrievalTask.objects.create(
        campaign=campaign, kind=RetrievalTask.Kind.ANSWER, name=RetrievalTask.Kind.ANSWER
    )
    formula = RetrievalTask.objects.create(
        campaign=campaign, kind=RetrievalTask.Kind.FORMULA, name=RetrievalTask.Kind.FORMULA
    )
    formula_people = round(assessors * formula_share)
    threads, posts, formulas, items, hit_rows = [], [], [], [], []
    plan: list[tuple[User, Topic, list[tuple[PoolItem, list[Hit]]]]] = []
    next_id = 1_000_000
    for i in range(assessors):
        user = User(username=f"load{i:03d}")
        user.set_unusable_password()
        user.save()
        is_formula = i < formula_people
        task = formula if is_formula else answer
        topic = Topic.objects.create(
            task=task,
            number=f"{'B' if is_formula else 'A'}.{i + 1}",
            title=f"How does <span class='math-container' id='q_1'>$\\int x^{i}$</span> grow?",
            question="<p>Why is <span class='math-container' id='q_2'>$x^2 \\geq 0$</span>?</p>",
            formula_id="q_2" if is_formula else "",
            latex="x^2 \\geq 0" if is_formula else "",
            tags=["calculus"],
        )
        per_item = FORMULA_HITS if is_formula else 1
        topic_items = []
        for k in range(hits // per_item):
            item = PoolItem(topic=topic, key=f"k{k}", display_order=k, visual_id=f"v{k}")
            item_hits: list[Hit] = []
            for _ in range(per_item):
                next_id += 3
                thread = Thread(id=next_id, title=f"Thread {next_id}")
                post = Post(
                    id=next_id + 1,
                    thread=thread,
                    kind=Post.Kind.ANSWER,
                    body=POST_BODY.format(fid=next_id + 1, fid2=next_id + 2, n=rng.randint(2, 99)),
                )
                threads.append(thread)
                posts.append(post)
                formulas.append(
                    Formula(
                        formula_id=next_id + 1,
                        post=post,
                        thread=thread,
                        location="answer",
                        visual_id=f"v{k}",
                        latex="\\int_0^n x^2\\,dx",
                    )
                )
                item_hits.append(
                    Hit(
                        item=item,
                        post_id=post.pk,
                        formula_id=next_id + 1 if is_formula else None,
                        position=len(item_hits),
                        vote=rng.random(),
                    )
                )
            if not is_formula:
                item.post_id = item_hits[0].post_id
                item.key = str(item.post_id)
            items.append(item)
            hit_rows.extend(item_hits)
            topic_items.append((item, item_hits))
        plan.append((user, topic, topic_items))
    Thread.objects.bulk_create(threads, batch_size=5000)
    Post.objects.bulk_create(posts, batch_size=5000)
    Formula.objects.bulk_create(formulas, batch_size=5000)
    PoolItem.objects.bulk_create(items, batch_size=5000)
    for hit in hit_rows:
        hit.item_id = hit.item.pk
    Hit.objects.bulk_create(hit_rows, batch_size=5000)
    people = []
    for user, topic, topic_items in plan:
        assignment = Assignment.objects.create(topic=topic, assessor=user, purpose="official")
        people.append(
            Assessor(
                username=user.username,
                session_key=logged_in_session(user),
                csrf=secrets.token_hex(16),  # a 32-character CSRF secret, as Django makes
                assignment_id=assignment.pk,
                items=[(item.pk, [h.pk for h in item_hits]) for item, item_hits in topic_items],
            )
        )
    return people
