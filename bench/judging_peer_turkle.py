"""Turkle, the tool ARQMath judged with, as judging_load.py's peer (issue 14 §6).

Turkle (PyPI ``turkle``, pinned below) is installed into its own virtual environment,
``var/bench/turkle-venv`` (reused when it already holds that version), since it brings its
own Django. It runs against the same PostgreSQL server, in the database ``bench_turkle``,
behind gunicorn with the same workers, threads and flags (bench/load_common.py), seeded with
the very items qrelsmith's side judged (bench/turkle_site/seed.py): one project per task kind
whose HTML template is a two-pane judging page, one batch per topic.

Each simulated assessor does Turkle's cycle for each item: GET ``accept_next_task`` (302 to
the new assignment), GET the assignment page, GET its iframe (the task's HTML, holding the
posts), think, POST the grades and comments as the form does (302), think. "page" is the
sum of the three GETs (what a browser needs before the posts show), "submit" the POST.
Turkle has no client token, so no submit is sent twice; a failed request is not retried.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import random
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / "var" / "bench" / "turkle-venv"
TURKLE_VERSION = "3.1.0"
PEER_DB = "bench_turkle"
ASSIGNMENT = re.compile(rb"/task/(\d+)/assignment/(\d+)/")


class PeerUnavailable(Exception):
    """Turkle cannot be measured in this run; the message says why."""


@dataclass
class PeerRun:
    page_ms: list[float] = field(default_factory=list)
    submit_ms: list[float] = field(default_factory=list)
    accept_ms: list[float] = field(default_factory=list)
    frame_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    sent: dict[int, list[int]] = field(default_factory=dict)  # assignment id → grades
    requests: int = 0
    wall: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)
    stored: int = 0
    wrong: int = 0
    versions: str = ""

    def merge(self, other: PeerRun) -> None:
        for name in ("page_ms", "submit_ms", "accept_ms", "frame_ms", "errors"):
            getattr(self, name).extend(getattr(other, name))
        self.sent.update(other.sent)
        self.requests += other.requests


# ---- The same items as qrelsmith's side (runs in the bench process, Django set up) --------
def peer_spec(people: list[Any]) -> list[dict[str, Any]]:
    """Each assessor's topic and items (the post bodies of each item's hits, in order)."""
    from assessment.models import Assignment
    from collection.models import Post
    from pooling.models import Hit

    hit_ids = [h for person in people for _, hits in person.items for h in hits]
    post_of = {
        hit: post
        for hit, post in Hit.objects.filter(pk__in=hit_ids).values_list("pk", "post_id")
        if post is not None  # every seeded hit has its post
    }
    body_of = dict(Post.objects.filter(pk__in=set(post_of.values())).values_list("pk", "body"))
    bodies = {hit: body_of[post] for hit, post in post_of.items()}
    topics = {
        a.pk: a.topic
        for a in Assignment.objects.select_related("topic").filter(
            pk__in=[person.assignment_id for person in people]
        )
    }
    spec = []
    for person in people:
        topic = topics[person.assignment_id]
        spec.append(
            {
                "username": person.username,
                "topic": {
                    "number": topic.number,
                    "title": topic.title,
                    "question": topic.question,
                    "latex": topic.latex,
                },
                "items": [[bodies[h] for h in hits] for _, hits in person.items],
            }
        )
    return spec


# ---- Installing and seeding Turkle ---------------------------------------------------------
def ensure_venv() -> Path:
    """The venv's python, with turkle, gunicorn and psycopg2 at the pinned versions."""
    python = VENV / "bin" / "python"
    probe = "import turkle, gunicorn, psycopg2; print(turkle.__version__)"
    if python.exists():
        found = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=False)
        if found.returncode == 0 and found.stdout.strip() == TURKLE_VERSION:
            return python
    try:
        subprocess.run([sys.executable, "-m", "venv", "--clear", VENV], check=True, timeout=120)
        pins = [f"turkle=={TURKLE_VERSION}"] + [
            f"{name}=={metadata.version(name)}" for name in ("gunicorn", "psycopg2-binary")
        ]
        install = subprocess.run(
            [python, "-m", "pip", "install", "--quiet", "--retries", "1", "--timeout", "15", *pins],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
    except (OSError, subprocess.SubprocessError, metadata.PackageNotFoundError) as error:
        raise PeerUnavailable(f"could not create {VENV}: {error}") from error
    if install.returncode:
        last = (install.stderr.strip().splitlines() or ["no output"])[-1]
        raise PeerUnavailable(f"pip install turkle=={TURKLE_VERSION} failed: {last}")
    return python


def peer_env(db_url: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "PYTHONPATH", "REDIS_URL")
    }
    return {
        **env,
        "PYTHONPATH": str(REPO / "bench"),
        "DJANGO_SETTINGS_MODULE": "turkle_site.settings",
        "TURKLE_BENCH_DATABASE_URL": db_url,
        "TURKLE_BENCH_SECRET_KEY": secrets.token_urlsafe(40),
    }


