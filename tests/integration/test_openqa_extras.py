"""ARQMath-3's Task 3 figures beside AR and P@1: LO, and the MG and UI shares of each run's
answers, from judgments made with the extra questions. Every number is worked out by hand
below (token F1 = 2PR/(P+R) over bags of lower-cased words)."""

from __future__ import annotations

import html
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from assessment.core.guidelines_defaults import ARQMATH3_QUESTIONS
from assessment.services.guidelines import guidelines_questions_set
from assessment.services.judging import judgment_submit
from collection.models import RetrievalTask
from evaluation.core.answers import answer_id
from evaluation.models import EvaluationJob, EvaluationResult, QrelsVersion
from evaluation.services import evaluation_job_run, qrels_import
from pooling.core.algorithms import answer_key
from pooling.models import Run
from tests.factories import (
    AssignmentFactory,
    HitFactory,
    PoolItemFactory,
    RetrievalTaskFactory,
    RunFactory,
    RunRowFactory,
    TeamFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

# run -> topic -> answer. r1 and r2 are team T1's, r3 team T2's.
ANSWERS = {
    "r1": {"A.1": "The sum is even", "A.2": "use induction on n"},
    "r2": {"A.1": "the sum is odd"},
    "r3": {"A.1": "sum is always even here", "A.2": "Induction on n works"},
}
GRADES = {("r1", "A.1"): 2, ("r2", "A.1"): 0, ("r3", "A.1"): 3, ("r1", "A.2"): 1, ("r3", "A.2"): 2}
# MG asked on A.1 and A.2, UI on A.1 only. r3's A.2 answer is judged without them.
MARKS = {
    ("r1", "A.1"): {"mg": True, "ui": False},
    ("r2", "A.1"): {"mg": False, "ui": True},
    ("r3", "A.1"): {"mg": True, "ui": True},
    ("r1", "A.2"): {"mg": False},
    ("r3", "A.2"): None,
}


def build() -> tuple[RetrievalTask, dict[str, int]]:
    answer_task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    openqa = RetrievalTaskFactory.create(
        kind=RetrievalTask.Kind.OPENQA, campaign=answer_task.campaign, answer_task=answer_task
    )
    mg, ui = ARQMATH3_QUESTIONS
    guidelines_questions_set(
        task=answer_task,
        questions=[replace(mg, topics=("A.1", "A.2")), replace(ui, topics=("A.1",))],
    )
    t1, t2 = TeamFactory.create(), TeamFactory.create()
    runs = {
        tag: RunFactory.create(task=openqa, team=team, tag=tag)
        for tag, team in (("r1", t1), ("r2", t1), ("r3", t2))
    }
    topics = {n: TopicFactory.create(task=openqa, number=n) for n in ("A.1", "A.2")}
    pool_topics = {n: TopicFactory.create(task=answer_task, number=n) for n in ("A.1", "A.2")}
    assignments = {
        n: AssignmentFactory.create(topic=t, assessor=UserFactory.create())
        for n, t in pool_topics.items()
    }
    qrels = []
    for tag, answers in ANSWERS.items():
        for number, text in answers.items():
            RunRowFactory.create(
                run=runs[tag], topic=topics[number], post_id=None, rank=1, answer=text
            )
            item = PoolItemFactory.create(
                topic=pool_topics[number], post_id=None, key=answer_key(text), answer=text
            )
            hit = HitFactory.create(item=item)
            assignment = assignments[number]
            judgment_submit(
                assignment=assignment,
                hit=hit,
                assessor=assignment.assessor,
                grade=GRADES[(tag, number)],
                answers=MARKS[(tag, number)],
            )
            ident = answer_id(runs[tag].pk, answer_key(text))
            qrels.append(f"{number}\t0\t{ident}\t{GRADES[(tag, number)]}\n")
    version = qrels_import(task=openqa, text="".join(qrels))
    evaluation_job_run(job=EvaluationJob.objects.create(task=openqa, qrels=version))
    return openqa, {tag: run.pk for tag, run in runs.items()}


def f1(common: int, answer: int, reference: int) -> float:
    p, r = common / answer, common / reference
    return 2 * p * r / (p + r)


def test_lo_mg_ui_per_run_against_hand_counts_and_shown_on_the_results_page() -> None:
    openqa, run_ids = build()
    results = {tag: EvaluationResult.objects.get(run_id=pk).measures for tag, pk in run_ids.items()}
    # References are the relevant (grade >= 2) answers: A.1 r1 (T1) and r3 (T2); A.2 r3 (T2).
    # r1 (T1) on A.1 meets r3's "sum is always even here": sum, is, even of 4 and 5 tokens;
    #         on A.2 r3's "induction on n works": induction, on, n of 4 and 4.
    assert results["r1"]["lo"] == pytest.approx((f1(3, 4, 5) + f1(3, 4, 4)) / 2)
    # r2 (T1): A.1 "the sum is odd" vs r3: sum, is of 4 and 5; no answer to A.2 (0).
    assert results["r2"]["lo"] == pytest.approx(f1(2, 4, 5) / 2)
    # r3 (T2): its own team's answers are no references; A.1 vs r1's (3 of 5 and 4), A.2
    # has none left (r1's grade 1 is not relevant): 0.
    assert results["r3"]["lo"] == pytest.approx(f1(3, 5, 4) / 2)
    # MG over A.1 and A.2, UI over A.1; r3's A.2 judgment answered nothing: left out.
    assert (results["r1"]["mg"], results["r1"]["mg_answers"]) == (0.5, 2)
    assert (results["r1"]["ui"], results["r1"]["ui_answers"]) == (0.0, 1)
    assert (results["r2"]["mg"], results["r2"]["ui"]) == (0.0, 1.0)
    assert (results["r3"]["mg"], results["r3"]["mg_answers"]) == (1.0, 1)
    assert results["r1"]["ar"] == pytest.approx((2 + 1) / 2)  # AR unchanged beside them
    note = next(n for n in results["r1"]["notes"] if n.startswith("LO: "))
    assert "word tokenizer" in note
    assert "other teams" in note
    assert "Task 1" not in note

    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    page = html.unescape(
        client.get(reverse("evaluation:results", args=[openqa.pk])).content.decode()
    )
    for heading in ("LO", "MG", "UI"):
        assert f">{heading}</abbr>" in page
    assert "0.5000<small" in page  # r1's MG with its count
    assert note in page
    assert "MG and UI: share of each run's answers" in page
    # r3 is first (best AR); its per-topic table has LO: A.1 against r1's answer, A.2 none.
    assert f'<td class="num">{f1(3, 5, 4):.4f}</td>' in page


def test_evaluate_from_files_gives_the_same_lo_mg_ui_with_the_judgments_csv(
    tmp_path: Path,
) -> None:
    openqa, run_ids = build()
    app = {tag: EvaluationResult.objects.get(run_id=pk).measures for tag, pk in run_ids.items()}
    organizer = Client()
    organizer.force_login(UserFactory.create(is_staff=True, is_superuser=True))
    export = reverse("assessment:organize_export_judgments", args=[openqa.answer_task_id])
    (tmp_path / "judgments.csv").write_bytes(b"".join(organizer.get(export).streaming_content))  # type: ignore[attr-defined]
    (tmp_path / "qrels.tsv").write_text(QrelsVersion.objects.get(task=openqa).content)
    mapping, teams, paths = [], [], []
    for tag, answers in ANSWERS.items():
        run = Run.objects.get(pk=run_ids[tag])
        teams.append(f"{tag}\t{run.team.name}\n")
        lines = []
        for number, text in answers.items():
            lines.append(f"{number}\t1\t1.0\t{tag}\t\t{text}\n")
            mapping.append(f"{tag}\t{number}\t{answer_id(run.pk, answer_key(text))}\n")
        (tmp_path / f"{tag}.tsv").write_text("".join(lines))
        paths.append(str(tmp_path / f"{tag}.tsv"))
    (tmp_path / "map.tsv").write_text("".join(mapping))
    (tmp_path / "teams.tsv").write_text("".join(teams))
    out = io.StringIO()
    call_command(
        "evaluate",
        *("--qrels", str(tmp_path / "qrels.tsv"), "--task", "openqa", "--format", "json"),
        *("--answer-map", str(tmp_path / "map.tsv"), "--teams", str(tmp_path / "teams.tsv")),
        *("--judgments", str(tmp_path / "judgments.csv"), *paths),
        stdout=out,
        stderr=io.StringIO(),
    )
    files = {row["run"]: row for row in json.loads(out.getvalue())}
    for tag, measures in app.items():
        for key in ("ar", "p1", "lo", "mg", "ui", "mg_answers", "ui_answers"):
            assert files[tag][key] == pytest.approx(measures[key]), (tag, key)
