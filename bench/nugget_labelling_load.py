"""Load test of the nugget labelling page: many assessors labelling generated answers at once
through the real HTTP endpoints, as static/js/nugget_labels.js does.

The app runs under gunicorn exactly as in bench/judging_load.py (gthread workers, keep-alive,
warmed up first) on a throwaway PostgreSQL database. Each simulated assessor holds one official
assignment of a RAG topic with ``--answers`` generated answers (one per run, three cited
sentences each) and ``--nuggets`` nuggets. For each answer it GETs the labelling page
(``?at=N``), reads the answer's id from the page's data, then labels every nugget with one POST
per key press (support, partial support or no support, a client token each), thinking before
each. A share of POSTs is sent twice with the same token (a retried request); failures are
retried with the same body.

Afterwards the database must hold exactly one label per (assignment, answer, nugget) sent,
with the support sent, and one revision each. Prints requests per second, p50/p95/p99 of the
page and of a label POST, errors, lost and doubled labels, with the machine's load average.
Target on the 2-core machine: p95 < 40 ms for both, as for the judging page.

    .venv/bin/python bench/nugget_labelling_load.py [--small] [--assessors 40] [--answers 8]
        [--nuggets 15] [--think-ms 2000] [--workers 5] [--threads 2] [--client-procs 2]

Think time: two seconds (mean, exponential) before each label, quicker than an assessor who
reads the answer for each nugget; 40 such assessors send ~20 requests a second, the rate the
judging load test's 50 assessors send.

Uses DATABASE_URL's server and creates, then drops, the database ``bench_nugget_load``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.judging_load import Outcome, Session, start_qrelsmith, timed_call  # noqa: E402
from bench.judging_seed import (  # noqa: E402
    bench_database_url,
    logged_in_session,
    recreate_database,
)
from bench.load_common import assessors_at_once, load_options  # noqa: E402

BENCH_DB = "bench_nugget_load"
SUPPORTS = ("support", "partial_support", "not_support")
_ANSWER_ID = re.compile(rb'"answer": (\d+)')


@dataclass
class Labeller:
    username: str
    session_key: str
    csrf: str
    assignment_id: int
    answers: int
    nuggets: list[int]


def seed(assessors: int, answers: int, nuggets: int, rng: random.Random) -> list[Labeller]:
    """A RAG task with a segment collection, one topic per assessor with its answers (one
    per run) and nuggets, an official assignment each; logged-in sessions."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from assessment.models import Assignment
    from collection.models import Campaign, Document, DocumentCollection, RetrievalTask, Topic
    from nuggets.models import Nugget, RagAnswer
    from pooling.models import Run, Team

    collection = DocumentCollection.objects.create(name="load-segments")
    segments = [f"seg{i:05d}" for i in range(assessors * 10)]
    Document.objects.bulk_create(
        Document(
            collection=collection,
            docno=docno,
            title=f"Segment {docno}",
            body=f"Segment {docno} states a fact about topic {i // 10}. " * 6,
        )
        for i, docno in enumerate(segments)
    )
    campaign = Campaign.objects.create(name="Nugget load test")
    task = RetrievalTask.objects.create(
        campaign=campaign, kind=RetrievalTask.Kind.RAG, name="rag", collection=collection
    )
    runs = []
    for r in range(answers):
        team = Team.objects.create(name=f"team{r:02d}")
        runs.append(
            Run.objects.create(
                task=task,
                team=team,
                tag=f"rag-run-{r:02d}",
                file_name="run.jsonl",
                checksum="0" * 64,
                file_format="trec-rag-2024",
                row_count=assessors,
                status=Run.Status.ACCEPTED,
                uploaded_at=timezone.now(),
            )
        )
    people = []
    for i in range(assessors):
        user = User(username=f"labeller{i:03d}")
        user.set_unusable_password()
        user.save()
        topic = Topic.objects.create(
            task=task, number=str(i + 1), title=f"What is known about topic {i}?"
        )
        own = segments[i * 10 : i * 10 + 10]
        RagAnswer.objects.bulk_create(
            RagAnswer(
                run=run,
                topic=topic,
                references=own[:3],
                sentences=[
                    {"text": f"Sentence {k} of {run.tag} on topic {i}.", "citations": [own[k]]}
                    for k in range(3)
                ],
                response_length=24,
                line=i + 1,
            )
            for run in runs
        )
        made = Nugget.objects.bulk_create(
            Nugget(
                topic=topic,
                text=f"Fact {n} of topic {i}",
                importance="vital" if n % 3 == 0 else "okay",
                position=n,
                origin="person",
            )
            for n in range(nuggets)
        )
        assignment = Assignment.objects.create(topic=topic, assessor=user, purpose="official")
        people.append(
            Labeller(
                username=user.username,
                session_key=logged_in_session(user),
                csrf=uuid.uuid4().hex,
                assignment_id=assignment.pk,
                answers=answers,
                nuggets=[n.pk for n in made],
            )
        )
    return people


