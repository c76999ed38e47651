"""``manage.py simulate_pools`` on small files: the JSON the issue specifies, the other formats,
and bad input refused with the file and line named."""

import gzip
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 x 2\n2 0 y 0\n"
RUNS = {
    "R1": [("1", "a", 3), ("1", "b", 2), ("1", "c", 1), ("2", "x", 2), ("2", "y", 1)],
    "R2": [("1", "c", 3), ("1", "d", 2), ("1", "a", 1), ("2", "y", 2), ("2", "z", 1)],
    "R3": [("1", "b", 3), ("1", "a", 2), ("2", "z", 2)],
}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "qrels.txt").write_text(QRELS)
    paths = {}
    for tag, rows in RUNS.items():
        text = "".join(
            f"{t} Q0 {d} {rank} {score} {tag}\n" for rank, (t, d, score) in enumerate(rows, 1)
        )
        path = tmp_path / f"{tag}.gz"
        path.write_bytes(gzip.compress(text.encode()))
        paths[tag] = str(path)
    (tmp_path / "pool.txt").write_text("R1\nR2\n")
    (tmp_path / "groups.tsv").write_text("R1\tG1\nR2\tG2\nR3\tG2\n")
    return {"dir": str(tmp_path), **paths}


def run(files: dict[str, str], *args: str) -> str:
    out = io.StringIO()
    call_command(
        "simulate_pools",
        "--qrels",
        f"{files['dir']}/qrels.txt",
        *args,
        files["R1"],
        files["R2"],
        files["R3"],
        stdout=out,
        stderr=io.StringIO(),
    )
    return out.getvalue()


def test_json_has_one_object_per_strategy_and_budget(files: dict[str, str]) -> None:
    rows = json.loads(
        run(
            files,
            "--pool-runs",
            f"{files['dir']}/pool.txt",
            "--groups",
            f"{files['dir']}/groups.tsv",
            "--strategy",
            "depth",
            "--strategy",
            "mm-ns:0.7",
            "--budget",
            "3",
            "--budget",
            "4",
            "--measure",
            "map",
            "--measure",
            "P_1",
            "--format",
            "json",
        )
    )
    assert [(r["strategy"], r["budget"]) for r in rows] == [
        ("depth", 3),
        ("depth", 4),
        ("mm-ns:0.7", 3),
        ("mm-ns:0.7", 4),
    ]
    keys = {"strategy", "budget", "judgments", "relevant", "relevant_share", "tau", "tau_ap"}
    for row in rows:
        assert set(row) == keys | {"max_group_drop"}
        assert (
            set(row["tau"])
            == set(row["tau_ap"])
            == set(row["max_group_drop"])
            == {
                "map",
                "P_1",
            }
        )
        assert row["judgments"] <= row["budget"]
    # Depth 1 pools {a, c} and {x, y}: 4 judgments, 3 relevant of the qrels' 3.
    assert (rows[1]["judgments"], rows[1]["relevant"], rows[1]["relevant_share"]) == (4, 3, 1.0)


def test_table_and_csv_have_a_line_per_strategy_budget_and_measure(files: dict[str, str]) -> None:
    table = run(files, "--strategy", "rrf", "--budget", "2", "--measure", "map")
    assert table.splitlines()[0].startswith("strategy")
    assert table.splitlines()[1].split()[:2] == ["rrf:60", "2"]
    csv_text = run(files, "--strategy", "rrf", "--budget", "2", "--format", "csv")
    lines = csv_text.splitlines()
    assert lines[0].startswith("strategy,budget,judgments")
    assert len(lines) == 1 + 4  # the four default measures


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--strategy", "bm25"], "unknown strategy 'bm25'"),
        (["--strategy", "rbp:2"], "out of range"),
        (["--strategy", "rrf:1e+308"], r"rrf: 1e\+308 is out of range"),
        (["--budget", "0"], "--budget must be at least 1"),
        (["--workers", "0"], "--workers must be at least 1, not 0"),
        (["--measure", "nonsense"], "unknown measure 'nonsense'"),
    ],
)
def test_bad_options_are_refused(files: dict[str, str], args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        run(files, *args)


def test_bad_files_are_refused_with_file_and_line(files: dict[str, str]) -> None:
    folder = Path(files["dir"])
    (folder / "bad-pool.txt").write_text("R1\nR9\n")
    with pytest.raises(CommandError, match=r"bad-pool.txt: line 2: run tag 'R9'"):
        run(files, "--pool-runs", str(folder / "bad-pool.txt"))
    (folder / "bad-groups.tsv").write_text("R1\tG1\nR2 G2\n")
    with pytest.raises(CommandError, match=r"bad-groups.tsv: line 2: expected"):
        run(files, "--groups", str(folder / "bad-groups.tsv"))
    (folder / "qrels.txt").write_text("1 0 a\n")
    with pytest.raises(CommandError, match=r"qrels\.txt: invalid qrels: line 1"):
        run(files)
    (folder / "qrels.txt").write_text(QRELS)
    with pytest.raises(CommandError, match=r"missing\.txt"):
        run(files, "--pool-runs", str(folder / "missing.txt"))
    Path(files["R3"]).write_bytes(gzip.compress(b"1 Q0 b 1 3 R3\n1 Q0 a 2 high R3\n"))
    with pytest.raises(CommandError, match=r"R3\.gz: .*line 2: score 'high' is not a number"):
        run(files)


def test_judged_only_replays_condensed_runs(files: dict[str, str]) -> None:
    """Condensed, R2 is c, a and y (d and z were never judged): depth 2 pools {a, b, c} and
    {x, y}, 5 judgments, all the budget of 5; as submitted depth 2 would also pool d and z
    (7), so depth 1 it is: {a, c} and {x, y}, 4 judgments."""
    pool = ["--pool-runs", f"{files['dir']}/pool.txt", "--strategy", "depth", "--budget", "5"]
    args = [*pool, "--measure", "map", "--format", "json"]
    [plain] = json.loads(run(files, *args))
    [judged] = json.loads(run(files, *args, "--judged-only"))
    assert (plain["judgments"], plain["relevant"]) == (4, 3)
    assert (judged["judgments"], judged["relevant"], judged["relevant_share"]) == (5, 3, 1.0)


def test_workers_replay_the_strategies_to_the_same_rows(files: dict[str, str]) -> None:
    args = ["--pool-runs", f"{files['dir']}/pool.txt", "--groups", f"{files['dir']}/groups.tsv"]
    args += ["--budget", "2", "--budget", "4", "--format", "json"]
    alone = json.loads(run(files, *args, "--workers", "1"))
    assert len(alone) == 2 * 7  # every default strategy at both budgets, in that order
    assert json.loads(run(files, *args, "--workers", "3")) == alone
