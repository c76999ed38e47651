"""The real ARQMath files: published ARQMath-1 figures from ``evaluate``, qrels round-trips."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evaluation.core.qrels import qrels_format, qrels_grades, qrels_read_path

PUBLISHED = {  # ../shared/data/arqmath/README.md, averaged over all 77 qrels topics
    "MathDowsers-alpha05noReRank-prime.tsv": (0.3446, 0.1393, 0.1623),
    "MIRMU-Ensemble-prime.tsv": (0.2378, 0.0641, 0.1390),
    "LinkedMSE-baseline-prime.tsv": (0.2791, 0.1937, 0.3857),
}


def evaluate_json(*args: str) -> list[dict]:
    out = io.StringIO()
    call_command("evaluate", *args, "--format", "json", stdout=out)
    return json.loads(out.getvalue())


def test_evaluate_gives_published_arqmath1_task1_figures_when_real_runs(
    arqmath_data: Path,
) -> None:
    runs = sorted(str(p) for p in (arqmath_data / "runs" / "2020-task1").glob("*.tsv"))
    qrels = str(arqmath_data / "qrels" / "2020" / "task1-qrels.tsv")
    results = {r["file"]: r for r in evaluate_json("--qrels", qrels, *runs)}
    assert set(results) == set(PUBLISHED)
    for file, (ndcg, map_, p10) in PUBLISHED.items():
        got = results[file]
        assert round(got["ndcg_prime"], 3) == round(ndcg, 3), file
        assert round(got["map_prime"], 3) == round(map_, 3), file
        assert round(got["p10_prime"], 3) == round(p10, 3), file
        assert got["topics"] == 77
        assert abs(got["ndcg_prime"] - ndcg) < 5e-5  # the README's 4-decimal figure too


def test_evaluate_gives_readme_own_topic_means_when_average_run(arqmath_data: Path) -> None:
    run = str(arqmath_data / "runs" / "2020-task1" / "LinkedMSE-baseline-prime.tsv")
    qrels = str(arqmath_data / "qrels" / "2020" / "task1-qrels.tsv")
    [result] = evaluate_json("--qrels", qrels, "--average", "run", run)
    assert result["topics"] == 71
    assert [round(result[m], 3) for m in ("ndcg_prime", "map_prime", "p10_prime")] == [
        0.303,
        0.210,
        0.418,
    ]


@pytest.mark.parametrize(
    "name",
    [
        "2021/task1-qrels.tsv",
        "2021/task2-qrels-visual-ids-v3.tsv",
        "2022/task1-qrels.tsv",
        "2022/task2-qrels-visual-ids-v3.tsv",
        "2022/task3-qrels.tsv",
    ],
)
def test_real_qrels_round_trip_byte_for_byte_when_parsed_and_written(
    arqmath_data: Path, name: str
) -> None:
    raw = (arqmath_data / "qrels" / name).read_bytes()
    entries = qrels_read_path(arqmath_data / "qrels" / name)
    assert qrels_format(entries, line_end="\r\n").encode() == raw
    assert qrels_format(entries).encode() == raw.replace(b"\r\n", b"\n")


def test_real_task3_qrels_count_flags_as_zero_when_graded(arqmath_data: Path) -> None:
    entries = qrels_read_path(arqmath_data / "qrels" / "2022" / "task3-qrels.tsv")
    flagged = [e for e in entries if e.grade in (5, 6)]
    grades = qrels_grades(entries, kind="openqa")
    assert len(flagged) == 70
    assert all(grades[e.topic][e.doc] == 0 for e in flagged)
    assert len(grades) == 78


@pytest.mark.parametrize(
    ("content", "message"),
    [("A.1 Q0\n", "2 columns"), ("", "empty file")],
)
def test_evaluate_fails_with_line_numbered_message_when_run_is_broken(
    arqmath_data: Path, tmp_path: Path, content: str, message: str
) -> None:
    run = tmp_path / "bad.tsv"
    run.write_text(content)
    qrels = str(arqmath_data / "qrels" / "2020" / "task1-qrels.tsv")
    with pytest.raises(CommandError, match=message):
        call_command("evaluate", "--qrels", qrels, str(run))