def label(
    port: int, person: Labeller, think_ms: float, retry_share: float, seed: int
) -> tuple[Outcome, dict[tuple[int, int, int], str]]:
    rng = random.Random(seed)
    outcome = Outcome()
    sent: dict[tuple[int, int, int], str] = {}
    session = Session(port, person)  # type: ignore[arg-type]  # reads session_key and csrf
    a = person.assignment_id

    def think() -> None:
        if think_ms:
            time.sleep(rng.expovariate(1000 / think_ms))

    # Assessors start over a few seconds, as people do, not all in the same millisecond: a
    # burst of 40 first pages at once would be an eighth of the page samples.
    if think_ms:
        time.sleep(rng.uniform(0, 2 * think_ms / 1000))
    for at in range(1, person.answers + 1):
        elapsed, status, html = timed_call(
            session, "GET", f"/nuggets/assignments/{a}/?at={at}", None, outcome
        )
        found = _ANSWER_ID.search(html) if status == 200 else None
        if found is None:
            outcome.errors.append(f"page {a}?at={at} without its answer")
            continue
        outcome.page_ms.append(elapsed)
        answer = int(found.group(1))
        for nugget in person.nuggets:
            think()
            support = rng.choice(SUPPORTS)
            sent[(a, answer, nugget)] = support
            body = json.dumps(
                {
                    "answer": answer,
                    "labels": {str(nugget): support},
                    "client_token": uuid.uuid4().hex,
                }
            ).encode()
            path = f"/api/nuggets/assignments/{a}/labels/"
            for _ in range(2 if rng.random() < retry_share else 1):  # a retried request
                elapsed, status, _data = timed_call(session, "POST", path, body, outcome)
                if status == 200:
                    outcome.submit_ms.append(elapsed)
    return outcome, sent