def recreate_peer_database(admin_url: str, drop_only: bool = False) -> None:
    import psycopg2

    connection = psycopg2.connect(admin_url)
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{PEER_DB}" WITH (FORCE)')
        if not drop_only:
            cursor.execute(f'CREATE DATABASE "{PEER_DB}"')
    connection.close()


def seed_turkle(python: Path, env: dict[str, str], spec: list[dict[str, Any]]) -> list[dict]:
    def run(*args: str | Path) -> None:
        done = subprocess.run(
            [python, *args], env=env, cwd=REPO, capture_output=True, text=True, check=False
        )
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise PeerUnavailable(f"turkle {' '.join(map(str, args[:3]))} failed: {last}")

    run("-m", "django", "migrate", "--verbosity", "0")
    with tempfile.TemporaryDirectory() as folder:
        spec_file, out_file = Path(folder) / "spec.json", Path(folder) / "out.json"
        spec_file.write_text(json.dumps({"assessors": spec}), encoding="utf-8")
        run("-m", "turkle_site.seed", spec_file, out_file)
        return json.loads(out_file.read_text(encoding="utf-8"))


# ---- The simulated assessors (client processes, one thread each) --------------------------
class Client:
    """One keep-alive connection of one logged-in Turkle user."""

    def __init__(self, port: int, session_key: str) -> None:
        self.port = port
        self.csrf = secrets.token_hex(16)  # a 32-character CSRF secret, as Django makes
        self.cookie = f"sessionid={session_key}; csrftoken={self.csrf}"
        self.connection: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        """(status, body, or the Location header of a redirect)."""
        if self.connection is None:
            self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Cookie": self.cookie, "Host": "127.0.0.1"}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = None
            raise
        location = response.getheader("Location")
        return response.status, location.encode() if location else data


def timed(
    client: Client, run: PeerRun, method: str, path: str, body: bytes | None = None
) -> tuple[float | None, tuple[int, bytes]]:
    run.requests += 1
    start = time.perf_counter()
    try:
        status, data = client.request(method, path, body)
    except (OSError, http.client.HTTPException) as error:
        run.errors.append(f"{method} {path}: {error!r}")
        return None, (0, b"")
    return (time.perf_counter() - start) * 1000, (status, data)


def judge_one(client: Client, run: PeerRun, batch_id: int) -> tuple[str, int] | None:
    """Accept the batch's next task and open it: (assignment path, id), or None on failure."""
    ms, answer = timed(client, run, "GET", f"/batch/{batch_id}/accept_next_task/")
    found = ASSIGNMENT.search(answer[1]) if ms is not None and answer[0] == 302 else None
    if ms is None or found is None:
        if ms is not None:
            run.errors.append(f"accept in batch {batch_id}: HTTP {answer[0]}")
        return None
    task_id, assignment_id = int(found.group(1)), int(found.group(2))
    page = f"/task/{task_id}/assignment/{assignment_id}/"
    shell_ms, shell = timed(client, run, "GET", page)
    frame_ms, frame = timed(
        client, run, "GET", f"/task/{task_id}/assignment/iframe/{assignment_id}/"
    )
    if shell_ms is None or frame_ms is None or shell[0] != 200 or frame[0] != 200:
        run.errors.append(f"assignment {assignment_id}: page did not answer 200")
        return None
    if b"math-container" not in frame[1]:
        run.errors.append(f"assignment {assignment_id}: rendered without its post")
    run.accept_ms.append(ms)
    run.frame_ms.append(frame_ms)
    run.page_ms.append(ms + shell_ms + frame_ms)
    return page, assignment_id


