"""Every URL of the project, every parameter it reads, a table of bad values: never a 5xx.

The URL patterns are walked from the root resolver, so a new URL is swept as soon as it exists;
a URL name missing from ``URLS`` fails the test, so whoever adds a URL also writes down the
parameters its view reads. Each URL is requested as an anonymous visitor, a participant, an
assessor and an organizer over a small judged campaign, with

- each path parameter replaced by each bad value (the others valid),
- each query parameter and each form field the view reads set to each bad value (GET, POST),
  alone and repeated beside a valid value (``?task=1&task=²``),
- the generic set (``task``, ``qrels``, ``limit``, … sent to every URL at once),

and every answer must be below 500 (issue 11 §6). The admin's URLs are not swept: they are
Django's own views (its ModelAdmin validates object ids and its changelist parameters itself),
no code of this project reads their parameters, and they would triple the test's time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import DatabaseError, transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from assessment.models import Assignment
from assessment.services.machine_judges import machine_judge_import
from evaluation.models import EvaluationJob
from evaluation.services import evaluation_job_run, qrels_export, results_publish
from tests.factories import (
    AssignmentFactory,
    PostFactory,
    ThreadFactory,
    TrainingRoundFactory,
    UserFactory,
)
from tests.integration.evaluation_data import judged_answer_task

pytestmark = pytest.mark.django_db

# Unicode digits (str.isdigit() is true, int() refuses "²" and reads "٣"), beyond bigint,
# negative, zero, empty, text, exponent and hex notations, padding, separators, NUL, a long run.
BAD_VALUES = [
    "²",
    "٣",
    "99999999999999999999999",
    str(2**63),
    "9223372036854775807",
    "-1",
    "0",
    "",
    "abc",
    "1e3",
    "0x10",
    " 1",
    "1_0",
    "nan",
    "1.5",
    "\x00",
    "9" * 5000,
]
# The generic set is sent to every URL with each of these (a shorter list keeps the test fast).
GENERIC_VALUES = ["²", "٣", "99999999999999999999999", "-1", "", "abc", "\x00", "9" * 5000]
SKIPPED_NAMESPACES = {"admin"}
REFUSED = {302, 401, 403}  # the login page, or not for this role
# Sent to every URL at once, as query parameters (GET) and as form fields (POST).
GENERIC = [
    "task",
    "qrels",
    "limit",
    "offset",
    "page",
    "topic",
    "assessor",
    "assessors",
    "assignment",
    "run",
    "format",
    "kind",
    "measure",
    "show",
    "difference",
    "state",
    "ci",
    "formula",
    "hit",
    "grade",
    "action",
    "choice-{hit}",
    "comment-{hit}",
    "active_seconds",
    "opened_at",
    "next",
    "lang",
]


@dataclass(frozen=True)
class Body:
    """A request body: valid ``base`` values, and the ``fields`` to replace by bad values."""

    base: dict[str, Any]
    fields: tuple[str, ...]
    as_json: bool = False


@dataclass(frozen=True)
class Entry:
    """What a URL's view reads: path parameters (→ a campaign attribute or a literal),
    query parameters and request bodies."""

    path: dict[str, str] = field(default_factory=dict)
    query: tuple[str, ...] = ()
    bodies: tuple[Body, ...] = ()


TASK = {"task_id": "task"}
ASSIGNMENT = {"assignment_id": "assignment"}
PAGE = ("limit", "offset")
URLS: dict[str, Entry] = {
    # config
    "home": Entry(),
    "healthz": Entry(),
    "favicon": Entry(),
    "login": Entry(
        query=("next",),
        bodies=(Body({"username": "x", "password": "y"}, ("username", "password")),),
    ),
    "logout": Entry(bodies=(Body({}, ("next",)),)),
    "api-schema": Entry(query=("format", "lang")),
    "api-docs": Entry(),
    # collection
    "collection:thread": Entry(path={"thread_id": "thread"}, query=("formula",)),
    # pooling
    "pooling:runs": Entry(
        bodies=(
            Body(
                {"task": "{task}", "team": "{team}", "tag": "t", "role": "primary"},
                ("task", "team", "tag", "role", "is_manual", "declared_data", "description"),
            ),
        )
    ),
    "pooling:run-detail": Entry(path={"run_id": "run"}),
    "pooling:pools": Entry(),
    "pooling:pool": Entry(path=TASK),
    "pooling:pool-build": Entry(path=TASK),
    "pooling:pool-export": Entry(path={"task_id": "task", "kind": "=hits"}),
    # assessment: assessor pages
    "assessment:home": Entry(),
    "assessment:continue": Entry(path=ASSIGNMENT),
    "assessment:items": Entry(path=ASSIGNMENT, query=("show",)),
    "assessment:judge": Entry(
        path={"assignment_id": "assignment", "item_id": "item"},
        bodies=(
            Body(
                {"choice-{hit}": "2", "comment-{hit}": "", "opened_at": "1"},
                ("choice-{hit}", "comment-{hit}", "active_seconds", "opened_at", "client_token"),
            ),
        ),
    ),
    "assessment:training_round": Entry(path={"round_id": "round"}),
    # assessment: organizer pages
    "assessment:organize": Entry(),
    "assessment:organize_task": Entry(path=TASK),
    "assessment:organize_assignments": Entry(
        path=TASK,
        bodies=(
            Body({"action": "assign", "topics": "{topic}"}, ("action", "topics", "assessor")),
            Body({"action": "balance"}, ("assessors",)),
            Body({"action": "move", "assessor": "{candidate}"}, ("assignment", "assessor")),
            Body({"action": "revoke"}, ("assignment",)),
            Body(
                {"action": "dual", "assessors": "{candidate}", "sample_size": "1"},
                ("assessors", "topics", "sample_size", "seed"),
            ),
        ),
    ),
    "assessment:organize_training": Entry(
        path=TASK,
        bodies=(
            Body(
                {
                    "name": "R",
                    "topics": "{topic}",
                    "assessors": "{candidate}",
                    "gold_source": "expert",
                    "expert": "{candidate}",
                    "items_per_topic": "1",
                },
                ("topics", "assessors", "expert", "items_per_topic", "seed", "gold_source"),
            ),
        ),
    ),
    "assessment:organize_agreement": Entry(path=TASK, query=("ci", "machines")),
    "assessment:organize_adjudication": Entry(
        path=TASK,
        query=("topic", "difference", "state", "hit"),
        bodies=(Body({"hit": "{disputed_hit}", "grade": "2"}, ("hit", "grade", "note", "seen")),),
    ),
    "assessment:organize_guidelines": Entry(
        path=TASK,
        query=("version",),
        bodies=(
            Body(
                {"action": "preview", "top": "3", "relevance_level": "2"},
                ("action", "top", "relevance_level", "instructions", "note"),
            ),
        ),
    ),
    "assessment:organize_machine_judges": Entry(
        path=TASK,
        bodies=(
            Body(
                {"name": "sweep-judge", "file_format": "auto"},
                ("name", "description", "file_format", "counts_in_qrels", "file"),
            ),
        ),
    ),
    "assessment:organize_machine_judge": Entry(
        path={"task_id": "task", "judge_id": "judge"},
        bodies=(Body({"action": "counts", "counts": "1"}, ("action", "counts")),),
    ),
    "assessment:organize_export_judgments": Entry(path=TASK),
    "assessment:organize_export_agreement": Entry(path=TASK),
    # evaluation pages
    "evaluation:index": Entry(),
    "evaluation:results": Entry(path=TASK, query=("qrels", "measure", "run")),
    "evaluation:results-download": Entry(path={"task_id": "task", "fmt": "=csv"}, query=("qrels",)),
    "evaluation:qrels": Entry(
        path=TASK,
        bodies=(
            Body({"action": "evaluate"}, ("qrels",)),
            Body({"action": "measures"}, ("official_measures",)),
            Body({"action": "retry"}, ("job",)),
            Body(
                {"action": "export", "level": "item"},
                ("min_relevant", "use_dual", "level", "allow_incomplete"),
            ),
            Body({}, ("action",)),
        ),
    ),
    "evaluation:publication": Entry(
        path=TASK,
        query=("qrels",),
        bodies=(Body({"action": "publish", "qrels": "{qrels}"}, ("action", "qrels")),),
    ),
    "evaluation:qrels-download": Entry(path={"version_id": "qrels"}),
    "evaluation:job-progress": Entry(path={"job_id": "job"}),
    # REST
    "pooling_api:run-list": Entry(
        query=PAGE,
        bodies=(
            Body(
                {"task": "{task}", "tag": "t", "role": "primary"},
                ("task", "team", "role", "depth_override", "is_manual", "declared_data"),
            ),
        ),
    ),
    "pooling_api:run-detail": Entry(path={"pk": "run"}),
    "pooling_api:pool-stats": Entry(path=TASK),
    "pooling_api:pool-build": Entry(path=TASK),
    "assessment_api:item-judgments": Entry(
        path={"assignment_id": "assignment", "item_id": "item"},
        bodies=(
            Body(
                {"judgments": [{"hit": "{hit}", "grade": 2}], "active_seconds": 1},
                ("judgments.0.hit", "judgments.0.grade", "judgments.0.flag", "active_seconds"),
                as_json=True,
            ),
        ),
    ),
    "assessment_api:organize-agreement": Entry(path=TASK),
    "assessment_api:organize-assignments": Entry(
        path=TASK,
        bodies=(
            Body(
                {"action": "dual", "assessors": ["{candidate_name}"]},
                ("action", "sample_size", "seed", "assessors.0", "topics.0"),
                as_json=True,
            ),
        ),
    ),
    "assessment_api:organize-machine-judges": Entry(
        path=TASK,
        bodies=(
            Body(
                {"name": "sweep-judge", "format": "auto"},
                ("name", "format", "description", "counts_in_qrels", "file"),
            ),
        ),
    ),
    "assessment_api:organize-machine-judge": Entry(
        path={"task_id": "task", "judge_id": "judge"},
        bodies=(Body({"counts_in_qrels": True}, ("counts_in_qrels",), as_json=True),),
    ),
    "assessment_api:organize-assignment-move": Entry(
        path={"assignment_id": "dual_assignment"},
        bodies=(Body({}, ("assessor",), as_json=True),),
    ),
    "assessment_api:organize-assignment-revoke": Entry(path={"assignment_id": "dual_assignment"}),
    "evaluation_api:qrels-list": Entry(
        query=("task", *PAGE),
        bodies=(
            Body({"task": "{task}"}, ("task", "min_relevant", "level", "use_dual"), as_json=True),
        ),
    ),
    "evaluation_api:qrels-detail": Entry(path={"pk": "qrels"}),
    "evaluation_api:qrels-download": Entry(path={"pk": "qrels"}),
    "evaluation_api:results-list": Entry(query=("task", "qrels", *PAGE)),
    "evaluation_api:qrels-readiness": Entry(path=TASK, query=("min_relevant", "use_dual")),
    "evaluation_api:official-measures": Entry(
        path=TASK,
        bodies=(Body({"official_measures": ["map"]}, ("official_measures",), as_json=True),),
    ),
    "evaluation_api:publication": Entry(
        path=TASK,
        bodies=(Body({"qrels": "{qrels}"}, ("qrels",), as_json=True),),
    ),
}


@dataclass(frozen=True)
class Route:
    name: str
    route: str  # "organize/task/<id:task_id>/"


def project_routes() -> Iterator[Route]:
    """Every URL pattern under the root resolver, with its namespaced name and full route."""

    def walk(patterns: list[Any], prefix: str, namespace: str) -> Iterator[Route]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if pattern.namespace in SKIPPED_NAMESPACES:
                    continue
                inner = pattern.namespace or namespace
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
            elif isinstance(pattern, URLPattern):
                name = f"{namespace}:{pattern.name}" if namespace else str(pattern.name)
                yield Route(name, prefix + str(pattern.pattern))

    yield from walk(get_resolver().url_patterns, "", "")


PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")


def path_parameters(route: str) -> list[str]:
    return [match["name"] for match in PARAMETER.finditer(route)]


def build_path(route: str, values: dict[str, str]) -> str:
    return "/" + PARAMETER.sub(lambda m: quote(values[m["name"]], safe=""), route)


@dataclass
class Campaign:
    """The ids a valid request uses, and the people who send them."""

    ids: dict[str, str]
    users: dict[str, User | None]

    def fill(self, value: Any) -> Any:
        """``"{task}"`` → the task's id, in strings, lists and dicts alike."""
        if isinstance(value, str):
            return value.format(**self.ids)
        if isinstance(value, list):
            return [self.fill(v) for v in value]
        if isinstance(value, dict):
            return {self.fill(k): self.fill(v) for k, v in value.items()}
        return value


