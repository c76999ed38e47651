"""Load test: many assessors judging at once through the real HTTP endpoints.

The app runs under gunicorn (gthread workers, keep-alive, warmed up with a few requests that are
not measured) on a throwaway PostgreSQL database. Five processes of two threads each: more
threads per process queue on the GIL and double the tail latency on two cores.
Each simulated assessor holds one official assignment (most on answer topics, one hit per item;
some on formula topics, five hits per item) and judges ``--hits`` hits in the pool's order:
GET the judging page, think, POST the item's judgments as JSON (what static/js/judge.js does),
think. A share of submits is sent twice with the same client token (a retried request), and
every request that fails is retried with the same token, as the page does.

Afterwards the database must hold exactly one judgment per submitted hit, with the grade sent,
and one revision each (retries add none). Prints requests per second, p50/p95/p99 of the
judging page and of submit, errors, lost and doubled judgments.
Targets on the 2-core machine: p95 < 40 ms for both, zero lost, zero errors.

Then Turkle, the tool ARQMath judged with, is measured the same way on the same items
(bench/judging_peer_turkle/: its own venv under var/bench/, database ``bench_turkle``, port + 1)
and printed beside qrelsmith with the p95 ratios. A peer that cannot run (no network for the
install, say) prints "peer unavailable: why" and never fails the benchmark; ``--no-peer`` skips it.

    .venv/bin/python bench/judging_load.py [--small] [--assessors 50] [--hits 200]
        [--think-ms 1000] [--workers 5] [--threads 2] [--client-procs 2] [--keep-db] [--no-peer]
        [--no-breakdown]

Think time: real ARQMath assessors took 26-83 s per judgment; the default one second (mean,
exponential) before and after each submit makes an item take ~2 s, over ten times faster than
the fastest of them, so 50 simulated assessors stand for hundreds of real ones.
Uses DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432/qrelsmith) and creates,
then drops, the database ``bench_judging_load``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.judging_seed import (  # noqa: E402 - after the path is set
    FORMULA_HITS,
    Assessor,
    bench_database_url,
    recreate_database,
    seed,
)
from bench.load_common import assessors_at_once, load_options  # noqa: E402


# ---- The simulated assessors (run in client processes, one thread each) ------------------
@dataclass
class Outcome:
    page_ms: list[float] = field(default_factory=list)
    submit_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    sent: dict[tuple[int, int], int] = field(default_factory=dict)  # (assignment, hit) → grade
    requests: int = 0


class Session:
    """One keep-alive connection of one assessor, reconnecting after a failure."""

    def __init__(self, port: int, assessor: Assessor) -> None:
        self.port = port
        self.cookie = f"sessionid={assessor.session_key}; csrftoken={assessor.csrf}"
        self.csrf = assessor.csrf
        self.connection: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        if self.connection is None:
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Cookie": self.cookie, "Host": "127.0.0.1"}
        if body is not None:
            headers.update({"Content-Type": "application/json", "X-CSRFToken": self.csrf})
            headers["Referer"] = f"http://127.0.0.1:{self.port}/"
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            return response.status, response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = None
            raise


def timed_call(
    session: Session, method: str, path: str, body: bytes | None, outcome: Outcome
) -> tuple[float, int, bytes]:
    """A request retried (same body, so same client token) until it answers 200."""
    for attempt in range(5):
        start = time.perf_counter()
        outcome.requests += 1
        try:
            status, data = session.request(method, path, body)
        except (OSError, http.client.HTTPException) as error:
            outcome.errors.append(f"{method} {path}: {error!r}")
            time.sleep(0.2 * (attempt + 1))
            continue
        elapsed = (time.perf_counter() - start) * 1000
        if status == 200:
            return elapsed, status, data
        outcome.errors.append(f"{method} {path}: HTTP {status}")
        time.sleep(0.2 * (attempt + 1))
    return elapsed, status, b""


def judge(port: int, assessor: Assessor, think_ms: float, retry_share: float, seed: int) -> Outcome:
    rng = random.Random(seed)
    outcome = Outcome()
    session = Session(port, assessor)

    def think() -> None:
        if think_ms:
            time.sleep(rng.expovariate(1000 / think_ms))

    a = assessor.assignment_id
    for item_id, hit_ids in assessor.items:
        elapsed, status, html = timed_call(session, "GET", f"/assess/{a}/{item_id}/", None, outcome)
        if status == 200:
            outcome.page_ms.append(elapsed)
            if b"math-container" not in html:
                outcome.errors.append(f"page {item_id} rendered without its post")
        think()
        verdicts = []
        for hit_id in hit_ids:
            grade = rng.randrange(4)
            verdicts.append({"hit": hit_id, "grade": grade, "comment": ""})
            outcome.sent[(a, hit_id)] = grade
        body = json.dumps(
            {
                "judgments": verdicts,
                "active_seconds": round(rng.uniform(5, 60), 1),
                "client_token": uuid.uuid4().hex,
            }
        ).encode()
        path = f"/api/assignments/{a}/items/{item_id}/judgments/"
        for _ in range(2 if rng.random() < retry_share else 1):  # a retried request
            elapsed, status, _data = timed_call(session, "POST", path, body, outcome)
            if status == 200:
                outcome.submit_ms.append(elapsed)
        think()
    return outcome


def client_process(args: tuple[int, list[Assessor], float, float, int]) -> Outcome:
    port, people, think_ms, retry_share, seed = args
    results: list[Outcome] = []
    lock = threading.Lock()

    def run(index: int, person: Assessor) -> None:
        outcome = judge(port, person, think_ms, retry_share, seed * 1000 + index)
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=run, args=(i, p)) for i, p in enumerate(people)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    total = Outcome()
    for outcome in results:
        total.page_ms += outcome.page_ms
        total.submit_ms += outcome.submit_ms
        total.errors += outcome.errors
        total.sent.update(outcome.sent)
        total.requests += outcome.requests
    return total


# ---- gunicorn ------------------------------------------------------------------------------
def start_qrelsmith(port: int, db_url: str, workers: int, threads: int) -> subprocess.Popen:
    from bench.load_common import start_gunicorn

    env = {
        **os.environ,
        "DATABASE_URL": db_url,
        "DJANGO_SETTINGS_MODULE": "config.settings.dev",
        "DEBUG": "0",
        "CONN_MAX_AGE": "600",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("REDIS_URL", None)  # no Celery work here; keeps the cache in-process
    try:
        return start_gunicorn(
            Path(sys.executable).parent / "gunicorn",
            "config.wsgi:application",
            port=port,
            workers=workers,
            threads=threads,
            cwd=REPO,
            env=env,
            ready_path="/healthz",
        )
    except RuntimeError as error:
        sys.exit(str(error))


def warm_up(port: int, assessor: Assessor, requests: int) -> None:
    """Fresh connections spread over the workers so each has compiled its templates and
    URL patterns before anything is measured (a served deployment is warm)."""
    item_id = assessor.items[0][0]
    for _ in range(requests):
        session = Session(port, assessor)
        session.request("GET", f"/assess/{assessor.assignment_id}/{item_id}/")
        session.request(
            "GET", f"/api/assignments/{assessor.assignment_id}/items/{item_id}/judgments/"
        )
        if session.connection is not None:
            session.connection.close()


def verify(sent: dict[tuple[int, int], int]) -> tuple[int, int, int, int]:
    """(stored, lost, doubled revisions, wrong grade) against what was sent."""
    from assessment.models import Judgment, JudgmentRevision

    stored = {
        (a, h): (grade, revision)
        for a, h, grade, revision in Judgment.objects.values_list(
            "assignment_id", "hit_id", "grade", "revision"
        )
    }
    lost = sum(1 for key in sent if key not in stored)
    wrong = sum(1 for key, grade in sent.items() if key in stored and stored[key][0] != grade)
    extra_revisions = JudgmentRevision.objects.count() - len(stored)
    doubled = extra_revisions + sum(1 for _, revision in stored.values() if revision != 1)
    doubled += sum(1 for key in stored if key not in sent)
    return len(stored), lost, doubled, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--small", action="store_true", help="5 assessors x 20 hits")
    parser.add_argument("--assessors", type=int, default=50)
    parser.add_argument("--hits", type=int, default=200)
    parser.add_argument("--formula-share", type=float, default=0.2)
    load_options(parser, think_ms=1000.0, port=8197)
    parser.add_argument("--no-peer", action="store_true", help="do not measure Turkle")
    parser.add_argument(
        "--no-breakdown", action="store_true", help="skip the per-phase breakdown of a request"
    )
    options = parser.parse_args()
    if options.small:
        options.assessors, options.hits = 5, 20

    admin_url, db_url = bench_database_url()
    recreate_database(admin_url)
    os.environ["DATABASE_URL"] = db_url
    os.environ.pop("REDIS_URL", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.dev"
    os.environ["DEBUG"] = "0"
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connections

    from bench.judging_peer_turkle import peer_spec
    from bench.judging_peer_turkle import report as report_peer
    from bench.load_common import percentile

    call_command("migrate", verbosity=0)
    rng = random.Random(options.seed)
    start = time.perf_counter()
    people = seed(options.assessors, options.hits, options.formula_share, rng)
    print(
        f"seeded {len(people)} assessors x {options.hits} hits "
        f"({round(options.assessors * options.formula_share)} on formula topics, "
        f"{FORMULA_HITS} hits per formula item) in {time.perf_counter() - start:.1f} s"
    )
    spec = None if options.no_peer else peer_spec(people)
    connections.close_all()

    server = start_qrelsmith(options.port, db_url, options.workers, options.threads)
    warm_up(options.port, people[0], options.workers * options.threads * 3)
    outcomes, wall, loads_before, loads_after = assessors_at_once(
        client_process, people, options, server
    )
    load_before, load_after = loads_before[0], loads_after[0]

    total = Outcome()
    for outcome in outcomes:
        total.page_ms += outcome.page_ms
        total.submit_ms += outcome.submit_ms
        total.errors += outcome.errors
        total.sent.update(outcome.sent)
        total.requests += outcome.requests
    stored, lost, doubled, wrong = verify(total.sent)
    if not options.no_breakdown:
        from bench.judging_breakdown import judging_breakdown

        judging_breakdown()
    connections.close_all()
    if not options.keep_db:
        recreate_database(admin_url, drop_only=True)

    print(
        f"gunicorn gthread {options.workers} workers x {options.threads} threads; "
        f"{len(people)} assessors, think time {options.think_ms:.0f} ms (exponential mean), "
        f"{options.retry_share:.0%} of submits sent twice"
    )
    print(
        f"machine load average (1 min) {load_before:.1f} before, {load_after:.1f} after, "
        f"on {os.cpu_count()} CPUs (other work on the machine slows every figure)"
    )
    print(f"requests: {total.requests} in {wall:.1f} s = {total.requests / wall:.1f} req/s")
    for name, values in (("judging page", total.page_ms), ("submit", total.submit_ms)):
        print(
            f"{name:>12}: n={len(values)}  p50 {percentile(values, 50):.1f} ms  "
            f"p95 {percentile(values, 95):.1f} ms  p99 {percentile(values, 99):.1f} ms  "
            f"max {max(values, default=float('nan')):.1f} ms"
        )
    print(
        f"judgments: {len(total.sent)} hits submitted, {stored} stored, {lost} lost, "
        f"{doubled} doubled, {wrong} with a wrong grade; errors: {len(total.errors)}"
    )
    for error in total.errors[:10]:
        print(f"  error: {error}")
    p95_ok = percentile(total.page_ms, 95) < 40 and percentile(total.submit_ms, 95) < 40
    clean = not (lost or doubled or wrong or total.errors) and stored == len(total.sent)
    print(
        "targets (p95 < 40 ms both, zero lost/doubled/errors): "
        + ("met" if p95_ok and clean else "NOT met")
    )
    report_peer((total.page_ms, total.submit_ms, total.requests, wall), spec, admin_url, options)
    if not clean:
        sys.exit(1)


if __name__ == "__main__":
    main()
