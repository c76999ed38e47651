"""The pool planner inside the app on real data: TREC-COVID round 1's pooled runs
(../shared/data/trec-covid-round1) uploaded to a document task as their teams' runs, the
round's official qrels given as the prior through the REST endpoint, the plan replayed by a
real Celery worker.

Depth-k figures are checked against depth-k pooling and MAP computed here from the files alone
(trec_eval's order: score descending, then docno descending; AP over the qrels' relevant
documents; Kendall's tau-b from scipy); every strategy must stay within its budget, and the
same seed must give the same table. Asked for judged documents only, the runs are cut to the
qrels' documents here too before the same checks.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import time
from collections import defaultdict
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from scipy.stats import kendalltau

from collection.models import Document, DocumentCollection, RetrievalTask
from pooling.core.algorithms.strategies import DEFAULT_STRATEGIES
from pooling.services.runs import RunValidationError, run_submit
from tests.factories.collection import (
    CampaignFactory,
    DocumentCollectionFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.factories.pooling import TeamFactory

COVID = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trec-covid-round1"
TOPICS = ("1", "2", "3", "4")  # a few topics keep the upload of 56 runs short

Runs = dict[str, dict[str, dict[str, float]]]  # tag -> topic -> docno -> score


@pytest.fixture(scope="module")
def covid() -> dict[str, object]:
    """The pooled runs of the round (``contributed judgments = yes``) for TOPICS, as run files
    and as scores, their teams, and the official qrels of TOPICS."""
    if not COVID.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI must have the real TREC-COVID files at {COVID}")
        pytest.skip(f"TREC-COVID round 1 files not found at {COVID} (a clone without ../shared)")
    with (COVID / "leaderboard.csv").open(newline="") as stream:
        board = [row for row in csv.DictReader(stream) if row["contributed judgments"] == "yes"]
    files: dict[str, str] = {}
    runs: Runs = {}
    for row in board:
        lines = []
        scores: dict[str, dict[str, float]] = defaultdict(dict)
        with gzip.open(COVID / "runs" / f"{row['run']}.gz", "rt") as stream:
            for line in stream:
                topic, _q0, doc, _rank, score, _tag = line.split()
                if topic in TOPICS:
                    lines.append(line)  # as the team wrote it (some count ranks from 0)
                    scores[topic].setdefault(doc, float(score))
        files[row["run"]] = "".join(lines)
        runs[row["run"]] = dict(scores)
    qrels_lines = [
        line
        for line in (COVID / "qrels-rnd1.txt").read_text().splitlines(keepends=True)
        if line.split()[0] in TOPICS
    ]
    grades = {(t, d): int(g) for t, _i, d, g in (line.split() for line in qrels_lines)}
    return {
        "files": files,
        "runs": runs,
        "teams": {row["run"]: row["team"] for row in board},
        "qrels": "".join(qrels_lines),
        "grades": grades,
    }


def cord19(runs: Runs) -> DocumentCollection:
    """The CORD-19 documents the runs name (docnos only: the texts are not in ../shared)."""
    made = DocumentCollectionFactory.create(name="cord19-round1")
    docnos = sorted({d for topics in runs.values() for docs in topics.values() for d in docs})
    Document.objects.bulk_create(
        (Document(collection=made, docno=d, title=d, checksum="0" * 32) for d in docnos),
        batch_size=5000,
    )
    return made


def covid_task(covid: dict) -> RetrievalTask:
    task = RetrievalTaskFactory.create(
        campaign=CampaignFactory.create(name="TREC-COVID round 1", max_primary_runs=10),
        kind="document",
        collection=cord19(covid["runs"]),
        relevance_level=1,
    )
    for number in TOPICS:
        TopicFactory.create(task=task, number=number)
    teams = {name: TeamFactory.create(name=name) for name in set(covid["teams"].values())}
    for tag, text in covid["files"].items():
        run_submit_or_say(
            task=task,
            team=teams[covid["teams"][tag]],
            tag=tag,
            role="primary",
            stream=io.BytesIO(text.encode()),
            file_name=f"{tag}.run",
            uploaded_by=None,
            ignore_deadline=True,
        )
    return task


def run_submit_or_say(**kwargs: object) -> None:
    try:
        run_submit(**kwargs)  # type: ignore[arg-type]
    except RunValidationError as error:
        raise AssertionError(f"{kwargs['tag']}: {error.report}") from None


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def ranked(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda d: (scores[d], d), reverse=True)


def depth_pool(runs: Runs, budget: int) -> set[tuple[str, str]]:
    """The deepest depth-k pool of every run within ``budget``, the same k on every topic."""
    lists = [(t, ranked(docs)) for topics in runs.values() for t, docs in topics.items()]
    pool: set[tuple[str, str]] = set()
    for k in range(1, 1001):
        deeper = {(t, d) for t, docs in lists for d in docs[:k]}
        if len(deeper) > budget:
            break
        pool = deeper
    return pool


def mean_ap(run: dict[str, dict[str, float]], relevant: dict[str, set[str]]) -> float:
    """trec_eval's MAP: per qrels topic, the mean precision at each relevant document
    retrieved over the topic's relevant documents; averaged over the qrels' topics."""
    total = 0.0
    for topic, wanted in relevant.items():
        found, ap = 0, 0.0
        for rank, doc in enumerate(ranked(run.get(topic, {})), start=1):
            if doc in wanted:
                found += 1
                ap += found / rank
        total += ap / len(wanted) if wanted else 0.0
    return total / len(relevant)


def wait_done(client: Client, url: str, timeout: float = 600) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(url).json()
        if body["status"] in ("done", "failed"):
            return body
        time.sleep(0.5)
    raise AssertionError(f"{url} still not done after {timeout} s")


@pytest.mark.worker
def test_planner_replays_real_trec_covid_runs_when_started_through_rest(
    celery_worker, covid: dict
) -> None:
    task = covid_task(covid)
    organizer = Client()
    organizer.force_login(UserFactory.create(username="covid-org", is_staff=True))
    official = len(covid["grades"])
    budgets = [round(official * share) for share in (0.1, 0.2, 0.4)]
    start = reverse("evaluation_api:pool-plans", args=[task.pk])

    def plan() -> list[dict]:
        response = organizer.post(
            start,
            {
                "source": "qrels",
                "prior": SimpleUploadedFile("qrels-rnd1.txt", covid["qrels"].encode()),
                "strategies": list(DEFAULT_STRATEGIES),
                "budgets": budgets,
                "measures": ["map"],
                "seed": 11,
            },
        )
        assert response.status_code == 202, response.content
        status = wait_done(
            organizer, reverse("evaluation_api:pool-plan", args=[task.pk, response.json()["id"]])
        )
        assert status["status"] == "done", status["error"]
        assert status["prior_judgments"] == official
        return organizer.get(status["result"]).json()

    rows = plan()
    for row in rows:  # the table, for the reader of ``pytest -s``
        print(
            f"{row['strategy']:<10} {row['budget']:>5} {row['judgments']:>5} {row['relevant']:>5}"
            f" {row['relevant_share']:.3f} tau(map) {_figure(row['tau']['map'])}"
            f" drop {row['max_group_drop']['map']['drop']:.4f}"
        )
    assert [(r["strategy"].split(":")[0], r["budget"]) for r in rows] == [
        (name, b) for name in DEFAULT_STRATEGIES for b in budgets
    ]
    for row in rows:
        assert 0 <= row["judgments"] <= row["budget"], row
        # Depth-1 of 56 runs already needs more than 10% of the judgments: depth-k may pool
        # nothing where a budgeted strategy spends nearly all of it.
        assert row["strategy"] == "depth" or row["judgments"] > row["budget"] * 0.9, row
        assert set(row) == {
            "strategy",
            "budget",
            "judgments",
            "relevant",
            "relevant_share",
            "tau",
            "tau_ap",
            "max_group_drop",
        }

    # Depth-k, judgment for judgment, and the MAP ranking's tau, from the files alone.
    grades = covid["grades"]
    relevant_total = sum(1 for g in grades.values() if g >= 1)
    full: defaultdict[str, set[str]] = defaultdict(set)
    for (topic, doc), grade in grades.items():
        full[topic] |= {doc} if grade >= 1 else set()
    runs = covid["runs"]
    checked: list[int] = []
    for row in (r for r in rows if r["strategy"] == "depth"):
        pool = depth_pool(runs, row["budget"])
        assert row["judgments"] == len(pool)
        assert row["relevant"] == sum(1 for key in pool if grades.get(key, 0) >= 1)
        assert row["relevant_share"] == pytest.approx(row["relevant"] / relevant_total)
        if not pool:
            # Nothing judged: every run scores 0 and a correlation with that ranking is
            # undefined.
            assert row["tau"]["map"] is None
            assert row["tau_ap"]["map"] is None
            continue
        checked.append(row["budget"])
        reduced: defaultdict[str, set[str]] = defaultdict(set)
        for topic, doc in pool:
            reduced[topic] |= {doc} if grades.get((topic, doc), 0) >= 1 else set()
        tags = sorted(runs)
        on_full = [mean_ap(runs[tag], {t: full[t] for t in TOPICS}) for tag in tags]
        on_pool = [mean_ap(runs[tag], {t: reduced[t] for t in TOPICS}) for tag in tags]
        assert row["tau"]["map"] == pytest.approx(kendalltau(on_full, on_pool).statistic)
    print("depth-k checked at", checked, "of", budgets)
    assert checked, "no depth-k pool fitted a budget: nothing was compared"

    # The same seed, asked again once the first plan is done: the same table.
    assert plan() == rows


@pytest.mark.worker
def test_planner_replays_condensed_trec_covid_runs_when_judged_only(
    celery_worker, covid: dict
) -> None:
    """Judged documents only: every run cut to the official qrels' documents before depth-k
    pools them and MAP scores them; the cut, the pools and the tau computed here from the
    files."""
    task = covid_task(covid)
    organizer = Client()
    organizer.force_login(UserFactory.create(username="covid-org", is_staff=True))
    grades = covid["grades"]
    budgets = [round(len(grades) * share) for share in (0.1, 0.2, 0.4)]
    response = organizer.post(
        reverse("evaluation_api:pool-plans", args=[task.pk]),
        {
            "source": "qrels",
            "prior": SimpleUploadedFile("qrels-rnd1.txt", covid["qrels"].encode()),
            "strategies": ["depth"],
            "budgets": budgets,
            "measures": ["map"],
            "judged_only": "true",
        },
    )
    assert response.status_code == 202, response.content
    status = wait_done(
        organizer, reverse("evaluation_api:pool-plan", args=[task.pk, response.json()["id"]])
    )
    assert (status["status"], status["judged_only"]) == ("done", True), status["error"]
    rows = organizer.get(status["result"]).json()

    runs: Runs = {
        tag: {
            topic: {d: s for d, s in docs.items() if (topic, d) in grades}
            for topic, docs in topics.items()
        }
        for tag, topics in covid["runs"].items()
    }
    relevant_total = sum(1 for g in grades.values() if g >= 1)
    full: defaultdict[str, set[str]] = defaultdict(set)
    for (topic, doc), grade in grades.items():
        full[topic] |= {doc} if grade >= 1 else set()
    tags = sorted(runs)
    on_full = [mean_ap(runs[tag], {t: full[t] for t in TOPICS}) for tag in tags]
    compared = 0
    for row in rows:
        pool = depth_pool(runs, row["budget"])
        assert not pool - set(grades)  # condensed: only judged documents can be pooled
        assert row["judgments"] == len(pool)
        assert row["relevant"] == sum(1 for key in pool if grades[key] >= 1)
        assert row["relevant_share"] == pytest.approx(row["relevant"] / relevant_total)
        if not pool:
            assert row["tau"]["map"] is None
            continue
        compared += 1
        reduced: defaultdict[str, set[str]] = defaultdict(set)
        for topic, doc in pool:
            reduced[topic] |= {doc} if grades[(topic, doc)] >= 1 else set()
        on_pool = [mean_ap(runs[tag], {t: reduced[t] for t in TOPICS}) for tag in tags]
        assert row["tau"]["map"] == pytest.approx(kendalltau(on_full, on_pool).statistic)
    assert compared, "no depth-k pool fitted a budget: nothing was compared"
