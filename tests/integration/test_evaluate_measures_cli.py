"""``manage.py evaluate --measure``: real ARQMath figures, formats, per-topic values, errors."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

PUBLISHED = {  # ../shared/data/arqmath/README.md: nDCG', P'@10 over all 77 qrels topics
    "MathDowsers-alpha05noReRank-prime.tsv": (0.3446, 0.1623),
    "MIRMU-Ensemble-prime.tsv": (0.2378, 0.1390),
    "LinkedMSE-baseline-prime.tsv": (0.2791, 0.3857),
}
QRELS = "1\t0\ta\t2\n1\t0\tb\t0\n1\t0\tc\t1\n2\t0\tx\t1\n"
RUN = "1 Q0 d 1 3.0 R\n1 Q0 b 2 2.0 R\n1 Q0 a 3 1.0 R\n"


def run_cli(*args: str) -> str:
    out = io.StringIO()
    call_command("evaluate", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def small_files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def test_measures_give_published_prime_figures_when_real_arqmath_runs(
    arqmath_data: Path,
) -> None:
    runs = sorted(str(p) for p in (arqmath_data / "runs" / "2020-task1").glob("*.tsv"))
    qrels = str(arqmath_data / "qrels" / "2020" / "task1-qrels.tsv")
    args = ["--measure", "ndcg", "--measure", "P_10", "--relevance-level", "2"]
    rows = json.loads(run_cli("--qrels", qrels, *runs, *args, "--judged-only", "--format", "json"))
    got = {r["file"]: r for r in rows}
    assert set(got) == set(PUBLISHED)
    for file, (ndcg, p10) in PUBLISHED.items():
        assert f"{got[file]['measures']['ndcg']:.4f}" == f"{ndcg:.4f}", file
        assert f"{got[file]['measures']['P_10']:.4f}" == f"{p10:.4f}", file
        assert got[file]["topics"] == 77
        assert "per_topic" not in got[file]


def test_measures_print_trec_eval_layout_when_table_and_per_topic(tmp_path: Path) -> None:
    qrels, run = small_files(tmp_path)
    out = run_cli("--qrels", qrels, run, "--measure", "P.2,3", "--per-topic")
    lines = [line.split("\t") for line in out.splitlines() if "\t" in line]
    assert [(m.strip(), t, v) for m, t, v, _ in lines] == [
        ("P_2", "all", "0.0000"),  # topic 2 is missing from the run: 0 (average all)
        ("P_3", "all", "0.1667"),
        ("P_2", "1", "0.0000"),
        ("P_3", "1", "0.3333"),
        ("P_2", "2", "0.0000"),  # trec_eval -c -q prints the missing topic too
        ("P_3", "2", "0.0000"),
    ]


def test_measures_json_has_per_topic_map_when_per_topic(tmp_path: Path) -> None:
    qrels, run = small_files(tmp_path)
    [row] = json.loads(
        run_cli(
            "--qrels", qrels, run, "--measure", "Judged@2", "--measure", "P(rel=2)@3",
            "--judged-only", "--average", "run", "--per-topic", "--format", "json",
        )
    )  # fmt: skip
    assert row["measures"] == {"Judged@2": 0.5, "P(rel=2)@3": pytest.approx(1 / 3)}
    assert row["per_topic"]["1"]["Judged@2"] == 0.5
    assert row["topics"] == 1


def test_measures_csv_cells_are_safe_when_run_tag_is_a_formula(tmp_path: Path) -> None:
    qrels, _ = small_files(tmp_path)
    (tmp_path / "evil.txt").write_text("1 Q0 a 1 1.0 =cmd\n")
    out = run_cli(
        "--qrels", qrels, str(tmp_path / "evil.txt"), "--measure", "map", "--format", "csv"
    )
    assert out.splitlines()[0] == "run,topic,map"
    assert out.splitlines()[1].startswith("'=cmd,all,")


def test_depth_cuts_each_topic_when_depth_given(tmp_path: Path) -> None:
    qrels, run = small_files(tmp_path)
    args = ["--measure", "num_ret", "--depth", "2", "--average", "run", "--format", "json"]
    [row] = json.loads(run_cli("--qrels", qrels, run, *args))
    assert row["measures"]["num_ret"] == 2


def test_bad_measure_is_named_when_unknown(tmp_path: Path) -> None:
    qrels, run = small_files(tmp_path)
    with pytest.raises(CommandError, match=r"unknown measure 'nDGC@10'.*examples: map"):
        run_cli("--qrels", qrels, run, "--measure", "nDGC@10")


def test_measure_options_need_measure_when_given_alone(tmp_path: Path) -> None:
    qrels, run = small_files(tmp_path)
    with pytest.raises(CommandError, match="--judged-only needs --measure"):
        run_cli("--qrels", qrels, run, "--judged-only")


INDEX = (
    "id\tpost_id\tthread_id\ttype\tcomment_id\told_visual_id\tvisual_id\tissue\tformula\n"
    "11\t1\t1\tanswer\t\t5\t500\t\tx^2\n"
    "12\t2\t2\tanswer\t\t5\t500\t\tx^{2}\n"
    "13\t3\t3\tanswer\t\t6\t600\t\ty+1\n"
)


def test_formula_run_is_scored_by_visual_id_when_measure_given(tmp_path: Path) -> None:
    (tmp_path / "qrels.tsv").write_text("B.1\t0\t500\t3\nB.1\t0\t600\t0\n")
    (tmp_path / "index.tsv").write_text(INDEX)
    # f11 and f12 share visual id 500: one relevant visual id, then 600 (not relevant).
    (tmp_path / "run.tsv").write_text(
        "B.1\t11\t1\t1\t9.0\tR\nB.1\t12\t2\t2\t8.0\tR\nB.1\t13\t3\t3\t7.0\tR\n"
    )
    [row] = json.loads(
        run_cli(
            "--qrels", str(tmp_path / "qrels.tsv"), str(tmp_path / "run.tsv"),
            "--task", "formula", "--formula-index", str(tmp_path / "index.tsv"),
            "--measure", "P_2", "--measure", "num_ret", "--format", "json",
        )
    )  # fmt: skip
    assert row["measures"] == {"P_2": 0.5, "num_ret": 2.0}


def test_latex_lists_means_when_measures_given(tmp_path: Path) -> None:
    qrels, run = small_files(tmp_path)
    out = run_cli("--qrels", qrels, run, "--measure", "P_3", "--format", "latex")
    assert "Run & P\\_3 \\\\" in out
    assert "R & 0.1667 \\\\" in out


def test_open_qa_is_refused_when_measure_given(tmp_path: Path) -> None:
    qrels, run = small_files(tmp_path)
    with pytest.raises(CommandError, match="--measure is for ranked runs"):
        run_cli("--qrels", qrels, run, "--task", "openqa", "--measure", "map")


def test_workers_keep_files_order_and_figures_when_runs_scored_in_parallel(
    tmp_path: Path,
) -> None:
    qrels, _ = small_files(tmp_path)
    # Topic 1 has a (2) and c (1) relevant: P_3 of run k is (relevant in its first 3) / 3,
    # averaged with topic 2 (missing from every run: 0).
    firsts = {0: ["d", "b", "e"], 1: ["a", "b", "e"], 2: ["a", "c", "b"]}
    runs = []
    for n in range(9):
        docs = firsts[n % 3]
        path = tmp_path / f"run{n}.txt"
        path.write_text("".join(f"1 Q0 {d} {r} {9 - r} tag{n}\n" for r, d in enumerate(docs, 1)))
        runs.append(str(path))
    args = ["--qrels", qrels, *runs, "--measure", "P_3", "--format", "json"]
    parallel = json.loads(run_cli(*args, "--workers", "2"))
    alone = json.loads(run_cli(*args, "--workers", "1"))
    assert parallel == alone
    assert [r["run"] for r in parallel] == [f"tag{n}" for n in range(9)]
    expected = {0: 0.0, 1: 1 / 3 / 2, 2: 2 / 3 / 2}
    assert [r["measures"]["P_3"] for r in parallel] == pytest.approx(
        [expected[n % 3] for n in range(9)]
    )


def test_bad_file_is_named_with_its_line_when_a_worker_reads_it(tmp_path: Path) -> None:
    qrels, run = small_files(tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 a 1 2.0 R\n1 Q0 b 2 high R\n")
    with pytest.raises(CommandError, match=r"bad\.txt: line 2: .*score"):
        run_cli("--qrels", qrels, run, run, str(bad), run, "--measure", "map", "--workers", "2")
    with pytest.raises(CommandError, match="--workers must be at least 1"):
        run_cli("--qrels", qrels, run, "--measure", "map", "--workers", "0")
