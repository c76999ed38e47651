"""``evaluate --task openqa`` computes Lexical Overlap of native Task 3 runs from the files:
references are the other teams' relevant answers (the real 2022 qrels say which), the team of
each run from ``--teams``; figures checked by hand (token F1 = 2PR/(P+R) over bags of words)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError


def evaluate(*args: str, fmt: str = "json") -> str:
    out = io.StringIO()
    call_command("evaluate", *args, "--format", fmt, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def f1(common: int, answer: int, reference: int) -> float:
    p, r = common / answer, common / reference
    return 2 * p * r / (p + r)


def runs(tmp_path: Path) -> tuple[Path, Path, Path]:
    # Real 2022 rows: A.301 d_1 and d_248 are High (3), d_451 is Low (1).
    one = tmp_path / "one.tsv"
    one.write_text("A.301\t1\t1.0\tqa1\t\tThe sum of two odd numbers is even\n")
    two = tmp_path / "two.tsv"
    two.write_text("A.301\t1\t1.0\tqa2\t\tAn even sum of odd numbers\n")
    three = tmp_path / "three.tsv"
    three.write_text("A.301\t1\t1.0\tqa3\t\tOdd plus odd is even\n")
    mapping = tmp_path / "map.tsv"
    mapping.write_text("qa1\tA.301\td_1\nqa2\tA.301\td_248\nqa3\tA.301\td_451\n")
    return one, two, three


def test_lo_of_native_runs_with_real_qrels_and_teams(arqmath_data: Path, tmp_path: Path) -> None:
    qrels = str(arqmath_data / "qrels" / "2022" / "task3-qrels.tsv")
    one, two, three = runs(tmp_path)
    teams = tmp_path / "teams.tsv"
    teams.write_text("run\tteam\nqa1\tAlpha\nqa2\tAlpha\nqa3\tBeta\n")
    common = ("--qrels", qrels, "--task", "openqa", "--answer-map", str(tmp_path / "map.tsv"))
    rows = {
        r["run"]: r
        for r in json.loads(
            evaluate(*common, "--teams", str(teams), str(one), str(two), str(three))
        )
    }
    # The mean is over the 78 topics of the real qrels (a topic without an answer scores 0).
    # qa1 and qa2 are both Alpha's: no reference left for either. qa3 (Beta) meets both:
    # "odd plus odd is even" (5 tokens) vs qa1 (8 tokens: the sum of two odd numbers is even):
    # odd, is, even -> 3 common; vs qa2 (6: an even sum of odd numbers): odd, even -> 2.
    assert rows["qa1"]["lo"] == 0.0
    assert rows["qa2"]["lo"] == 0.0
    assert rows["qa3"]["lo"] == pytest.approx(max(f1(3, 5, 8), f1(2, 5, 6)) / 78)
    assert rows["qa3"]["per_topic"]["A.301"]["lo"] == pytest.approx(f1(3, 5, 8))
    note = next(n for n in rows["qa3"]["notes"] if n.startswith("LO: "))
    assert "word tokenizer" in note
    # Without --teams each run is a team of its own: qa1 meets qa2 (relevant) and not qa3
    # (Low): "an even sum of odd numbers" vs qa1: even, sum, of, odd, numbers -> 5 of 8 and 6.
    alone = {
        r["run"]: r
        for r in json.loads(evaluate(*common, "--average", "run", str(one), str(two), str(three)))
    }
    assert alone["qa1"]["lo"] == pytest.approx(f1(5, 8, 6))
    assert "each run is a team of its own" in " ".join(alone["qa1"]["notes"])
    table = evaluate(*common, "--average", "run", str(one), str(two), fmt="table")
    assert "LO" in table.splitlines()[0]


def test_teams_file_problems_name_their_line(tmp_path: Path) -> None:
    one, _, _ = runs(tmp_path)
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("A.301\t0\td_1\t3\n")
    teams = tmp_path / "teams.tsv"
    teams.write_text("qa1\tAlpha\nqa1\tBeta\nqa2\n")
    with pytest.raises(CommandError, match=r"teams.tsv: line 2: run qa1 is already team Alpha's"):
        evaluate(
            *("--qrels", str(qrels), "--task", "openqa"),
            *("--answer-map", str(tmp_path / "map.tsv"), "--teams", str(teams), str(one)),
        )
