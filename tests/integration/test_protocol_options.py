"""Protocol options as task settings: the averaging convention per task, Task 3
answer ids per run, ``evaluate --answer-map``, and Task 3 measures on a Task 1 run."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from assessment.models import Assignment
from collection.models import RetrievalTask
from evaluation.core.answers import answer_id
from evaluation.models import EvaluationResult
from evaluation.services import evaluation_job_run, evaluation_job_start, qrels_export
from pooling.core.algorithms import answer_key
from pooling.models import Hit, RunRow
from pooling.services.pools import pool_build
from tests.factories import AssignmentFactory, JudgmentFactory, RetrievalTaskFactory, UserFactory
from tests.integration.evaluation_data import judged_answer_task
from tests.integration.pool_data import make_run, make_topics


def evaluate_files(*args: str) -> list[dict]:
    out = io.StringIO()
    call_command("evaluate", *args, "--format", "json", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


@pytest.mark.django_db
def test_task_averaging_convention_is_recorded_with_results_and_shown_when_set_to_run(
    django_capture_on_commit_callbacks: object,
) -> None:
    data = judged_answer_task()
    data.task.average = RetrievalTask.Average.RUN
    data.task.save()
    qrels = qrels_export(task=data.task)
    with django_capture_on_commit_callbacks(execute=False):  # type: ignore[operator]
        job = evaluation_job_start(task=data.task, qrels=qrels)
    assert job.average == "run"
    evaluation_job_run(job=job)
    beta = EvaluationResult.objects.get(run=data.beta)
    assert beta.average == "run"
    # Beta has A.1 only: over its own topic its MAP' is 2/3, not (2/3 + 0) / 2.
    assert beta.measures["map_prime"] == pytest.approx(2 / 3)
    assert beta.measures["topics"] == 1
    overridden = evaluation_job_start(task=data.task, qrels=qrels, average="all")
    assert overridden.average == "all"
    client = Client()
    client.force_login(UserFactory.create(is_staff=True))
    page = client.get(reverse("evaluation:results", args=[data.task.pk]))
    assert "Means over each run&#x27;s own evaluated topics" in page.content.decode()
    csv = client.get(reverse("evaluation:results-download", args=[data.task.pk, "csv"]))
    assert csv.content.decode().splitlines()[0].endswith(",average,qrels_complete")
    assert ",run," in csv.content.decode().splitlines()[1]


@pytest.mark.django_db
def test_each_runs_answer_keeps_its_own_id_when_two_runs_gave_the_same_text_judged_once(
    tmp_path: Path,
) -> None:
    task = RetrievalTaskFactory.create(kind="answer", min_relevant=0)
    openqa = RetrievalTaskFactory.create(
        campaign=task.campaign, kind="openqa", answer_task=task, min_relevant=0
    )
    topics = make_topics(task, 2)
    gen1, gen2 = make_run(openqa, "gen1"), make_run(openqa, "gen2")
    answers = {(gen1, 0): "It is 4.", (gen2, 0): "It is 4.", (gen2, 1): "It is 5."}
    for (run, t), text in answers.items():
        RunRow.objects.create(run=run, topic=topics[t], rank=1, score=1.0, answer=text)
    pool_build(task=openqa)
    hits = Hit.objects.filter(item__key__startswith="qa-").select_related("item")
    assert hits.count() == 2  # the same text is one pool item, judged once
    grade = {"It is 4.": 3, "It is 5.": 1}
    for hit in hits:
        assignment = AssignmentFactory.create(
            topic=hit.item.topic, purpose=Assignment.Purpose.OFFICIAL
        )
        JudgmentFactory.create(assignment=assignment, hit=hit, grade=grade[hit.item.answer])
    qrels = qrels_export(task=openqa)
    ids = {(run.tag, t): answer_id(run.pk, answer_key(text)) for (run, t), text in answers.items()}
    assert qrels.content == "".join(
        f"{topics[t].number}\t0\t{ids[(tag, t)]}\t{grade[answers[(run, t)]]}\n"
        for (run, t) in sorted(answers, key=lambda rt: (rt[1], rt[0].pk))
        for tag in [run.tag]
    )
    assert len({ids[("gen1", 0)], ids[("gen2", 0)]}) == 2
    evaluation_job_run(job=evaluation_job_start(task=openqa, qrels=qrels))
    results = {r.run.tag: r for r in EvaluationResult.objects.select_related("run")}
    assert results["gen1"].measures["answers"] == {"A.1": ids[("gen1", 0)]}
    assert results["gen2"].measures["answers"] == {"A.1": ids[("gen2", 0)], "A.2": ids[("gen2", 1)]}
    assert (results["gen1"].measures["ar"], results["gen2"].measures["ar"]) == (1.5, 2.0)

    # The same qrels score the native run files once an answer map gives them their ids.
    (tmp_path / "qrels.tsv").write_text(qrels.content)
    mapping = "run\ttopic\tanswer_id\n" + "".join(
        f"{tag}\t{topics[t].number}\t{found}\n" for (tag, t), found in ids.items()
    )
    (tmp_path / "map.tsv").write_text(mapping)
    for run in (gen1, gen2):
        lines = [
            f"{topics[t].number}\t1\t1.0\t{run.tag}\t123\t{text}\n"
            for (r, t), text in answers.items()
            if r == run
        ]
        (tmp_path / f"{run.tag}.tsv").write_text("".join(lines))
    rows = evaluate_files(
        *("--qrels", str(tmp_path / "qrels.tsv"), "--task", "openqa"),
        *("--answer-map", str(tmp_path / "map.tsv")),
        str(tmp_path / "gen1.tsv"),
        str(tmp_path / "gen2.tsv"),
    )
    assert {r["run"]: (r["ar"], r["p1"]) for r in rows} == {
        "gen1": (1.5, 0.5),
        "gen2": (2.0, 0.5),
    }


def test_answer_map_scores_native_task3_runs_against_the_real_2022_qrels(
    arqmath_data: Path, tmp_path: Path
) -> None:
    qrels = str(arqmath_data / "qrels" / "2022" / "task3-qrels.tsv")
    # Real rows: A.301 d_1 is H (3), A.302 d_670 is a "system failure" (5, scored 0),
    # A.302 d_187 is L (1).
    run = tmp_path / "TeamX-task3-qa.tsv"
    run.write_text(
        "A.301\t1\t0.9\tqa\t2355,123\tBecause $x^2 \\geq 0$ for every real $x$.\n"
        "A.302\t1\t0.8\tqa\t\tIt diverges.\n"
    )
    answer_map = tmp_path / "map.tsv"
    answer_map.write_text("qa\tA.301\td_1\nqa\tA.302\td_670\nother\tA.302\td_187\n")
    [every] = evaluate_files(
        "--qrels", qrels, "--task", "openqa", "--answer-map", str(answer_map), str(run)
    )
    assert every["topics"] == 78
    assert every["ar"] == pytest.approx(3 / 78)
    assert every["p1"] == pytest.approx(1 / 78)
    assert every["answers"] == {"A.301": "d_1", "A.302": "d_670"}
    [own] = evaluate_files(
        *("--qrels", qrels, "--task", "openqa", "--answer-map", str(answer_map)),
        *("--average", "run", str(run)),
    )
    assert (own["ar"], own["p1"], own["topics"]) == (1.5, 0.5, 2)


def test_native_task3_run_needs_an_answer_map_naming_each_of_its_topics(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("A.1\t0\td_1\t3\n")
    run = tmp_path / "run.tsv"
    run.write_text("A.1\t1\t1.0\tqa\t\tYes.\nA.2\t1\t1.0\tqa\t\tNo.\n")
    with pytest.raises(CommandError, match="native Task 3 run has no answer ids"):
        evaluate_files("--qrels", str(qrels), "--task", "openqa", str(run))
    partial = tmp_path / "map.tsv"
    partial.write_text("qa\tA.1\td_1\n")
    with pytest.raises(CommandError, match=r"no id for run qa topic A\.2"):
        evaluate_files(
            "--qrels", str(qrels), "--task", "openqa", "--answer-map", str(partial), str(run)
        )
    bad = tmp_path / "bad.tsv"
    bad.write_text("qa\tA.1\n")
    with pytest.raises(CommandError, match=r"bad\.tsv: line 1: expected 3 columns"):
        evaluate_files(
            "--qrels", str(qrels), "--task", "openqa", "--answer-map", str(bad), str(run)
        )
    with pytest.raises(CommandError, match="--answer-map is for --task openqa"):
        evaluate_files("--qrels", str(qrels), "--answer-map", str(partial), str(run))


def test_task1_run_scored_with_task3_measures_takes_its_best_ranked_answer(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("A.1\t0\t11\t3\nA.1\t0\t12\t0\nA.2\t0\t21\t2\n")
    run = tmp_path / "run.tsv"
    # A.1: post 12 has the higher score but rank 2; rank 1 (post 11) is the answer.
    run.write_text(
        "A.1\t12\t2\t9.0\tr\nA.1\t11\t1\t0.5\tr\nA.2\t22\t1\t1.0\tr\nA.2\t21\t1\t2.0\tr\n"
    )
    [row] = evaluate_files("--qrels", str(qrels), "--task", "openqa", str(run))
    assert row["answers"] == {"A.1": "11", "A.2": "21"}  # A.2: same rank, higher score
    assert (row["ar"], row["p1"]) == (pytest.approx(2.5), 1.0)
