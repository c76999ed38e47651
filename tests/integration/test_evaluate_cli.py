"""``manage.py evaluate`` on small hand-made files: formula index, open QA, formats, errors."""

import gzip
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

INDEX_V3 = (
    "id\tpost_id\tthread_id\ttype\tcomment_id\told_visual_id\tvisual_id\tissue\tformula\n"
    "11\t1\t1\tanswer\t\t5\t500\t\tx^2\n"
    "12\t2\t2\tanswer\t\t5\t500\t\tx^{2}\n"
    "13\t3\t3\tanswer\t\t6\t600\t\ty+1\n"
    "14\t4\t4\tanswer\t\t7\t700\t\t\\frac{a}{b}\n"
)
# B.1: visual 500 is H, 600 is N, 700 is M.
QRELS_VISUAL = "B.1\t0\t500\t3\nB.1\t0\t600\t0\nB.1\t0\t700\t2\n"


def run_cli(*args: str) -> str:
    out = io.StringIO()
    call_command("evaluate", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def test_formula_run_is_scored_by_visual_id_when_index_given(tmp_path: Path) -> None:
    # f13 first (N), then f11 and f12 share visual id 500: only the first counts; f14 (M).
    # f11 is repeated with a lower last score, which moves it below f14.
    run = write(
        tmp_path / "run.tsv",
        "B.1\t13\t3\t1\t9.0\tR\nB.1\t11\t1\t2\t8.0\tR\nB.1\t12\t2\t3\t7.0\tR\n"
        "B.1\t14\t4\t4\t6.0\tR\nB.1\t11\t1\t5\t5.0\tR\n",
    )
    index = write(tmp_path / "index.tsv", INDEX_V3)
    qrels = write(tmp_path / "qrels.tsv", QRELS_VISUAL)
    [row] = json.loads(
        run_cli(
            "--qrels", qrels, "--task", "formula", "--formula-index", index, "--format", "json", run
        )
    )
    # Ranking after dedup: 600 (9.0, N), 500 (7.0 via f12, H), 700 (6.0, M).
    assert row["map_prime"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert row["p10_prime"] == pytest.approx(0.2)


def test_five_column_index_uses_latex_without_spaces_as_visual_id_when_no_visual_id(
    tmp_path: Path,
) -> None:
    index = write(
        tmp_path / "index.tsv",
        "id\tpost_id\tthread_id\ttype\tformula\n1\t1\t1\tanswer\tx ^ 2\n2\t2\t2\tanswer\tx^2\n",
    )
    qrels = write(tmp_path / "qrels.tsv", "B.1\t0\tx^2\t2\n")
    run = write(tmp_path / "run.tsv", "B.1\t1\t1\t1\t2.0\tR\nB.1\t2\t2\t2\t1.0\tR\n")
    [row] = json.loads(
        run_cli(
            "--qrels", qrels, "--task", "formula", "--formula-index", index, "--format", "json", run
        )
    )
    assert row["map_prime"] == 1.0


def test_formula_task_needs_index_when_evaluating(tmp_path: Path) -> None:
    qrels = write(tmp_path / "qrels.tsv", QRELS_VISUAL)
    run = write(tmp_path / "run.tsv", "B.1\t13\t3\t1\t9.0\tR\n")
    with pytest.raises(CommandError, match="formula-index"):
        run_cli("--qrels", qrels, "--task", "formula", run)


def test_openqa_gives_ar_and_p1_with_flags_as_zero_when_trec_run_names_answer_ids(
    tmp_path: Path,
) -> None:
    qrels = write(tmp_path / "qrels.tsv", "A.1\t0\td_1\t3\r\nA.2\t0\td_2\t5\r\nA.3\t0\td_3\t1\r\n")
    run = write(tmp_path / "run.tsv", "A.1 Q0 d_1 1 1.0 qa\nA.2 Q0 d_2 1 1.0 qa\n")
    [row] = json.loads(run_cli("--qrels", qrels, "--task", "openqa", "--format", "json", run))
    assert row["ar"] == pytest.approx(3 / 3)
    assert row["p1"] == pytest.approx(1 / 3)
    assert row["topics"] == 3


def test_gzip_run_and_crlf_qrels_give_same_numbers_as_plain_when_compressed(tmp_path: Path) -> None:
    text = "A.1\t5\t1\t2.0\tR\nA.1\t6\t2\t1.0\tR\nA.1\t5\t3\t0.5\tR\n"  # 5 repeated: first wins
    plain = write(tmp_path / "run.tsv", text)
    packed = tmp_path / "run.tsv.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    qrels = write(tmp_path / "qrels.tsv", "A.1 0 5 0\r\nA.1 0 6 2\r\n")
    rows = json.loads(run_cli("--qrels", qrels, "--format", "json", plain, str(packed)))
    assert rows[0]["map_prime"] == rows[1]["map_prime"] == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("fmt", "check"),
    [
        ("table", lambda out: max(len(line) for line in out.splitlines()) <= 100),
        ("csv", lambda out: out.splitlines()[0].startswith("run,file,ndcg_prime")),
        ("latex", lambda out: out.count("\\\\") == 3 and "\\textbf{" in out),
    ],
)
def test_output_format_is_usable_when_chosen(tmp_path: Path, fmt: str, check: object) -> None:
    qrels = write(tmp_path / "qrels.tsv", "A.1\t0\t5\t3\nA.1\t0\t6\t0\n")
    runs = [
        write(
            tmp_path / f"a-very-long-run-file-name-number-{i}.tsv",
            f"A.1\t{5 + i}\t1\t1.0\t{'x' * 45}{i}\n",
        )
        for i in range(2)
    ]
    assert check(run_cli("--qrels", qrels, "--format", fmt, *runs))  # type: ignore[operator]


def test_table_puts_best_ndcg_first_when_runs_differ(tmp_path: Path) -> None:
    qrels = write(tmp_path / "qrels.tsv", "A.1\t0\t5\t3\nA.1\t0\t6\t0\n")
    worse = write(tmp_path / "worse.tsv", "A.1\t6\t1\t2.0\tworse\nA.1\t5\t2\t1.0\tworse\n")
    better = write(tmp_path / "better.tsv", "A.1\t5\t1\t2.0\tbetter\n")
    lines = run_cli("--qrels", qrels, worse, better).splitlines()
    assert lines[2].startswith("better")
    assert lines[3].startswith("worse")


def test_bad_qrels_line_is_reported_with_its_number_when_evaluating(tmp_path: Path) -> None:
    qrels = write(tmp_path / "qrels.tsv", "A.1\t0\t5\t3\nA.1\t0\t6\n")
    run = write(tmp_path / "run.tsv", "A.1\t5\t1\t2.0\tR\n")
    with pytest.raises(CommandError, match="line 2: expected 4 columns"):
        run_cli("--qrels", qrels, run)