def judge(port: int, person: dict, think_ms: float, seed: int) -> PeerRun:
    rng = random.Random(seed)
    run = PeerRun()
    client = Client(port, person["session_key"])

    def think() -> None:
        if think_ms:
            time.sleep(rng.expovariate(1000 / think_ms))

    for _ in range(person["tasks"]):
        opened = judge_one(client, run, person["batch_id"])
        think()
        if not opened:
            continue
        page, assignment_id = opened
        grades = [rng.randrange(4) for _ in range(person["posts"])]
        form = {"csrfmiddlewaretoken": client.csrf}
        for i, grade in enumerate(grades):
            form.update({f"grade_{i}": str(grade), f"comment_{i}": ""})
        ms, answer = timed(client, run, "POST", page, urlencode(form).encode())
        if ms is not None and answer[0] == 302:
            run.submit_ms.append(ms)
            run.sent[assignment_id] = grades
        elif ms is not None:
            run.errors.append(f"POST {page}: HTTP {answer[0]}")
        think()
    return run


def client_process(args: tuple[int, list[dict], float, int]) -> PeerRun:
    port, people, think_ms, seed = args
    results: list[PeerRun] = []
    lock = threading.Lock()

    def work(index: int, person: dict) -> None:
        outcome = judge(port, person, think_ms, seed * 1000 + index)
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=work, args=(i, p)) for i, p in enumerate(people)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    total = PeerRun()
    for outcome in results:
        total.merge(outcome)
    return total


# ---- One measured run ----------------------------------------------------------------------
def verify(db_url: str, run: PeerRun) -> None:
    """How many submitted assignments Turkle stored as completed, with the grades sent."""
    import psycopg2

    connection = psycopg2.connect(db_url)
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, answers FROM turkle_taskassignment WHERE completed")
        stored = {row[0]: row[1] for row in cursor.fetchall()}
    connection.close()
    for assignment_id, grades in run.sent.items():
        answers = stored.get(assignment_id)
        if answers is None:
            continue
        answers = json.loads(answers) if isinstance(answers, str) else answers
        run.stored += 1
        if [answers.get(f"grade_{i}") for i in range(len(grades))] != [str(g) for g in grades]:
            run.wrong += 1


def warm_up(port: int, person: dict, rounds: int) -> None:
    """The warm-up user's own batch, on fresh connections spread over the workers."""
    for _ in range(rounds):
        client = Client(port, person["session_key"])
        opened = judge_one(client, PeerRun(), person["batch_id"])
        if opened:
            form = {"csrfmiddlewaretoken": client.csrf, "grade_0": "1"}
            client.request("POST", opened[0], urlencode(form).encode())
        if client.connection is not None:
            client.connection.close()


