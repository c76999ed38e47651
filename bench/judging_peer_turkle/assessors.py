"""The simulated Turkle assessors (client processes, one thread each) and the check of what
Turkle stored."""

from __future__ import annotations

import http.client
import json
import random
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

ASSIGNMENT = re.compile(rb"/task/(\d+)/assignment/(\d+)/")


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