def client_process(
    args: tuple[int, list[Labeller], float, float, int],
) -> tuple[Outcome, dict[tuple[int, int, int], str]]:
    port, people, think_ms, retry_share, seed = args
    results: list[tuple[Outcome, dict[tuple[int, int, int], str]]] = []
    lock = threading.Lock()

    def run(index: int, person: Labeller) -> None:
        found = label(port, person, think_ms, retry_share, seed * 1000 + index)
        with lock:
            results.append(found)

    threads = [threading.Thread(target=run, args=(i, p)) for i, p in enumerate(people)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    total, sent = Outcome(), {}
    for outcome, labels in results:
        total.page_ms += outcome.page_ms
        total.submit_ms += outcome.submit_ms
        total.errors += outcome.errors
        total.requests += outcome.requests
        sent.update(labels)
    return total, sent


def verify(sent: dict[tuple[int, int, int], str]) -> tuple[int, int, int, int]:
    """(stored, lost, doubled revisions, wrong support) against what was sent."""
    from nuggets.models import NuggetLabel, NuggetLabelRevision

    stored = {
        (a, answer, nugget): (support, revision)
        for a, answer, nugget, support, revision in NuggetLabel.objects.values_list(
            "assignment_id", "answer_id", "nugget_id", "support", "revision"
        )
    }
    lost = sum(1 for key in sent if key not in stored)
    wrong = sum(1 for key, s in sent.items() if key in stored and stored[key][0] != s)
    doubled = NuggetLabelRevision.objects.count() - len(stored)
    doubled += sum(1 for _, revision in stored.values() if revision != 1)
    doubled += sum(1 for key in stored if key not in sent)
    return len(stored), lost, doubled, wrong


def warm_up(port: int, person: Labeller, requests: int) -> None:
    """Fresh connections over the workers, so templates and URLs are compiled first."""
    for _ in range(requests):
        session = Session(port, person)  # type: ignore[arg-type]
        session.request("GET", f"/nuggets/assignments/{person.assignment_id}/?at=1")
        if session.connection is not None:
            session.connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--small", action="store_true", help="5 assessors x 3 answers x 5")
    parser.add_argument("--assessors", type=int, default=40)
    parser.add_argument("--answers", type=int, default=8)
    parser.add_argument("--nuggets", type=int, default=15)
    load_options(parser, think_ms=2000.0, port=8198)
    options = parser.parse_args()
    if options.small:
        options.assessors, options.answers, options.nuggets = 5, 3, 5

    admin_url, db_url = bench_database_url(BENCH_DB)
    recreate_database(admin_url, name=BENCH_DB)
    os.environ["DATABASE_URL"] = db_url
    os.environ.pop("REDIS_URL", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.dev"
    os.environ["DEBUG"] = "0"
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    from bench.load_common import percentile

    call_command("migrate", verbosity=0)
    start = time.perf_counter()
    people = seed(options.assessors, options.answers, options.nuggets, random.Random(options.seed))
    print(
        f"seeded {len(people)} assessors x {options.answers} answers x {options.nuggets} "
        f"nuggets in {time.perf_counter() - start:.1f} s"
    )
    connections.close_all()
    server = start_qrelsmith(options.port, db_url, options.workers, options.threads)
    warm_up(options.port, people[0], options.workers * options.threads * 3)
    results, wall, load_before, load_after = assessors_at_once(
        client_process, people, options, server
    )
    total, sent = Outcome(), {}
    for outcome, labels in results:
        total.page_ms += outcome.page_ms
        total.submit_ms += outcome.submit_ms
        total.errors += outcome.errors
        total.requests += outcome.requests
        sent.update(labels)
    stored, lost, doubled, wrong = verify(sent)
    connections.close_all()
    if not options.keep_db:
        recreate_database(admin_url, drop_only=True, name=BENCH_DB)

    print(
        f"gunicorn gthread {options.workers} workers x {options.threads} threads; "
        f"{len(people)} assessors labelling at once, think time {options.think_ms:.0f} ms "
        f"(exponential mean) before each label, {options.retry_share:.0%} of POSTs sent twice"
    )
    print(
        "machine load average (1, 5, 15 min) "
        f"{load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f} before, "
        f"{load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} after, "
        f"on {os.cpu_count()} CPUs (other work on the machine slows every figure)"
    )
    print(f"requests: {total.requests} in {wall:.1f} s = {total.requests / wall:.1f} req/s")
    for name, values in (("labelling page", total.page_ms), ("label POST", total.submit_ms)):
        print(
            f"{name:>14}: n={len(values)}  p50 {percentile(values, 50):.1f} ms  "
            f"p95 {percentile(values, 95):.1f} ms  p99 {percentile(values, 99):.1f} ms  "
            f"max {max(values, default=float('nan')):.1f} ms"
        )
    print(
        f"labels: {len(sent)} sent, {stored} stored, {lost} lost, {doubled} doubled, "
        f"{wrong} with a wrong support; errors: {len(total.errors)}"
    )
    for error in total.errors[:10]:
        print(f"  error: {error}")
    p95_ok = percentile(total.page_ms, 95) < 40 and percentile(total.submit_ms, 95) < 40
    clean = not (lost or doubled or wrong or total.errors) and stored == len(sent)
    print(
        "targets (p95 < 40 ms both, zero lost/doubled/errors): "
        + ("met" if p95_ok and clean else "NOT met")
    )
    if not clean:
        sys.exit(1)


if __name__ == "__main__":
    main()