@pytest.fixture
def campaign() -> Campaign:
    data = judged_answer_task()
    task = data.task
    qrels = qrels_export(task=task)
    job = EvaluationJob.objects.create(task=task, qrels=qrels, seed=1)
    evaluation_job_run(job=job)
    # Published, so participants reach the results' code too.
    results_publish(task=task, qrels=qrels, by=UserFactory.create(is_staff=True))
    official = Assignment.objects.filter(topic=data.topics["A.1"], purpose="official").first()
    dual = Assignment.objects.filter(topic=data.topics["A.1"], purpose="dual").first()
    assert official is not None
    assert dual is not None
    participant = UserFactory.create(username="sweep-participant")
    data.alpha.team.members.add(participant)
    training = TrainingRoundFactory.create(task=task)
    AssignmentFactory.create(
        topic=data.topics["A.2"],
        assessor=official.assessor,
        purpose=Assignment.Purpose.TRAINING,
        training_round=training,
    )
    thread = ThreadFactory.create()
    PostFactory.create(id=thread.id, thread=thread, kind=1)
    candidate = UserFactory.create(username="sweep-candidate")
    judge, _ = machine_judge_import(
        task=task,
        name="sweep-judge",
        source=SimpleUploadedFile("judge.qrels", b"A.1 0 101 2\nA.1 0 102 1\n"),
    )
    hit = data.hits[101]
    return Campaign(
        ids={
            "task": str(task.pk),
            "run": str(data.alpha.pk),
            "team": str(data.alpha.team.pk),
            "assignment": str(official.pk),
            "dual_assignment": str(dual.pk),
            "item": str(hit.item_id),
            "hit": str(hit.pk),
            "disputed_hit": str(data.hits[103].pk),  # graded by two assessors
            "topic": str(data.topics["A.1"].pk),
            "round": str(training.pk),
            "qrels": str(qrels.pk),
            "job": str(job.pk),
            "thread": str(thread.pk),
            "candidate": str(candidate.pk),
            "candidate_name": candidate.username,
            "judge": str(judge.pk),
        },
        users={
            "anonymous": None,
            "participant": participant,
            "assessor": official.assessor,
            "organizer": UserFactory.create(username="sweep-organizer", is_staff=True),
        },
    )


