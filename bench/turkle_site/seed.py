"""Seed Turkle with the items qrelsmith's side judges: ``python -m turkle_site.seed SPEC OUT``.

SPEC (JSON, written by bench/judging_peer_turkle.py) lists each assessor's topic and items
(the post bodies of each item's hits, in display order). Made here, the way an organizer does
in Turkle: one project per task kind (its HTML template is a two-pane judging page), one batch
per topic, its tasks loaded from CSV through ``Batch.create_tasks_from_csv`` (what the admin's
CSV upload calls). OUT receives each assessor's logged-in session key and batch id.
"""

import csv
import io
import json
import sys
from pathlib import Path

import django

django.setup()

from django.contrib.auth import (  # noqa: E402
    BACKEND_SESSION_KEY,
    HASH_SESSION_KEY,
    SESSION_KEY,
)
from django.contrib.auth.models import User  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from turkle.models import Batch, Project  # noqa: E402

GRADES = (("3", "High"), ("2", "Medium"), ("1", "Low"), ("0", "Not relevant"))


def html_template(posts: int) -> str:
    """Topic on the left; on the right each post with a grade radio group and a comment."""
    articles = []
    for i in range(posts):
        radios = "\n".join(
            f'<label><input type="radio" name="grade_{i}" value="{value}" required> {name}</label>'
            for value, name in GRADES
        )
        articles.append(
            f'<article class="qs-post"><div>${{post_{i}}}</div>'
            f"<fieldset><legend>Relevance</legend>\n{radios}\n</fieldset>"
            f'<label>Comment <textarea name="comment_{i}"></textarea></label></article>'
        )
    return (
        "<style>.qs-judge{display:flex;gap:1em}.qs-judge>section{flex:1;overflow:auto}</style>"
        '<div class="qs-judge"><section class="qs-topic"><h2>${topic_number}</h2>'
        "<h3>${topic_title}</h3><div>${topic_question}</div><p>${topic_formula}</p></section>"
        f'<section class="qs-posts">{"".join(articles)}</section></div>'
    )


def project_for(posts: int, projects: dict[int, Project]) -> Project:
    if posts not in projects:
        project = Project(
            name=f"Judging, {posts} post(s) per task", html_template=html_template(posts)
        )
        project.clean()  # extracts the template's field names, as the admin form does
        project.save()
        projects[posts] = project
    return projects[posts]


def tasks_csv(topic: dict[str, str], items: list[list[str]]) -> io.StringIO:
    posts = len(items[0])
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        ["topic_number", "topic_title", "topic_question", "topic_formula"]
        + [f"post_{i}" for i in range(posts)]
    )
    for bodies in items:
        writer.writerow(
            [topic["number"], topic["title"], topic["question"], topic["latex"], *bodies]
        )
    out.seek(0)
    return out


def login(user: User) -> str:
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key or ""


def main() -> None:
    spec = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    projects: dict[int, Project] = {}
    out = []
    for person in spec["assessors"]:
        user = User(username=person["username"])
        user.set_unusable_password()
        user.save()
        project = project_for(len(person["items"][0]), projects)
        batch = Batch(
            project=project, name=f"Topic {person['topic']['number']}", filename="topic.csv"
        )
        batch.save()
        batch.copy_project_permissions()
        batch.save()
        created = batch.create_tasks_from_csv(tasks_csv(person["topic"], person["items"]))
        out.append(
            {
                "username": user.username,
                "session_key": login(user),
                "batch_id": batch.pk,
                "tasks": created,
            }
        )
    Path(sys.argv[2]).write_text(json.dumps(out), encoding="utf-8")


if __name__ == "__main__":
    main()
