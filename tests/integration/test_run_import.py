"""import_run / import_runs / create_token, and the real ARQMath-1 runs imported end to end."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collection.models import Campaign, RetrievalTask, Topic
from pooling.models import Run, RunRow, Team
from tests.factories.collection import RetrievalTaskFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db

# file -> (team, role, rows, the tag its rows carry: the run is imported under that tag)
REAL_RUNS = {
    "MathDowsers-alpha05noReRank-prime.tsv": ("MathDowsers", "primary", 8421, "MathDowsers"),
    "MIRMU-Ensemble-prime.tsv": ("MIRMU", "primary", 13905, "Run_Ensemble_0"),
    "LinkedMSE-baseline-prime.tsv": ("LinkedMSE", "primary", 768, "MSE"),
}


def load_2020_topics(arqmath_data: Path) -> RetrievalTask:
    path = arqmath_data / "topics" / "2020" / "task1-topics.xml"
    try:
        from collection.services.topics_import import topics_import
    except ImportError:  # helper A's importer not in this checkout: numbers are enough here
        task = RetrievalTaskFactory.create(
            campaign=Campaign.objects.create(name="ARQMath-1"), kind="answer"
        )
        for number in re.findall(r'<Topic number="(A\.\d+)"', path.read_text()):
            TopicFactory.create(task=task, number=number)
        return task
    topics_import(path=path, campaign_name="ARQMath-1", task="answer")
    return RetrievalTask.objects.get(campaign__name="ARQMath-1", kind="answer")


def test_real_arqmath_2020_runs_import_as_trec_task1_runs(arqmath_data: Path) -> None:
    task = load_2020_topics(arqmath_data)
    assert Topic.objects.filter(task=task).count() == 98
    folder = arqmath_data / "runs" / "2020-task1"
    for name, (team, role, rows, tag) in REAL_RUNS.items():
        out = StringIO()
        call_command(
            "import_run",
            str(folder / name),
            "--campaign=ARQMath-1",
            "--task=task1",
            f"--team={team}",
            f"--tag={tag}",
            f"--role={role}",
            *(["--baseline", "--pool-as-primary"] if team == "LinkedMSE" else []),
            stdout=out,
        )
        run = Run.objects.get(team__name=team)
        assert (run.file_format, run.row_count) == ("trec", rows), out.getvalue()
        assert RunRow.objects.filter(run=run).count() == rows
    baseline = Run.objects.get(team__name="LinkedMSE")
    assert (baseline.is_baseline, baseline.pool_as_primary) == (True, True)
    # The file's first row, as stored.
    first = RunRow.objects.filter(run=baseline, topic__number="A.1").order_by("rank").first()
    assert first is not None
    assert (first.post_id, first.rank, first.score) == (2760112, 1, 2.0)


def test_import_run_prints_every_problem_and_stores_nothing_when_file_is_bad(tmp_path) -> None:
    task = RetrievalTaskFactory.create(kind="answer")
    TopicFactory.create(task=task, number="A.1")
    bad = tmp_path / "bad.tsv"
    bad.write_text("A.1 Q0 5 1 1 t\nA.1 Q0 5 2 0.5 t\nA.7 Q0 6 3 0.5 t\n")
    err = StringIO()
    with pytest.raises(CommandError, match="not stored"):
        call_command(
            "import_run",
            str(bad),
            f"--campaign={task.campaign.name}",
            "--task=answer",
            "--team=T",
            "--tag=t",
            "--role=primary",
            stderr=err,
        )
    assert "line 2: document 5 repeated" in err.getvalue()
    assert "line 3: topic 'A.7' is not a topic of this task" in err.getvalue()
    assert not Run.objects.exists()


def test_import_runs_reads_team_tag_and_role_from_arqmath_file_names(tmp_path) -> None:
    task = RetrievalTaskFactory.create(kind="answer")
    TopicFactory.create(task=task, number="A.1")
    files = {
        "TangentS-task1-math-only-auto-math-A.tsv": "A.1\t11\t1\t1.0\tmath-only\n",
        "TangentS-task1-combined-manual-both-P.tsv": "A.1\t12\t1\t1.0\tcombined\n",
        "Other-task1-run1-auto-text-P.tsv": "A.1\tbad\t1\t1.0\trun1\n",
        "README.txt": "not a run",
        "Team-task2-x-auto-both-P.tsv": "B.1\t1\t2\t1\t1.0\tz\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match=re.escape("Other-task1-run1-auto-text-P.tsv")):
        call_command(
            "import_runs",
            str(tmp_path),
            f"--campaign={task.campaign.name}",
            "--task=answer",
            stdout=out,
            stderr=err,
        )
    runs = {r.tag: r for r in Run.objects.select_related("team")}
    assert set(runs) == {"math-only", "combined"}
    assert (runs["math-only"].role, runs["math-only"].declared_data) == ("alternate", "math")
    assert (runs["combined"].role, runs["combined"].is_manual) == ("primary", True)
    assert runs["combined"].team.name == "TangentS"
    assert "README.txt: skipped" in out.getvalue()
    assert "2 run(s) stored, 1 not stored" in out.getvalue()


def test_import_runs_refuses_each_row_whose_tag_is_not_the_file_names_when_they_differ(
    tmp_path,
) -> None:
    task = RetrievalTaskFactory.create(kind="answer")
    TopicFactory.create(task=task, number="A.1")
    name = "Team-task1-fusion-auto-both-P.tsv"
    (tmp_path / name).write_text("A.1\t11\t1\t1.0\tfusion\nA.1\t12\t2\t0.5\tfusion2\n")
    err = StringIO()
    with pytest.raises(CommandError, match="not stored"):
        call_command(
            "import_runs",
            str(tmp_path),
            f"--campaign={task.campaign.name}",
            "--task=answer",
            stdout=StringIO(),
            stderr=err,
        )
    assert "line 2: run tag 'fusion2' is not 'fusion', the tag given for this run" in (
        err.getvalue()
    )
    assert "line 1" not in err.getvalue()
    assert not Run.objects.exists()


def test_import_run_refuses_every_row_when_the_tag_option_is_not_the_files(tmp_path) -> None:
    task = RetrievalTaskFactory.create(kind="answer")
    TopicFactory.create(task=task, number="A.1")
    path = tmp_path / "run.tsv"
    path.write_text("A.1 Q0 5 1 1 filetag\nA.1 Q0 6 2 0.5 filetag\n")
    err = StringIO()
    with pytest.raises(CommandError, match="not stored"):
        call_command(
            "import_run",
            str(path),
            f"--campaign={task.campaign.name}",
            "--task=answer",
            "--team=T",
            "--tag=other",
            "--role=primary",
            stderr=err,
        )
    assert "line 1: run tag 'filetag' is not 'other'" in err.getvalue()
    assert "line 2: run tag 'filetag' is not 'other'" in err.getvalue()


def test_import_run_names_the_problem_when_the_team_name_is_too_long(tmp_path) -> None:
    task = RetrievalTaskFactory.create(kind="answer")
    path = tmp_path / "run.tsv"
    path.write_text("A.1 Q0 5 1 1 t\n")
    with pytest.raises(CommandError, match="a team name has 1 to 100 characters, not 101"):
        call_command(
            "import_run",
            str(path),
            f"--campaign={task.campaign.name}",
            "--task=answer",
            f"--team={'T' * 101}",
            "--tag=t",
            "--role=primary",
        )


def test_create_token_prints_the_same_token_each_time_and_joins_the_team() -> None:
    UserFactory.create(username="carol")
    first, second = StringIO(), StringIO()
    call_command("create_token", "carol", "--team=Carols", stdout=first)
    call_command("create_token", "carol", stdout=second)
    assert first.getvalue() == second.getvalue()
    assert len(first.getvalue().strip()) == 40
    assert Team.objects.get(name="Carols").members.filter(username="carol").exists()


def test_create_token_fails_clearly_when_user_is_unknown() -> None:
    with pytest.raises(CommandError, match="no user 'nobody'"):
        call_command("create_token", "nobody")


def test_import_runs_matches_file_names_by_task_name_when_campaign_has_two_answer_tasks(
    tmp_path,
) -> None:
    first = RetrievalTaskFactory.create(kind="answer", name="a2021")
    second = RetrievalTaskFactory.create(kind="answer", name="a2022-main", campaign=first.campaign)
    for task in (first, second):
        TopicFactory.create(task=task, number="A.1")
    files = {
        "T-a2021-old-auto-both-P.tsv": "A.1\t11\t1\t1.0\told\n",
        "T-a2022-main-new-run-auto-both-P.tsv": "A.1\t12\t1\t1.0\tnew-run\n",
        "T-task1-which-auto-both-P.tsv": "A.1\t13\t1\t1.0\twhich\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    out = StringIO()
    call_command(
        "import_runs",
        str(tmp_path),
        f"--campaign={first.campaign.name}",
        "--task=a2022-main",
        stdout=out,
    )
    assert [(r.task_id, r.tag) for r in Run.objects.all()] == [(second.pk, "new-run")]
    printed = out.getvalue()
    assert "T-a2021-old-auto-both-P.tsv: skipped (a run of task a2021)" in printed
    assert "T-task1-which-auto-both-P.tsv: skipped" in printed
    assert "2 answer tasks: name one of them (a2021 (answer), a2022-main (answer))" in printed
    call_command(
        "import_runs",
        str(tmp_path),
        f"--campaign={first.campaign.name}",
        "--task=a2021",
        stdout=StringIO(),
    )
    assert Run.objects.get(task=first).tag == "old"
