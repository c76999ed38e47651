"""Installing and seeding Turkle for the peer run, and the items it is seeded with."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.judging_seed import recreate_database

REPO = Path(__file__).resolve().parents[2]
VENV = REPO / "var" / "bench" / "turkle-venv"
TURKLE_VERSION = "3.1.0"
PEER_DB = "bench_turkle"


class PeerUnavailable(Exception):
    """Turkle cannot be measured in this run; the message says why."""


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
    recreate_database(admin_url, drop_only, name=PEER_DB)


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