def measure_turkle(spec: list[dict[str, Any]], admin_url: str, options: Any) -> PeerRun:
    """Install, seed, serve and load Turkle like qrelsmith's side; raises PeerUnavailable."""
    from bench.load_common import start_gunicorn

    python = ensure_venv()
    db_url = urlunsplit(urlsplit(admin_url)._replace(path=f"/{PEER_DB}"))
    rounds = options.workers * options.threads * 3
    warm = {**spec[0], "username": "warmup", "items": (spec[0]["items"] * rounds)[:rounds]}
    env = peer_env(db_url)
    recreate_peer_database(admin_url)
    try:
        people = seed_turkle(python, env, [*spec, warm])
        for person, entry in zip(people, [*spec, warm], strict=True):
            person["posts"] = len(entry["items"][0])
        versions = subprocess.run(
            [python, "-c", "import django, turkle; print(turkle.__version__, django.__version__)"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.split()
        try:
            server = start_gunicorn(
                python.parent / "gunicorn",
                "turkle_site.wsgi:application",
                port=options.port + 1,
                workers=options.workers,
                threads=options.threads,
                cwd=REPO,
                env=env,
                ready_path="/login/",
            )
        except RuntimeError as error:
            raise PeerUnavailable(str(error)) from error
        try:
            warm_up(options.port + 1, people.pop(), rounds)
            shares = [people[i :: options.client_procs] for i in range(options.client_procs)]
            jobs = [
                (options.port + 1, share, options.think_ms, options.seed + i)
                for i, share in enumerate(shares)
                if share
            ]
            result = PeerRun()
            start = time.perf_counter()
            load_before = os.getloadavg()[0]
            with multiprocessing.get_context("fork").Pool(len(jobs)) as pool:
                for outcome in pool.map(client_process, jobs):
                    result.merge(outcome)
            result.wall = time.perf_counter() - start
            result.load = (load_before, os.getloadavg()[0])
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        verify(db_url, result)
        result.versions = f"Turkle {versions[0]} on Django {versions[1]}" if versions else ""
        return result
    finally:
        if not options.keep_db:
            recreate_peer_database(admin_url, drop_only=True)


# ---- Side by side --------------------------------------------------------------------------
def report(
    ours: tuple[list[float], list[float], float],
    spec: list[dict[str, Any]] | None,
    admin_url: str,
    options: Any,
) -> None:
    """Measure Turkle and print it beside qrelsmith's (page, submit, req/s); never raises."""
    from bench.load_common import percentile

    if spec is None:
        print("peer unavailable: skipped (--no-peer)")
        return
    try:
        peer = measure_turkle(spec, admin_url, options)
    except PeerUnavailable as error:
        print(f"peer unavailable: {error}")
        return
    except Exception as failure:  # the peer must never fail qrelsmith's benchmark
        print(f"peer unavailable: Turkle's run failed: {failure!r}")
        return
    print(
        f"peer: {peer.versions}, gunicorn gthread {options.workers} workers x {options.threads} "
        f"threads, PostgreSQL; load average (1 min) {peer.load[0]:.1f} before, "
        f"{peer.load[1]:.1f} after"
    )
    print(
        f"peer: {peer.requests} requests in {peer.wall:.1f} s = {peer.requests / peer.wall:.1f} "
        f"req/s; {len(peer.sent)} tasks submitted, {peer.stored} stored, {peer.wrong} with a "
        f"wrong grade; errors: {len(peer.errors)}"
    )
    for message in peer.errors[:5]:
        print(f"  peer error: {message}")
    print(
        f"peer page breakdown p95: accept (302) {percentile(peer.accept_ms, 95):.1f} ms, "
        f"task HTML (iframe) {percentile(peer.frame_ms, 95):.1f} ms"
    )
    print(f"{'':>22}{'qrelsmith':>28}   {'Turkle':>28}   ratio p95 (qrelsmith/Turkle)")
    for name, mine, theirs in (
        ("page (Turkle: 3 GETs)", ours[0], peer.page_ms),
        ("submit", ours[1], peer.submit_ms),
    ):
        cells = [
            " / ".join(f"{percentile(values, q):6.1f}" for q in (50, 95, 99))
            for values in (mine, theirs)
        ]
        ratio = percentile(mine, 95) / percentile(theirs, 95)
        print(f"{name:>22}  p50/p95/p99 {cells[0]}   {cells[1]} ms   {ratio:.2f}")
    print(
        f"{'throughput':>22}  {ours[2]:>20.1f} req/s   {peer.requests / peer.wall:>20.1f} req/s "
        f"(Turkle makes 4 requests per item, qrelsmith 2)"
    )
    if not (ours[0] and ours[1] and peer.page_ms and peer.submit_ms):
        print("goal (qrelsmith p95 no slower than Turkle's): not measured (a side has no figures)")
        return
    slower = [
        name
        for name, mine, theirs in (
            ("page", ours[0], peer.page_ms),
            ("submit", ours[1], peer.submit_ms),
        )
        if percentile(mine, 95) > percentile(theirs, 95)
    ]
    print(
        "goal (qrelsmith p95 no slower than Turkle's): "
        + (f"NOT met for {', '.join(slower)}" if slower else "met")
    )