def _with(body: Any, dotted: str, value: Any) -> Any:
    """A copy of a JSON body with ``judgments.0.hit`` (a dotted path) set to ``value``."""
    body = json.loads(json.dumps(body))
    *parents, last = dotted.split(".")
    target = body
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target.setdefault(key, {})
    if isinstance(target, list):
        index = int(last)
        target.extend([None] * (index + 1 - len(target)))
        target[index] = value
    else:
        target[last] = value
    return body


class Sweep:
    """Sends the requests and keeps every answer of 500 or more."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.failures: list[str] = []
        self.requests = 0

    def send(self, method: str, path: str, *, data: Any = None, as_json: bool = False) -> None:
        self.requests += 1
        shown = f"{method} {path} {json.dumps(data, ensure_ascii=True)[:200]}"
        # Each request in its own savepoint: a database error it caused is its own failure,
        # not a broken transaction that fails every request after it.
        try:
            with transaction.atomic():
                status = self._request(method, path, data, as_json)
        except DatabaseError as error:
            self.failures.append(f"{shown} -> left the transaction broken: {error}")
            return
        if status >= 500:
            self.failures.append(f"{shown} -> {status}")

    def refused(self, url: str) -> bool:
        """Does the view turn this client away with valid parameters (POST if GET is 405)?"""
        with transaction.atomic():
            status = self._request("GET", url, None, as_json=False)
            if status == 405:
                status = self._request("POST", url, None, as_json=False)
        return status in REFUSED

    def _request(self, method: str, path: str, data: Any, as_json: bool) -> int:
        if method == "GET":
            return self.client.get(path, data).status_code
        if as_json:
            body = json.dumps(data)
            return self.client.post(path, body, content_type="application/json").status_code
        return self.client.post(path, data or {}).status_code


def sweep_route(sweep: Sweep, route: Route, entry: Entry, campaign: Campaign) -> None:
    valid = {
        name: _valid_path_value(entry, name, campaign) for name in path_parameters(route.route)
    }
    url = build_path(route.route, valid)
    for name in valid:  # each path parameter, the others valid
        for bad in BAD_VALUES:
            bad_url = build_path(route.route, {**valid, name: bad})
            sweep.send("GET", bad_url)
            sweep.send("POST", bad_url)
    if sweep.refused(url):
        # The view turns this role away before it reads anything (login page, 401, 403): the
        # same parameters are read, and swept, for the roles it lets in.
        entry = Entry()
    for name in entry.query:
        for bad in BAD_VALUES:
            sweep.send("GET", url, data={name: bad})
        sweep.send("GET", url, data={name: ["1", BAD_VALUES[0]]})
        sweep.send("GET", url, data={name: [BAD_VALUES[0], "1"]})
    for body in entry.bodies:
        base = campaign.fill(body.base)
        for name in campaign.fill(list(body.fields)):
            for bad in BAD_VALUES:
                data = _with(base, name, bad) if body.as_json else {**base, name: bad}
                sweep.send("POST", url, data=data, as_json=body.as_json)
            if not body.as_json:
                sweep.send("POST", url, data={**base, name: ["1", BAD_VALUES[0]]})
    generic = campaign.fill(GENERIC)
    for bad in GENERIC_VALUES:
        sweep.send("GET", url, data=dict.fromkeys(generic, bad))
        sweep.send("POST", url, data=dict.fromkeys(generic, bad))


def _valid_path_value(entry: Entry, name: str, campaign: Campaign) -> str:
    source = entry.path.get(name)
    if source is None:
        raise AssertionError(f"URLS has no valid value for path parameter {name!r}")
    return source[1:] if source.startswith("=") else campaign.ids[source]


def test_every_url_name_has_its_parameters_in_the_table_when_urls_are_walked() -> None:
    routes = list(project_routes())
    names = {route.name for route in routes}
    missing = sorted(names - URLS.keys())
    assert not missing, (
        f"add these URL names and the parameters their views read to URLS: {missing}"
    )
    stale = sorted(URLS.keys() - names)
    assert not stale, f"URLS names URLs that no longer exist: {stale}"
    for route in routes:
        unknown = set(path_parameters(route.route)) - URLS[route.name].path.keys()
        assert not unknown, f"{route.name}: no valid value for path parameters {unknown}"


@pytest.mark.parametrize("role", ["anonymous", "participant", "assessor", "organizer"])
def test_no_url_answers_5xx_when_parameters_are_malformed(role: str, campaign: Campaign) -> None:
    client = Client(raise_request_exception=False)
    user = campaign.users[role]
    if user is not None:
        client.force_login(user)
    sweep = Sweep(client)
    for route in project_routes():
        entry = URLS.get(route.name)
        if entry is None:
            continue  # the table test above names it
        sweep_route(sweep, route, entry, campaign)
        if route.name == "logout" and user is not None:
            client.force_login(user)  # the sweep logged out: log in again for the next URLs
    assert sweep.requests > 1000
    assert not sweep.failures, f"{len(sweep.failures)} answers >= 500:\n" + "\n".join(
        sweep.failures[:60]
    )


def _logged_in(campaign: Campaign, role: str) -> Client:
    client = Client()
    user = campaign.users[role]
    assert user is not None
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("task=%C2%B2", "task"),
        ("qrels=%D9%A3", "qrels"),
        ("limit=99999999999999999999999", "limit"),
        ("limit=1001", "limit"),
        ("limit=0", "limit"),
        ("offset=-1", "offset"),
        ("task=1&task=abc", "task"),
    ],
)
def test_api_answers_400_naming_the_parameter_when_a_value_is_bad(
    campaign: Campaign, query: str, parameter: str
) -> None:
    response = _logged_in(campaign, "organizer").get(f"/api/results/?{query}")
    assert response.status_code == 400
    assert response.json()["parameter"] == parameter
    assert response.json()["detail"].startswith(f"{parameter}: ")


def test_api_pages_within_bounds_when_limit_and_offset_are_good(campaign: Campaign) -> None:
    client = _logged_in(campaign, "organizer")
    body = client.get("/api/results/?limit=1").json()
    assert (body["count"], len(body["results"])) == (2, 1)
    assert client.get(f"/api/results/?offset={2**63 - 1}").json()["results"] == []


@pytest.mark.parametrize(
    "path",
    [
        "/runs/99999999999999999999/",
        "/api/runs/99999999999999999999/",
        f"/api/runs/{2**63}/",
        "/runs/0/",
        "/pools/%C2%B2/",
        "/results/{task}/?qrels=%C2%B2",
        "/results/{task}/download/csv/?qrels=99999999999999999999999",
    ],
)
def test_pages_answer_404_when_an_id_is_bad(campaign: Campaign, path: str) -> None:
    client = _logged_in(campaign, "organizer")
    assert client.get(path.format(task=campaign.ids["task"])).status_code == 404


def test_judging_form_names_the_field_when_a_choice_is_tampered(campaign: Campaign) -> None:
    client = _logged_in(campaign, "assessor")
    hit = campaign.ids["hit"]
    url = f"/assess/{campaign.ids['assignment']}/{campaign.ids['item']}/"
    response = client.post(url, {f"choice-{hit}": "²", "opened_at": "1"})
    assert response.status_code == 400
    assert f"choice-{hit}: must be one of 0, 1, 2, 3, 4" in response.content.decode()


def test_item_list_ignores_a_bad_filter_with_a_message_when_show_is_unknown(
    campaign: Campaign,
) -> None:
    client = _logged_in(campaign, "assessor")
    response = client.get(f"/assess/{campaign.ids['assignment']}/items/?show=%C2%B2")
    assert response.status_code == 200
    assert response.context["show"] == "all"
    assert "Ignored show: must be one of" in response.content.decode()
