"""The demo campaign end to end: qrels from its judgments evaluate its runs, and the app's
numbers equal the file-based ``evaluate`` command on the exported qrels and the run files."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from collection.models import Campaign
from demo.results import demo_evaluate
from evaluation.models import EvaluationResult, QrelsVersion

pytestmark = pytest.mark.django_db


def test_demo_judgments_evaluate_demo_runs_like_the_cli_when_exported(tmp_path: Path) -> None:
    call_command(
        "demo", "--dir", str(tmp_path), "--threads", "60", "--topics", "4", stdout=io.StringIO()
    )
    campaign = Campaign.objects.get(name="ARQMath demo")
    summary = demo_evaluate(campaign)
    assert "answer: qrels" in summary
    qrels = QrelsVersion.objects.get(task__campaign=campaign, task__kind="answer")
    results = EvaluationResult.objects.filter(qrels=qrels).select_related("run")
    answer_runs = campaign.tasks.get(kind="answer").runs.all()
    assert {r.run_id for r in results} == {run.pk for run in answer_runs}
    assert {r.qrels_checksum for r in results} == {qrels.checksum}
    assert any(r.measures["ndcg_prime"] > 0 for r in results)

    qrels_file = tmp_path / "qrels.tsv"
    qrels_file.write_text(qrels.content)
    files = {run.file_name: run for run in answer_runs}
    paths = [str(p) for p in (tmp_path / "runs" / "task1").iterdir() if p.name in files]
    assert len(paths) == len(files)
    out = io.StringIO()
    call_command("evaluate", "--qrels", str(qrels_file), "--format", "json", *paths, stdout=out)
    by_run = {r.run.file_name: r.measures for r in results}
    for row in json.loads(out.getvalue()):
        for measure in ("ndcg_prime", "map_prime", "p10_prime", "judged_at_10"):
            assert row[measure] == pytest.approx(by_run[row["file"]][measure]), row["file"]


def test_demo_evaluation_reuses_frozen_qrels_when_run_twice(tmp_path: Path) -> None:
    call_command(
        "demo", "--dir", str(tmp_path), "--threads", "60", "--topics", "4", stdout=io.StringIO()
    )
    campaign = Campaign.objects.get(name="ARQMath demo")
    demo_evaluate(campaign)
    count = EvaluationResult.objects.count()
    demo_evaluate(campaign)
    assert EvaluationResult.objects.count() == count
    assert QrelsVersion.objects.filter(task__campaign=campaign).count() == 1
